/** Injection token of the gate's parsed configuration. */
export const GATE_CONFIG = Symbol.for('rloop.gate.config');
