import { z } from 'zod';
import { type Category, Finding, Fingerprint, Phase, type Severity } from './finding.js';
import { CriticCoverage, Letter, SeverityCounts } from './letter.js';
import { PlanImplementer, PlanSpec } from './plan.js';
import { Count, CriticId, EventId, GitSha, PlanKey, PositiveInt, RepoPath, Timestamp } from './primitives.js';
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

function defineEvent<const T extends string, const V extends number, D extends z.ZodType>(
  type: T,
  version: V,
  data: D,
) {
  return EnvelopeBase.extend({ type: z.literal(type), schema_version: z.literal(version), data });
}

export * from './event-parts.js';
import { LoopState } from './loop-state.js';
import {
  Gating,
  ScopeHolder,
  TestsResult,
  DispatchedCritic,
  LeftOutCritic,
  PanelComposition,
  CriticFailureReason,
  FixedFile,
  DiffStats,
  RecordedCoverage,
  Heuristic,
  EscalationReason,
  StuckReport,
} from './event-parts.js';

// ── Events ──────────────────────────────────────────────────────────────────────────────────

export const PlanSubmitted = defineEvent(
  'PlanSubmitted',
  1,
  z.object({ plan: PlanSpec, submission_id: z.string().min(1).max(128) }),
);

export const PlanRejected = defineEvent(
  'PlanRejected',
  1,
  z.object({
    submission_id: z.string().max(128).optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).min(1),
  }),
);

export const LoopGated = defineEvent('LoopGated', 1, Gating);

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
    /**
     * The repository's URL when the plan gave one (git over https, ssh or git://, or a file URL on a
     * one-host fleet): every worker fetches what it needs from here into a cache of its own, and the
     * implementer pushes the plan's branch here. Absent for a plan given by local path (then
     * `repo_path` is read and written in place, so the fleet must share that disk).
     */
    repo_url: z.string().min(1).optional(),
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
    /**
     * The repository's URL when the plan gave one (git over https, ssh or git://, or a file URL on a
     * one-host fleet): every worker fetches what it needs from here into a cache of its own, and the
     * implementer pushes the plan's branch here. Absent for a plan given by local path (then
     * `repo_path` is read and written in place, so the fleet must share that disk).
     */
    repo_url: z.string().min(1).optional(),
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

export const LoopStopped = defineEvent(
  'LoopStopped',
  1,
  z.object({ note: z.string().max(4000).optional(), by: z.string().max(200) }),
);

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
    events: z.array(
      z.object({
        event_id: EventId,
        type: z.string(),
        stream_position: PositiveInt,
        global_position: z.string().regex(/^\d+$/),
      }),
    ),
    /**
     * Decisions refused in this commit: deciders decide again on the state announced here (an
     * announcement may carry refusals only).
     */
    refused: z.array(RefusedDecision).default([]),
    /**
     * The plan's loop state as committed with these events (what `journal.loop_state` would answer),
     * so a decider can act without asking; absent when the journal did not fold it.
     */
    loop_state: LoopState.optional(),
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

/**
 * Every event, written once, by the channel it travels on. The catalogue, the union, the type
 * list and the subject tokens are derived from this (a new event is added here and nowhere else).
 */
const EVENTS_BY_CHANNEL = {
  events: [
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
  ],
  critics: [CriticRegistered, CriticHeartbeat],
  commits: [JournalCommitted],
} as const satisfies Record<Channel, readonly z.ZodObject[]>;

type EventSchema = (typeof EVENTS_BY_CHANNEL)[Channel][number];
type TypeOfSchema<S extends EventSchema> = z.infer<S>['type'];
type ChannelOfSchema<S extends EventSchema> = {
  [C in Channel]: S extends (typeof EVENTS_BY_CHANNEL)[C][number] ? C : never;
}[Channel];

/** Every event: its schema, its subject token and its channel. */
export type EventCatalogue = {
  readonly [S in EventSchema as TypeOfSchema<S>]: {
    readonly schema: S;
    readonly token: string;
    readonly channel: ChannelOfSchema<S>;
  };
};

/** The subject token of an event type: its name in snake case (`PlanSubmitted` → `plan_submitted`). */
export function eventToken(type: string): string {
  return type.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
}

export const EVENT_CATALOGUE: EventCatalogue = Object.fromEntries(
  CHANNELS.flatMap((channel) =>
    EVENTS_BY_CHANNEL[channel].map((schema: EventSchema) => [
      schema.shape.type.value,
      { schema, token: eventToken(schema.shape.type.value), channel },
    ]),
  ),
) as EventCatalogue;

export type EventType = keyof EventCatalogue;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

export const RloopEvent = z.discriminatedUnion('type', [
  ...EVENTS_BY_CHANNEL.events,
  ...EVENTS_BY_CHANNEL.critics,
  ...EVENTS_BY_CHANNEL.commits,
]);
export type RloopEvent = z.infer<typeof RloopEvent>;
export type EventOf<T extends EventType> = Extract<RloopEvent, { type: T }>;
export type DataOf<T extends EventType> = EventOf<T>['data'];

/** Events written to the journal (everything on the `events` channel). */
export type JournaledEvent = Extract<
  RloopEvent,
  { type: { [K in EventType]: (typeof EVENT_CATALOGUE)[K]['channel'] extends 'events' ? K : never }[EventType] }
>;

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
