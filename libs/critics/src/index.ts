// The deterministic critic panel: critic plumbing, the built-in critics, incremental review and SARIF.
export type { CriticContext, CriticDefinition, FindingDraft } from './critic.js';
export {
  CriticNotRunnableError,
  CriticTimedOutError,
  CriticCancelledError,
  CriticOutputInvalidError,
  ReviewTargetNotFoundError,
  ReviewGitError,
  RepoConfigError,
  BaselineError,
} from './errors.js';
export { finalizeFindings, type FileReader } from './plumbing/finalize.js';
export {
  runCritic,
  createCriticContext,
  type PreparedContext,
  type CriticRunResult,
  type CriticFailureReason,
  type RunCriticOptions,
  type RunCriticContext,
} from './plumbing/run-critic.js';
export { defineCritic, draftFinding, findingTypeToken, type DraftInput } from './plumbing/define.js';
export {
  builtInCritics,
  BUILT_IN_CRITIC_IDS,
  CORE_CRITIC_IDS,
  type BuiltInCriticId,
  type BuiltInCriticOptions,
} from './registry.js';
export { compilerLinterCritic, type CompilerLinterOptions } from './critics/compiler-linter.js';
export { duplicateCodeCritic } from './duplicates/critic.js';
export { sastScannerCritic, inputValidationCritic, detectLibrary, type LibraryMode } from './sast/critics.js';
export { secretsDetectorCritic, scanForSecrets, shannonEntropy } from './critics/secrets.js';
export {
  dependencyAuditCritic,
  auditFindings,
  AuditReport,
  AUDIT_REMEDY,
  type DependencyAuditOptions,
} from './critics/dependency-audit.js';
export { AdvisoryDatabase, AdvisoriesUnavailableError, type ExportSummary } from './advisories/database.js';
export {
  updateAdvisories,
  ecosystemNamed,
  AdvisoriesDownloadError,
  OSV_EXPORT_BASE_URL,
  type UpdateAdvisoriesOptions,
  type UpdateAdvisoriesResult,
} from './advisories/download.js';
export { ECOSYSTEMS, type Ecosystem } from './advisories/versions.js';
export {
  toolchainCritics,
  toolchainLanguages,
  TOOLCHAIN_CRITIC_IDS,
  type ToolchainCriticId,
  type ToolchainOptions,
} from './toolchains/table.js';
export { toolchainCritic, type ToolchainLanguage, type ToolDiagnostic, type ToolLevel } from './toolchains/family.js';
export {
  complexityCritic,
  complexityThresholds,
  DEFAULT_COMPLEXITY_THRESHOLDS,
  type ComplexityThresholds,
} from './quality/complexity.js';
export { measureFunctions, type FunctionComplexity } from './quality/complexity-metrics.js';
export { testCoverageCritic, type CoverageSource, type TestCoverageCriticOptions } from './test-coverage/critic.js';
export {
  readCoverageReport,
  v8Lines,
  istanbulLines,
  lineRanges,
  CoverageReportError,
  type TestCoverage,
  type FileLineCoverage,
  type V8ScriptCoverage,
} from './test-coverage/report.js';
export {
  dependencyEolCritic,
  findEolDependencies,
  loadEolData,
  minimumMajor,
  type DependencyEolOptions,
  type EolHit,
} from './critics/dependency-eol.js';
export { databaseReviewerCritic } from './critics/database/database-reviewer.js';
export {
  createSarifCritic,
  letterToSarif,
  sarifToDrafts,
  SarifLog,
  SARIF_LEVEL_SEVERITY,
  RLOOP_INFORMATION_URI,
  type SarifCriticOptions,
  type LetterToSarifOptions,
} from './sarif/sarif.js';
export { describeRule, type RuleDescription } from './sarif/rules.js';
export {
  reviewRepository,
  reviewRepositoryWithRuns,
  SUPPRESSIONS_CRITIC,
  type ReviewOptions,
  type ReviewOutcome,
} from './review/review.js';
export {
  loadRepoConfig,
  parseRepoConfig,
  criticSwitchedOff,
  REPO_CONFIG_FILE,
  REPO_IGNORE_FILE,
  type LoadedRepoConfig,
} from './review/repo-config.js';
export {
  selectByGlobs,
  excludeFiles,
  type ExcludedFile,
  type ExcludeGlobs,
  type ExcludeOptions,
} from './review/file-selection.js';
export {
  findDirectives,
  applyInlineSuppressions,
  targetMatches,
  type SuppressionDirective,
  type DirectiveProblem,
  type InlineSuppressionResult,
} from './review/suppressions.js';
export {
  RepoPolicy,
  TRUSTED_REPO_POLICY,
  applyRepoRules,
  repoExcludes,
  repoCriticsOff,
  ruleLevelFor,
  type RepoRulesInput,
  type RepoRulesResult,
} from './review/policy.js';
export { baselineText, readBaseline, applyBaseline } from './review/baseline.js';
export { prepareRepoReview, type RepoRoundReview, type RepoAppliedReport } from './review/fleet-policy.js';
export { RULE_PREFIX_OWNERS, ownerOfTarget } from './review/rule-owners.js';
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
