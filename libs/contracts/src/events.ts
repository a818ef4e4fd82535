import { z } from 'zod';
import { Category, Finding, Fingerprint, LineRange, Phase, Severity } from './finding.js';
import { CriticCoverage, Letter, SeverityCounts } from './letter.js';
import { PlanImplementer, PlanSpec } from './plan.js';
import { Count, CriticId, EventId, GitSha, PlanKey, PositiveInt, RepoPath, Slug, Timestamp } from './primitives.js';
import { RepoConfigEffect, Suppression } from './review.js';

// ── Envelope ────────────────────────────────────────────────────────────────────────────────

/** Fields every event carries; `data` and the literal `type` come from each event's definition. */
export const EnvelopeBase = z.object({
  event_id: EventId,
  schema_version: PositiveInt,
  plan: PlanKey,
  /** The loop run this event belongs to: the event_id of its PlanSubmitted. */
  correlation_id: EventId,
  /** The event that caused this one; null for events that start something. */
  causation_id: EventId.nullable(),
  occurred_at: Timestamp,
  /** Service and instance that produced the event, e.g. `panel@host:1234`. */
  producer: z.string().min(1).max(200),
  /**
   * Set on decisions, absent on facts (see docs/architecture.md): the version of the run's
   * journal stream the decision was made on, and the decision it belongs to (the id of the
   * decision's first event; the events of one decision share it). The journal appends a decision
   * only if nothing that changes the run's state was appended since that version, other than
   * earlier events of the same decision.
   */
  decision: z.object({ expected_version: z.int().min(0), id: z.string().regex(/^[0-9A-Za-z_-]{10,64}$/) }).optional(),
});
export type EnvelopeBase = z.infer<typeof EnvelopeBase>;
/** The `decision` field of an envelope. */
export type DecisionStamp = NonNullable<EnvelopeBase['decision']>;

function defineEvent<const T extends string, const V extends number, D extends z.ZodType>(type: T, version: V, data: D) {
  return EnvelopeBase.extend({ type: z.literal(type), schema_version: z.literal(version), data });
}

// ── Shared pieces ───────────────────────────────────────────────────────────────────────────

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

export const CRITIC_FAILURE_REASONS = ['crashed', 'timed_out', 'unavailable', 'not_runnable', 'unauthorised', 'invalid_output', 'rate_limited', 'no_files_analysed'] as const;
export type CriticFailureReason = (typeof CRITIC_FAILURE_REASONS)[number];
/**
 * Failures of what a critic needs rather than of its review (its tool cannot run, its credentials
 * are refused, its host is gone): running the round again does not help until someone fixes it.
 */
export const INFRASTRUCTURE_FAILURE_REASONS: readonly CriticFailureReason[] = ['not_runnable', 'unauthorised', 'unavailable'];
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

export const HEURISTICS = ['persistent_issue', 'oscillation', 'implementer_wall', 'critic_disagreement', 'flat_trend', 'stall'] as const;
export const Heuristic = z.enum(HEURISTICS);
export type Heuristic = z.infer<typeof Heuristic>;

export const ESCALATION_REASONS = ['soft_cap', 'heuristic', 'budget', 'critic_failures'] as const;
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
    z.object({ round: PositiveInt, commit: GitSha.nullable(), lines_changed: Count, diff: z.string().max(20_000).optional() }),
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

export const StuckReport = z.object({
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
}).meta({ id: 'StuckReport' });
export type StuckReport = z.infer<typeof StuckReport>;

// ── Events ──────────────────────────────────────────────────────────────────────────────────

export const PlanSubmitted = defineEvent('PlanSubmitted', 1, z.object({ plan: PlanSpec, submission_id: z.string().min(1).max(128) }));

export const PlanRejected = defineEvent(
  'PlanRejected',
  1,
  z.object({
    submission_id: z.string().max(128).optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).min(1),
  }),
);

/** What the gate decided a plan runs with (LoopGated's data; a LoopQueued carries it until the plan runs). */
const Gating = z.object({
  verdict: GateVerdict,
  rules: z.array(GateRuleHit),
  /** The plan's ref resolved to a commit: every round reviews from here. */
  commit: GitSha,
  /** The plan's globs resolved against that commit. */
  files: z.array(RepoPath),
  repo_path: z.string().min(1),
  /** The plan's test command: the implementer runs it for the baseline before round 1. */
  test_cmd: z.string().min(1),
});

export const LoopGated = defineEvent('LoopGated', 1, Gating);

/** A run that holds (or waits for) files a queued plan overlaps, with the files they share. */
export const ScopeHolder = z.object({ plan: Slug, run_id: EventId, files: z.array(RepoPath).min(1) }).meta({ id: 'ScopeHolder' });
export type ScopeHolder = z.infer<typeof ScopeHolder>;

/**
 * Scope locking (the gate's decision, docs/architecture.md): the plan overlaps runs admitted
 * before it on the same repository, so it waits; it is gated (LoopGated, with this same gating)
 * once every one of them has ended. A queued plan whose holders change is queued again, naming them.
 */
export const LoopQueued = defineEvent(
  'LoopQueued',
  1,
  Gating.extend({
    /** The runs admitted before this one that it waits for, oldest first. */
    waiting_for: z.array(ScopeHolder).min(1),
  }),
);

export const BaselineRecorded = defineEvent(
  'BaselineRecorded',
  1,
  z.object({
    commit: GitSha,
    branch: z.string().min(1),
    tests: TestsResult,
    exit_code: z.int(),
    /** Names of tests already failing before round 1: not regressions when they fail later. */
    failing: z.array(z.string()).max(1000),
    duration_ms: Count,
    /** What the test run executed at `commit`, when its processes wrote V8 coverage. */
    coverage: RecordedCoverage.optional(),
  }),
);

export const RoundStarted = defineEvent(
  'RoundStarted',
  1,
  z.object({
    round: PositiveInt,
    phase: Phase,
    /** 1 for the first round of this phase. */
    phase_round: PositiveInt,
    k: PositiveInt.nullable(),
    mode: z.enum(['loop', 'single_pass']),
    /** The commit under review, pinned for every critic of the round. */
    commit: GitSha,
    /** The commit the plan was gated at: the diff base for critics that review changes. */
    base_commit: GitSha,
    /** The repository on the fleet's machine (critics check the pinned commit out of it read-only). */
    repo_path: z.string().min(1),
    files: z.array(RepoPath),
    critics: z.array(DispatchedCritic),
    not_configured: z.array(LeftOutCritic),
    deadline_at: Timestamp,
    /**
     * Best-round retention: the previous round made things worse than the best round of the
     * phase, so this round reviews the best commit again (and the next fix starts from it).
     */
    retained_best: z
      .object({
        best_round: PositiveInt,
        best_commit: GitSha,
        worse_round: PositiveInt,
        worse_commit: GitSha,
        detail: z.string().max(1000),
      })
      .optional(),
  }),
);

export const FindingsReported = defineEvent(
  'FindingsReported',
  1,
  z.object({
    round: PositiveInt,
    critic_id: CriticId,
    commit: GitSha,
    /** Every finding the critic has for the commit (capped); the synthesizer keeps the phase's top-K. */
    findings: z.array(Finding).max(500),
    truncated: z.boolean().default(false),
    duration_ms: Count,
    /** What the critic covered of the round's files (absent from critics that do not say). */
    coverage: CriticCoverage.optional(),
    /** Findings the repository dismissed within the operator's policy (journaled, counted in the letter). */
    suppressed: z.array(Suppression).max(500).optional(),
    /** What the repository's .rloop.yaml and .rloopignore changed for this critic, when they were read. */
    repo_config: RepoConfigEffect.optional(),
  }),
);

export const CriticFailed = defineEvent(
  'CriticFailed',
  1,
  z.object({
    round: PositiveInt,
    critic_id: CriticId,
    core: z.boolean(),
    reason: CriticFailureReason,
    message: z.string().max(4000),
    duration_ms: Count.optional(),
    /** For `no_files_analysed`: what the critic covered, and why it analysed nothing. */
    coverage: CriticCoverage.optional(),
  }),
);

export const LetterWritten = defineEvent('LetterWritten', 1, z.object({ letter: Letter }));

/** The panel asks the implementer to fix a letter (a letter at the soft cap is escalated instead). */
export const FixRequested = defineEvent(
  'FixRequested',
  1,
  z.object({
    round: PositiveInt,
    /** Which fix attempt of the phase this is (1 for the phase's first round). */
    attempt: PositiveInt,
    letter: Letter,
    /** The commit the letter reviewed; the fix is made on top of it. */
    base_commit: GitSha,
    branch: z.string().min(1),
    repo_path: z.string().min(1),
    test_cmd: z.string().min(1),
    implementer: PlanImplementer,
    /** Tests that already failed at the baseline: not regressions. */
    baseline_failing: z.array(z.string()).max(1000),
  }),
);

export const TestsWritten = defineEvent(
  'TestsWritten',
  1,
  z.object({
    round: PositiveInt,
    letter_id: EventId,
    tests: z.array(z.object({ file: RepoPath, finding_ids: z.array(z.string()), name: z.string().max(500) })),
    /** Tests confirmed to fail before the fix (red). */
    red: z.array(z.string()),
    /** Tests that passed at once, so they cannot prove anything: reported, not kept. */
    passed_at_once: z.array(z.string()),
    /** Tests the test writer left with compiler or linter warnings (the loop counts a test's warnings too): reported, not kept. */
    not_clean: z.array(z.string()).optional(),
  }),
);

export const FixApplied = defineEvent(
  'FixApplied',
  1,
  z.object({
    round: PositiveInt,
    letter_id: EventId,
    strategy: z.string().min(1).max(64),
    outcome: z.enum(['committed', 'no_change', 'reverted', 'failed']),
    reason: z.string().max(4000).optional(),
    fixes_applied: z.array(FixedFile),
    tests_added: z.array(z.string()),
    tests_result: TestsResult,
    base_commit: GitSha,
    /** The commit that holds this round's fix; null when nothing was committed. */
    commit: GitSha.nullable(),
    diff_stats: DiffStats,
    duration_ms: Count,
    /**
     * The attempt as a unified diff (committed or reverted), cut to a bounded size, so stuck-issue
     * reports show what was tried without anyone running git on the repository.
     */
    patch: z.string().max(16_000).optional(),
    /** What the test run executed at `commit` (the committed fix), when its processes wrote V8 coverage. */
    coverage: RecordedCoverage.optional(),
  }),
);

export const PhaseAdvanced = defineEvent(
  'PhaseAdvanced',
  1,
  z.object({
    from: Phase,
    to: Phase,
    round: PositiveInt,
    reason: z.enum(['phase_clear', 'final_sweep_found_critical', 'resumed']),
  }),
);

export const LoopConverged = defineEvent(
  'LoopConverged',
  1,
  z.object({
    rounds: PositiveInt,
    letter_id: EventId,
    final_commit: GitSha,
    branch: z.string().min(1),
    panel: PanelComposition,
  }),
);

export const LoopBypassed = defineEvent(
  'LoopBypassed',
  1,
  z.object({
    verdict: z.enum(['single_pass', 'bypass']),
    round: PositiveInt,
    letter_id: EventId,
    counts: SeverityCounts,
    panel: PanelComposition,
  }),
);

export const LoopDetected = defineEvent(
  'LoopDetected',
  1,
  z.object({
    heuristic: Heuristic,
    round: PositiveInt,
    fingerprints: z.array(Fingerprint),
    critic_ids: z.array(CriticId),
    message: z.string().max(4000),
    evidence: z.record(z.string(), z.unknown()),
  }),
);

export const EscalationRaised = defineEvent(
  'EscalationRaised',
  1,
  z.object({
    escalation_id: EventId,
    reason: EscalationReason,
    phase: Phase,
    round: PositiveInt,
    report: StuckReport,
    /** The report rendered for people, so a pager or chat bot needs nothing else. */
    markdown: z.string().max(200_000),
  }),
);

export const LoopResumed = defineEvent(
  'LoopResumed',
  1,
  z.object({
    escalation_id: EventId,
    note: z.string().max(4000).optional(),
    /** Extra rounds granted to the current phase's soft cap. */
    raise_cap: Count.optional(),
    by: z.string().max(200),
  }),
);

export const LoopStopped = defineEvent('LoopStopped', 1, z.object({ note: z.string().max(4000).optional(), by: z.string().max(200) }));

/**
 * A fact from the implementer (issue 15 §4): after an escalation or a stop it left the plan's
 * branch at the commit of the run's best round — fewest open findings by severity, ties to the
 * latest — and kept the branch's last commit under `last_ref`.
 */
export const BranchHandedOff = defineEvent(
  'BranchHandedOff',
  1,
  z.object({
    /** The EscalationRaised (its escalation_id) or LoopStopped (its event id) this answers. */
    trigger: z.object({ kind: z.enum(['escalated', 'stopped']), event_id: EventId }),
    branch: z.string().min(1).max(300),
    /** The round whose commit the branch is left at; null when no round was completely reviewed (the branch stays at its last commit). */
    best_round: PositiveInt.nullable(),
    best_commit: GitSha,
    /** The best round's open findings, as its letter counted them (null with best_round). */
    counts: SeverityCounts.nullable(),
    /** The branch's commit before the handoff (its last work), kept at `last_ref`. */
    last_commit: GitSha,
    last_ref: z.string().min(1).max(300),
    /** False when the branch already was at the best commit. */
    moved: z.boolean(),
    /** Which round and why, for people. */
    reason: z.string().min(1).max(2000),
  }),
);

export const UsageRecorded = defineEvent(
  'UsageRecorded',
  1,
  z.object({
    round: PositiveInt.optional(),
    dispatch: z.string().min(1).max(64),
    model: z.string().min(1).max(128),
    input_tokens: Count,
    output_tokens: Count,
    cache_creation_input_tokens: Count,
    cache_read_input_tokens: Count,
    cost_usd: z.number().min(0),
  }),
);

export const CriticRegistered = defineEvent(
  'CriticRegistered',
  1,
  z.object({
    critic_id: CriticId,
    instance_id: z.string().min(1).max(128),
    evidence: z.string().min(1).max(64),
    description: z.string().max(2000),
    /** File globs that put the critic on a panel; empty for a critic that asks to be dispatched always. */
    triggers: z.array(z.string().max(500)),
    phases: z.array(Phase).min(1),
    timeout_ms: PositiveInt,
    heartbeat_interval_ms: PositiveInt,
    version: z.string().max(64),
  }),
);

export const CriticHeartbeat = defineEvent(
  'CriticHeartbeat',
  1,
  z.object({
    critic_id: CriticId,
    instance_id: z.string().min(1).max(128),
    status: z.enum(['healthy', 'degraded', 'draining']),
    in_flight: Count,
    uptime_ms: Count,
  }),
);

/** A decision the journal refused because the run's state changed since the version it was made on. */
export const RefusedDecision = z.object({
  event_id: EventId,
  type: z.string(),
  /** The version the decision was made on. */
  expected_version: Count,
  /** The run's version when it was refused. */
  actual_version: Count,
  /** `stale`: something that changes the run's state was appended since; `other_run`: the run is not the plan's current one; `concurrent`: the step was already decided otherwise. */
  reason: z.enum(['stale', 'other_run', 'concurrent', 'ahead']),
});
export type RefusedDecision = z.infer<typeof RefusedDecision>;

/** Published by the journal after a commit, so deciders act on what is durable, never on in-flight messages. */
export const JournalCommitted = defineEvent(
  'JournalCommitted',
  1,
  z.object({
    /** The run whose stream these positions are in (null for events outside any run). */
    run_id: EventId.nullable().default(null),
    stream_version: PositiveInt,
    events: z.array(z.object({ event_id: EventId, type: z.string(), stream_position: PositiveInt, global_position: z.string().regex(/^\d+$/) })),
    /**
     * Decisions refused in this commit: deciders decide again on the state announced here (an
     * announcement may carry refusals only).
     */
    refused: z.array(RefusedDecision).default([]),
    /**
     * The plan's loop state as committed with these events (what `journal.loop_state` would answer),
     * so a decider can act without asking; absent when the journal did not fold it.
     */
    loop_state: z.record(z.string(), z.unknown()).optional(),
    /** The letter committed with these events, if any (what `journal.letter` would answer for it). */
    letter: Letter.optional(),
  }),
);

// ── Catalogue ───────────────────────────────────────────────────────────────────────────────

/**
 * Where an event travels: `events` are journaled; `commits` are the journal's own announcements;
 * `critics` is the registry traffic (kept briefly, never journaled).
 */
export const CHANNELS = ['events', 'commits', 'critics'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Every event: its schema, its subject token and its channel. */
export const EVENT_CATALOGUE = {
  PlanSubmitted: { schema: PlanSubmitted, token: 'plan_submitted', channel: 'events' },
  PlanRejected: { schema: PlanRejected, token: 'plan_rejected', channel: 'events' },
  LoopGated: { schema: LoopGated, token: 'loop_gated', channel: 'events' },
  LoopQueued: { schema: LoopQueued, token: 'loop_queued', channel: 'events' },
  BaselineRecorded: { schema: BaselineRecorded, token: 'baseline_recorded', channel: 'events' },
  RoundStarted: { schema: RoundStarted, token: 'round_started', channel: 'events' },
  FindingsReported: { schema: FindingsReported, token: 'findings_reported', channel: 'events' },
  CriticFailed: { schema: CriticFailed, token: 'critic_failed', channel: 'events' },
  LetterWritten: { schema: LetterWritten, token: 'letter_written', channel: 'events' },
  FixRequested: { schema: FixRequested, token: 'fix_requested', channel: 'events' },
  TestsWritten: { schema: TestsWritten, token: 'tests_written', channel: 'events' },
  FixApplied: { schema: FixApplied, token: 'fix_applied', channel: 'events' },
  PhaseAdvanced: { schema: PhaseAdvanced, token: 'phase_advanced', channel: 'events' },
  LoopConverged: { schema: LoopConverged, token: 'loop_converged', channel: 'events' },
  LoopBypassed: { schema: LoopBypassed, token: 'loop_bypassed', channel: 'events' },
  LoopDetected: { schema: LoopDetected, token: 'loop_detected', channel: 'events' },
  EscalationRaised: { schema: EscalationRaised, token: 'escalation_raised', channel: 'events' },
  LoopResumed: { schema: LoopResumed, token: 'loop_resumed', channel: 'events' },
  LoopStopped: { schema: LoopStopped, token: 'loop_stopped', channel: 'events' },
  BranchHandedOff: { schema: BranchHandedOff, token: 'branch_handed_off', channel: 'events' },
  UsageRecorded: { schema: UsageRecorded, token: 'usage_recorded', channel: 'events' },
  CriticRegistered: { schema: CriticRegistered, token: 'critic_registered', channel: 'critics' },
  CriticHeartbeat: { schema: CriticHeartbeat, token: 'critic_heartbeat', channel: 'critics' },
  JournalCommitted: { schema: JournalCommitted, token: 'journal_committed', channel: 'commits' },
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

export const RloopEvent = z.discriminatedUnion('type', [
  PlanSubmitted,
  PlanRejected,
  LoopGated,
  LoopQueued,
  BaselineRecorded,
  RoundStarted,
  FindingsReported,
  CriticFailed,
  LetterWritten,
  FixRequested,
  TestsWritten,
  FixApplied,
  PhaseAdvanced,
  LoopConverged,
  LoopBypassed,
  LoopDetected,
  EscalationRaised,
  LoopResumed,
  LoopStopped,
  BranchHandedOff,
  UsageRecorded,
  CriticRegistered,
  CriticHeartbeat,
  JournalCommitted,
]);
export type RloopEvent = z.infer<typeof RloopEvent>;
export type EventOf<T extends EventType> = Extract<RloopEvent, { type: T }>;
export type DataOf<T extends EventType> = EventOf<T>['data'];

/** Events written to the journal (everything on the `events` channel). */
export type JournaledEvent = Extract<RloopEvent, { type: { [K in EventType]: (typeof EVENT_CATALOGUE)[K]['channel'] extends 'events' ? K : never }[EventType] }>;

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && Object.hasOwn(EVENT_CATALOGUE, value);
}

/** The current schema version of each event type (what producers write today). */
export function currentVersion<T extends EventType>(type: T): EventOf<T>['schema_version'] {
  return EVENT_CATALOGUE[type].schema.shape.schema_version.value;
}

export type { Finding, Letter, Severity, Phase, Category };

// ── Dead letters ────────────────────────────────────────────────────────────────────────────

export const DEAD_LETTER_REASONS = ['invalid_payload', 'handler_rejected', 'max_deliver'] as const;

/** What a consumer writes to `<ns>.v1.dead_letters.<consumer>` for a message it could not process. */
export const DeadLetter = z
  .object({
    consumer: z.string().min(1),
    stream: z.string().min(1),
    stream_sequence: Count,
    subject: z.string().min(1),
    deliveries: Count,
    reason: z.enum(DEAD_LETTER_REASONS),
    code: z.string().min(1),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).default([]),
    /** The original payload: UTF-8 text when it decodes, base64 otherwise. */
    payload: z.string(),
    payload_encoding: z.enum(['utf8', 'base64']),
    headers: z.record(z.string(), z.array(z.string())).default({}),
    failed_at: Timestamp,
  })
  .meta({ id: 'DeadLetter' });
export type DeadLetter = z.infer<typeof DeadLetter>;
