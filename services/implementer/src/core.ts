// The implementer's working core, without the NestJS/bus wiring: main.ts and the handlers import from here.
export { type ImplementerEnv } from './deps.js';
export {
  IMPLEMENTER_ERROR_CODES,
  BranchCheckedOutError,
  StrategyFailedError,
  AbortedError,
  RecordInvalidError,
} from './errors.js';
export {
  branchFor,
  worktreeDirFor,
  ensureWorktree,
  resetWorktree,
  removeWorktree,
  type WorktreeSpec,
  type Worktree,
  type RemoveWorktreeSpec,
} from './git/worktree.js';
export { baselineRecordRef, fixRecordRef } from './git/records.js';
export { runTests, type RunTestsOptions, type TestRunResult } from './test-run/test-runner.js';
export {
  TEST_RUNNERS,
  COMMAND_FAILED,
  parseTestOutput,
  countWarnings,
  diffTestResults,
  type TestRunner,
  type ParsedTestOutput,
  type ParseOptions,
} from './test-run/test-output.js';
export {
  recordBaseline,
  exitCodeOf,
  type RecordBaselineInput,
  type BaselineRecordedData,
} from './baseline/baseline.js';
export {
  applyFix,
  fixedFiles,
  TRAILERS,
  type FixRequestedData,
  type FixAppliedData,
  type FixCycleDeps,
} from './fix/fix-cycle.js';
export { type FixStrategy, type FixContext, type FixOutcome, type StrategyResolver } from './strategies/strategy.js';
export { createAutofixStrategy, DEFAULT_ESLINT_CONFIG } from './strategies/autofix.js';
export { createCommandStrategy, type CommandStrategyOptions } from './strategies/command.js';
export { builtInStrategies, type BuiltInStrategyOptions } from './strategies/resolve.js';
