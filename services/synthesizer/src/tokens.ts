/** Injection token of the synthesizer's parsed configuration. */
export const SYNTHESIZER_CONFIG = Symbol.for('rloop.synthesizer.config');
