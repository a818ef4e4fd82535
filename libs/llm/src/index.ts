// The LLM judgement layer: the Anthropic client, LLM critics, the `anthropic` implementer
// strategy (test writer, implementer, verifier), cost and budgets. See README.md.
export {
  LLM_ERROR_CODES,
  type LlmErrorCode,
  LlmError,
  type LlmErrorOptions,
  LlmRateLimitedError,
  LlmOverloadedError,
  LlmUnavailableError,
  LlmAbortedError,
  LlmAuthError,
  LlmSpendLimitError,
  LlmRequestInvalidError,
  LlmOutputInvalidError,
  LlmOutputTruncatedError,
  LlmRefusedError,
  BUDGET_SCOPES,
  type BudgetScope,
  type BudgetExceededDetails,
  LlmBudgetExceededError,
  LlmNotConfiguredError,
  LlmConfigError,
  PathOutsideWorktreeError,
  CommandNotAllowedError,
  GitCommandError,
} from './errors.js';
export { redactSecrets, registerSecret, containsRegisteredSecret, isSecretEnvName } from './redact.js';
export {
  createAnthropicClient,
  type AnthropicClientOptions,
  type LlmClient,
  type LlmClientFactory,
  type LlmCallOptions,
  type LlmMessageRequest,
  type LlmCountRequest,
  type LlmLogger,
} from './client.js';
export {
  FAILURE_KINDS,
  type FailureKind,
  type RetryPolicy,
  DEFAULT_RETRY_POLICY,
  classifyStatus,
  isSpendLimit,
  type ErrorBody,
  parseRetryAfterMs,
  decideRetry,
  type RetryDecision,
} from './retry.js';
export {
  parseModelCatalogue,
  loadModelCatalogue,
  findModel,
  findModelOrThrow,
  costOfCall,
  estimateCallCostUsd,
  weightedInputTokens,
  type ModelCatalogue,
  type ModelRoles,
  type ModelSpec,
  type ModelRates,
  type PricedUsage,
} from './models.js';
export { createCacheWarmup, type CacheWarmup, type CacheWarmupOptions } from './cache-warmup.js';
export {
  checkBudget,
  checkBudgetOrThrow,
  type BudgetLimits,
  type BudgetCheckInput,
  type BudgetVerdict,
  type BudgetState,
} from './budget.js';
export {
  budgetReached,
  budgetReachedFrom,
  describeBudgetReached,
  budgetEscalation,
  type BudgetReached,
} from './budget-escalation.js';
export { type UsageRecord, type CallUsage, emptyUsage, addUsage } from './usage.js';
export {
  ReportedFinding,
  ReportFindingsInput,
  REPORT_FINDINGS_TOOL,
  reportFindingsTool,
  parseReportedFindings,
  checkFindingLocations,
  type DroppedFinding,
  type ParseFindingsResult,
} from './findings.js';
export { fileDataBlock, dataBlock, UNTRUSTED_DATA_RULE } from './data-blocks.js';
export {
  CRITIC_SYSTEM_PROMPT,
  CODE_REVIEWER_PROMPT,
  TEST_WRITER_SYSTEM_PROMPT,
  IMPLEMENTER_SYSTEM_PROMPT,
} from './prompts.js';
export { PROMPT_CRITIC_SPECS, promptCriticSpec, type PromptCriticSpec } from './prompt-critics.js';
export {
  reviewWithLlm,
  gatherReviewSubject,
  reviewMessage,
  createPromptCritic,
  createCodeReviewerCritic,
  createPromptCritics,
  criticFailureReasonOf,
  CODE_REVIEWER_ID,
  DEFAULT_REVIEW_LIMITS,
  type ReviewSubject,
  type ReviewLimits,
  type SubjectHints,
  type LlmReviewOptions,
  type LlmReviewResult,
  type LlmCriticOptions,
  type PromptCriticOptions,
  type LlmCriticDefinition,
  type LlmCriticReport,
} from './critic.js';
export {
  runToolLoop,
  defineTool,
  type LoopTool,
  type ToolLoopOptions,
  type ToolLoopResult,
  type ToolCallRecord,
} from './tool-loop.js';
export {
  resolveInWorktree,
  realWorktreeRoot,
  readWorktreeFile,
  writeWorktreeFile,
  editWorktreeFile,
  listWorktreeFiles,
  searchWorktree,
  type ResolvedPath,
} from './worktree.js';
export {
  splitCommand,
  scrubEnv,
  isAllowedCommand,
  runCommand,
  runAllowedCommand,
  DEFAULT_COMMAND_PATH,
  type CommandResult,
  type CommandLimits,
  type RunCommandOptions,
} from './commands.js';
export {
  parseTapOutput,
  createCommandTestRunner,
  runPassed,
  type TestRunner,
  type TestRunRequest,
  type TestRunResult,
  type ParsedTests,
  type CommandTestRunnerOptions,
} from './test-runner.js';
export {
  isTestPath,
  compareTestSources,
  testSourceStats,
  forbiddenSnippets,
  type TestWeakening,
  type TestSourceStats,
} from './test-source.js';
export {
  writeFailingTests,
  type WriteFailingTestsOptions,
  type WriteFailingTestsResult,
  type TestLayout,
  type WrittenTest,
  type TestsWrittenData,
} from './test-writer.js';
export { implementFix, type ImplementFixOptions, type ImplementFixResult } from './implementer.js';
export { type LintWarning, type WarningLister, warningsByFile, describeWarnings } from './lint-warnings.js';
export {
  verifyFix,
  VERIFY_REFUSALS,
  type VerifyRefusal,
  type VerifyReason,
  type VerifyFixOptions,
  type FixVerdict,
} from './verifier.js';
