// The deterministic critic panel: critic plumbing, the built-in critics, incremental review and SARIF.
export type { CriticContext, CriticDefinition, FindingDraft } from './critic.js';
export { CriticNotRunnableError, CriticTimedOutError, CriticCancelledError, CriticOutputInvalidError, ReviewTargetNotFoundError, ReviewGitError } from './errors.js';
export { finalizeFindings, type FileReader } from './plumbing/finalize.js';
export { runCritic, createCriticContext, type PreparedContext, type CriticRunResult, type CriticFailureReason, type RunCriticOptions, type RunCriticContext } from './plumbing/run-critic.js';
export { defineCritic, draftFinding, findingTypeToken, type DraftInput } from './plumbing/define.js';
export { builtInCritics, BUILT_IN_CRITIC_IDS, CORE_CRITIC_IDS, type BuiltInCriticId, type BuiltInCriticOptions } from './registry.js';
export { compilerLinterCritic, type CompilerLinterOptions } from './critics/compiler-linter.js';
export { duplicateCodeCritic } from './duplicates/critic.js';
export { sastScannerCritic, inputValidationCritic, detectLibrary, type LibraryMode } from './sast/critics.js';
export { secretsDetectorCritic, scanForSecrets, shannonEntropy } from './critics/secrets.js';
export { dependencyAuditCritic, auditFindings, AuditReport, type DependencyAuditOptions } from './critics/dependency-audit.js';
export { dependencyEolCritic, findEolDependencies, loadEolData, minimumMajor, type DependencyEolOptions, type EolHit } from './critics/dependency-eol.js';
export { databaseReviewerCritic } from './critics/database-reviewer.js';
export { createSarifCritic, letterToSarif, sarifToDrafts, SarifLog, SARIF_LEVEL_SEVERITY, type SarifCriticOptions, type LetterToSarifOptions } from './sarif/sarif.js';
export { reviewRepository, reviewRepositoryWithRuns, type ReviewOptions, type ReviewOutcome } from './review/review.js';
export { parseUnifiedDiff, changedLinesSince, touchesChange, type ChangedLines } from './review/diff.js';
export { AnalysisCache } from './repo/cache.js';
export { type CoverageRecorder } from './plumbing/coverage.js';
export { CheckoutBoundary, RepoReader, DEFAULT_MAX_FILE_BYTES, type FileOutcome } from './repo/checkout.js';
export { listCheckoutFiles, listDirectoryFiles, isBinaryByName, type DirectoryListing } from './repo/files.js';
export {
  runCodemods,
  classifyDeprecationAt,
  removeUnusedModuleBindings,
  type CodemodResult,
  type AppliedRewrite,
  type SkippedRewrite,
  type AutofixVerdict,
} from './codemods/engine.js';
export { CODEMOD_IDS, NO_REWRITE, type CodemodId } from './codemods/rewrites.js';
