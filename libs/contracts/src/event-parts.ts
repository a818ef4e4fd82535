import { z } from 'zod';
import { Category, Fingerprint, LineRange, Phase, Severity } from './finding.js';
import { Count, CriticId, EventId, GitSha, PositiveInt, RepoPath, Slug } from './primitives.js';

// The pieces events (and the loop state) are made of.

export const TestsResult = z
  .object({
    added: Count,
    passed: Count,
    failed: Count,
    total: Count,
    /** Tests failing now that passed at the baseline. */
    regressions: Count,
    /** Compiler/linter warnings in the test run's output. */
    warnings: Count,
  })
  .meta({ id: 'TestsResult' });
export type TestsResult = z.infer<typeof TestsResult>;

export const GATE_VERDICTS = ['run', 'single_pass', 'bypass'] as const;
export const GateVerdict = z.enum(GATE_VERDICTS);
export type GateVerdict = z.infer<typeof GateVerdict>;

export const GateRuleHit = z.object({
  rule: z.enum(['effort_level', 'risk_surface', 'escape_phrase']),
  detail: z.string().max(1000),
  /** For risk-surface hits: which file matched which trigger glob of which category. */
  file: RepoPath.optional(),
  glob: z.string().optional(),
  category: z.string().optional(),
});
export type GateRuleHit = z.infer<typeof GateRuleHit>;

export const DispatchedCritic = z.object({
  critic_id: CriticId,
  /** The kind of evidence it brings: toolchain, ast, dataflow, pattern, llm, sarif, … */
  evidence: z.string().min(1).max(64),
  core: z.boolean(),
  /** Why it is on the panel: `core`, or the trigger glob that selected it. */
  reason: z.string().max(500),
  timeout_ms: PositiveInt,
});
export type DispatchedCritic = z.infer<typeof DispatchedCritic>;

export const LeftOutCritic = z.object({ critic_id: CriticId, reason: z.string().max(500) });
export type LeftOutCritic = z.infer<typeof LeftOutCritic>;

export const PanelComposition = z.object({
  critics: z.array(CriticId),
  not_configured: z.array(LeftOutCritic),
});

export const CRITIC_FAILURE_REASONS = [
  'crashed',
  'timed_out',
  'unavailable',
  'not_runnable',
  'unauthorised',
  'invalid_output',
  'rate_limited',
  'no_files_analysed',
] as const;
export type CriticFailureReason = (typeof CRITIC_FAILURE_REASONS)[number];
/**
 * Failures of what a critic needs rather than of its review (its tool cannot run, its credentials
 * are refused, its host is gone): running the round again does not help until someone fixes it.
 */
export const INFRASTRUCTURE_FAILURE_REASONS: readonly CriticFailureReason[] = [
  'not_runnable',
  'unauthorised',
  'unavailable',
];
export const CriticFailureReason = z.enum(CRITIC_FAILURE_REASONS);

export const FixedFile = z.object({
  file: RepoPath,
  fixed_findings: z.array(z.string()),
  lines_changed: Count,
  /** Changed line ranges in the new version of the file, for fix-attempt identity. */
  hunks: z.array(LineRange).default([]),
});
export type FixedFile = z.infer<typeof FixedFile>;

export const DiffStats = z.object({ files_changed: Count, insertions: Count, deletions: Count });

/** At most this many files are listed in RecordedCoverage (the rest is counted as truncated). */
export const MAX_COVERAGE_FILES = 2000;

/**
 * What the plan's test run executed, recorded by the implementer with the run (V8 coverage of the
 * Node.js processes the test command started): per file of the worktree it loaded, how many lines
 * hold code and which of them never ran. A file absent was never loaded. The quality/test-coverage
 * critic reads it for the commit the run tested.
 */
export const RecordedCoverage = z
  .object({
    format: z.enum(['v8', 'istanbul']),
    files: z
      .array(
        z.object({
          file: RepoPath,
          executable: Count,
          /** Lines never run. */
          uncovered: z.array(LineRange).max(1000),
        }),
      )
      .max(MAX_COVERAGE_FILES),
    /** More files were loaded than listed. */
    truncated: z.boolean().default(false),
  })
  .meta({ id: 'RecordedCoverage' });
export type RecordedCoverage = z.infer<typeof RecordedCoverage>;

export const HEURISTICS = [
  'persistent_issue',
  'oscillation',
  'implementer_wall',
  'critic_disagreement',
  'flat_trend',
  'stall',
] as const;
export const Heuristic = z.enum(HEURISTICS);
export type Heuristic = z.infer<typeof Heuristic>;

/** `implementer_failed`: a requested fix could not be served (its branch held elsewhere, the repository unreachable) within RLOOP_FIX_DEADLINE_MS. */
export const ESCALATION_REASONS = ['soft_cap', 'heuristic', 'budget', 'critic_failures', 'implementer_failed'] as const;
export const EscalationReason = z.enum(ESCALATION_REASONS);

/** A finding's story across rounds, for people deciding what to do with a stuck loop. */
export const FindingTimeline = z.object({
  fingerprint: Fingerprint,
  title: z.string(),
  file: RepoPath,
  line_range: LineRange,
  severity: Severity,
  category: Category,
  raised_by: z.array(CriticId),
  rounds: z.array(z.object({ round: PositiveInt, present: z.boolean() })),
  attempts: z.array(
    z.object({
      round: PositiveInt,
      commit: GitSha.nullable(),
      lines_changed: Count,
      diff: z.string().max(20_000).optional(),
    }),
  ),
});
export type FindingTimeline = z.infer<typeof FindingTimeline>;

/** What an escalation hands to people: enough to decide without opening anything else. */
/** One side of a critic disagreement, as people need it to decide. */
export const DisagreementSide = z.object({
  critic_id: CriticId,
  finding_type: z.string().max(200),
  fingerprint: Fingerprint,
  file: RepoPath,
  line_range: LineRange,
  title: z.string().max(300),
  expected_behaviour: z.string().max(4000),
});
export type DisagreementSide = z.infer<typeof DisagreementSide>;

export const StuckReport = z
  .object({
    plan: Slug,
    run_id: EventId,
    phase: Phase,
    round: PositiveInt,
    trigger: z.object({ kind: EscalationReason, heuristic: Heuristic.optional(), detail: z.string().max(4000) }),
    findings: z.array(FindingTimeline),
    /** For a critic disagreement: both asks, side by side (never settled by priority rules). */
    disagreement: z.array(DisagreementSide).max(10).optional(),
    recommended_action: z.string().max(4000),
    branch: z.string().optional(),
    commit: GitSha.optional(),
  })
  .meta({ id: 'StuckReport' });
export type StuckReport = z.infer<typeof StuckReport>;

/** What the gate decided a plan runs with (LoopGated's data; a LoopQueued carries it until the plan runs). */
export const Gating = z.object({
  verdict: GateVerdict,
  rules: z.array(GateRuleHit),
  /** The plan's ref resolved to a commit: every round reviews from here. */
  commit: GitSha,
  /** The plan's globs resolved against that commit. */
  files: z.array(RepoPath),
  /** Where the gate read the repository: the user's repository (a local plan), or the gate's own clone of `repo_url`. */
  repo_path: z.string().min(1),
  /**
   * The repository's URL when the plan gave one (git over https, ssh or git://, or a file URL on a
   * one-host fleet): every worker fetches what it needs from here into a cache of its own, and the
   * implementer pushes the plan's branch here. Absent for a plan given by local path (then
   * `repo_path` is read and written in place, so the fleet must share that disk).
   */
  repo_url: z.string().min(1).optional(),
  /** The plan's test command: the implementer runs it for the baseline before round 1. */
  test_cmd: z.string().min(1),
});
export type Gating = z.infer<typeof Gating>;

/** A run that holds (or waits for) files a queued plan overlaps, with the files they share. */
export const ScopeHolder = z
  .object({ plan: Slug, run_id: EventId, files: z.array(RepoPath).min(1) })
  .meta({ id: 'ScopeHolder' });
export type ScopeHolder = z.infer<typeof ScopeHolder>;
