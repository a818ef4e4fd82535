/** Injection tokens of the critic-runner. */
export const CRITIC_RUNNER_CONFIG = Symbol.for('rloop.critic-runner.config');
/** The critics this runner hosts, by id. */
export const HOSTED_CRITICS = Symbol.for('rloop.critic-runner.critics');
