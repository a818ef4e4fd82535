/** Injection token of the synthesizer's parsed configuration (environment and config/loop.yaml's known conflicts). */
export const SYNTHESIZER_CONFIG = Symbol.for('rloop.synthesizer.config');
