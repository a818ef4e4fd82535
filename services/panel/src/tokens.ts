/** Injection token of the panel's parsed configuration. */
export const PANEL_CONFIG = Symbol.for('rloop.panel.config');
