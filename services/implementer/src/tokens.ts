/** Injection token of the implementer's parsed configuration. */
export const IMPLEMENTER_CONFIG = Symbol.for('rloop.implementer.config');
