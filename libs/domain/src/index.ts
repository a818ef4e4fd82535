// Pure rules of the refinement loop: no clock, no ids from thin air, no I/O.
export {
  fingerprintOf,
  locationHashOf,
  isSameIssue,
  FUZZY_LINE_WINDOW,
  type FingerprintInput,
} from './identity/fingerprint.js';
export { deterministicId } from './identity/ids.js';
export { nextPhase, phaseIncludes } from './phases/phases.js';
export { compareFindings, rankFindings } from './synthesis/ranking.js';
export { synthesizeLetter, type CriticReport, type SynthesisInput } from './synthesis/synthesize.js';
export {
  findDisagreements,
  isKnownConflict,
  DEFAULT_KNOWN_CONFLICTS,
  CONFLICT_ASK_TYPES,
  type KnownConflict,
} from './synthesis/disagreements.js';
export { decideRoundClosure, openRound, type RoundClosure } from './round/round-closure.js';
export { withTimelines } from './escalation/timelines.js';
export { roundReports } from './round/round-reports.js';
export { isFirstAnswer } from './round/answers.js';
export {
  coverageGaps,
  describeCoverage,
  describeSkip,
  isCoverageGap,
  orderSkips,
  roundCoverageGaps,
  type CoverageGap,
} from './synthesis/coverage.js';
export { renderLetterMarkdown } from './letter/markdown.js';
export { RefinementTriggers } from './config/triggers.js';
export { CriticCatalogue, CriticEntry, DynamicTrigger } from './config/catalogue.js';
export { decideGate, type GateInput, type GateDecision } from './gate/gate.js';
export { checkPlanFilePatterns, resolvePlanFiles, type ResolvedPlanFiles } from './gate/plan-files.js';
export { selectPanel, type CriticAvailability, type PanelSelection } from './panel/select-panel.js';
export {
  LOOP_STATUSES,
  TERMINAL_STATUSES,
  initialLoopState,
  evolveLoop,
  type LoopStatus,
  type LoopState,
  type RoundRecord,
  type RoundLetter,
  type FindingSummary,
  type PendingDetection,
  type BestRound,
  type DisagreementSide,
  type CriticFailure,
  type StateChange,
  noteDetection,
  disagreementOf,
  isWorseThanBest,
} from './loop/state.js';
export { admitDecision, DECISION_TYPES, type Admission } from './loop/admission.js';
export {
  decideScopeLock,
  repositoryKey,
  scopeLockEvents,
  scopeConflictMessage,
  sameHolders,
  type Gating,
  type ScopeLockOutcome,
  SCOPE_LOCK_MODES,
  MAX_NAMED_OVERLAP,
  type ScopeLockMode,
  type OpenRun,
  type ScopeCandidate,
  type ScopeDecision,
} from './scope/scope-lock.js';
export { decideNext, needsLetter, type PanelContext } from './loop/decide.js';
export {
  decideEscalation,
  escalationEvent,
  budgetTrigger,
  detectionIsLive,
  capFor,
  repeatedInfrastructureFailure,
  type Escalation,
  type EscalationContext,
  type RepeatedFailure,
} from './escalation/decide-escalation.js';
export { retryBackoffMs, type RetryBackoff } from './loop/retry.js';
export {
  decideUnservedFix,
  DEFAULT_UNSERVED_FIX_POLICY,
  type UnservedFixPolicy,
  type UnservedFixDecision,
  type UnservedFixAttempt,
} from './loop/unserved-fix.js';
export { baselineWork, roundWork, fixWork, fixRequestData, type BaselineWork, type RoundWork } from './loop/work.js';
export { decisionEvent, stampDecision, type DecisionMeta } from './loop/envelope.js';
export {
  chooseHandoffRound,
  reviewedRounds,
  describeOpen,
  openByRank,
  handoffWork,
  type ReviewedRound,
  type HandoffChoice,
  type HandoffWork,
} from './loop/handoff.js';
export {
  buildStuckReport,
  infrastructureAction,
  renderStuckReportMarkdown,
  type StuckTrigger,
} from './escalation/report.js';
export { journalDocument, type JournalDocument, type JournalRound } from './journal/journal-document.js';
export { LoopConfig, DEFAULT_LOOP_CONFIG, type LoopConfigInput } from './heuristics/config.js';
export {
  evolveMemory,
  initialLoopMemory,
  type LoopMemory,
  type MemoryStep,
  type Tracker,
  type FixAttempt,
  type FindingRef,
  type Segment,
  type PresenceState,
  type LoopDetection,
  type LearningDelta,
  type RoundHistoryRow,
  type RunSummaryRow,
  type Histogram,
} from './heuristics/memory.js';
// The stuck-loop heuristics, one file each (each with its given/when/then spec).
export { persistentIssues, persistentIssue } from './heuristics/persistent-issue.js';
export { implementerWalls, implementerWall } from './heuristics/implementer-wall.js';
export { oscillations, oscillation } from './heuristics/oscillation.js';
export {
  repeatedDisagreements,
  criticDisagreement,
  type RepeatedDisagreements,
} from './heuristics/critic-disagreement.js';
export { flatTrend, flatTrendFiring } from './heuristics/flat-trend.js';
export { stall, countStall, type StallCount } from './heuristics/stall.js';
export type { Firing } from './heuristics/firing.js';
export { topScoreAverage, slope, keyMomentOf, isInfraFailure } from './heuristics/trend.js';
export { loopDetectedEvent } from './heuristics/detection.js';
export { detectLoop, type RunEntry, type DetectionCheckpoint, type Detected } from './heuristics/detect-loop.js';
export { findingTimelines, patchOfFile, type TimelineDraft } from './heuristics/timelines.js';
export {
  calibrate,
  type CalibrationReport,
  type Spread,
  type ThresholdAdvice,
  type HeuristicStats,
} from './heuristics/calibrate.js';
export {
  buildLoopReport,
  reportSummaryLine,
  KEY_DROP,
  type LoopReport,
  type ReportOutcome,
  type ReportRound,
  type ReportCritic,
  type ReportFix,
  type KeyMoment,
  type FixedFinding,
  type OpenFinding,
  type ReportLearning,
  type ReportHandoff,
  describeHandoff,
} from './report/loop-report.js';
export { renderReportMarkdown, renderReportHtml, sparkline, escapeHtml } from './report/render.js';
export { scanForSecrets, shannonEntropy, type SecretHit } from './secrets/detector.js';
export { maskSecrets, maskSecretsDeep, REDACTED } from './secrets/mask.js';
export { escapeControlChars, oneLine, mdText, mdCell, mdCode, mdFence } from './text/escape.js';
export {
  TrustConfig,
  TRUST_CONFIG_FILE,
  URL_SCHEMES,
  type UrlScheme,
  type PlanCommands,
  type PlanAgentChoice,
  AgentsTrust,
  type AgentTrust,
  type CredentialSource,
  isCommandAllowed,
  commandIssues,
  agentIssues,
  notAllowedMessage,
  isServiceSecretName,
} from './config/trust.js';
