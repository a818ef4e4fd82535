/** Injection tokens of the critic-runner. */
export const CRITIC_RUNNER_CONFIG = Symbol.for('rloop.critic-runner.config');
/** The critics this runner hosts, by id. */
export const HOSTED_CRITICS = Symbol.for('rloop.critic-runner.critics');
/** The LLM critics' host (LlmCriticHost), or null without ANTHROPIC_API_KEY. */
export const LLM_CRITIC_HOST = Symbol.for('rloop.critic-runner.llm-critics');
/** What the plan's test runs recorded, by commit (RecordedCoverageStore), for quality/test-coverage. */
export const RECORDED_COVERAGE = Symbol.for('rloop.critic-runner.recorded-coverage');
