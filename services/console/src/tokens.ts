/** Injection token of the console's parsed configuration. */
export const CONSOLE_CONFIG = Symbol.for('rloop.console.config');
