/** Injection token of the known-conflicts table (config/loop.yaml `critic_disagreement.known_conflicts`). */
export const KNOWN_CONFLICTS = Symbol.for('rloop.synthesizer.known-conflicts');
