import { z } from 'zod';
import { FindingTimeline, Heuristic } from './events.js';
import { Phase } from './finding.js';
import { SeverityCounts } from './letter.js';
import { LoopState } from './loop-state.js';
import { EventId, Slug } from './primitives.js';

/**
 * Requests to the journal (core NATS request/reply on `<ns>.v1.journal.<operation>`) and their
 * replies. The journal is the only reader of the database; deciders and the CLI ask it.
 */

const StoredEventRef = z.object({
  /** Position in the plan's stream (1-based). */
  position: z.int().min(1),
  /** Global position (decimal string, bigint-safe). */
  global_position: z.string().regex(/^\d+$/),
  /** The event as published (validated against its contract when it is read back). */
  event: z.record(z.string(), z.unknown()),
});

const Histogram = z.record(z.string().regex(/^\d+$/), z.int().min(0));

/** One round of a run as the journal's round-history projection keeps it. */
const RoundHistoryEntry = z.object({
  run_id: EventId,
  round: z.int().min(1),
  phase: Phase,
  phase_round: z.int().min(1),
  started_at: z.string(),
  commit: z.string(),
  /** Outcome per dispatched critic (`reported`, or the CriticFailed reason). */
  critics: z.record(z.string(), z.string()),
  letter_id: EventId.nullable(),
  findings: z.int().min(0).nullable(),
  counts: SeverityCounts.nullable(),
  complete: z.boolean().nullable(),
  /** Average score (1-10) of the top findings the critics reported for the phase. */
  top_score_avg: z.number().nullable(),
  max_score: z.int().min(0).nullable(),
  /** A breakthrough: the letter's highest score dropped by more than the configured step. */
  key_moment: z.string().nullable(),
  /** Set when the round re-reviews the best commit after a round that made things worse. */
  retained_best: z
    .object({
      best_round: z.int().min(1),
      best_commit: z.string(),
      worse_round: z.int().min(1),
      worse_commit: z.string(),
    })
    .nullable(),
  fix: z
    .object({
      outcome: z.string(),
      commit: z.string().nullable(),
      lines_changed: z.int().min(0),
      infra_failure: z.boolean(),
    })
    .nullable(),
  detections: z.array(Heuristic),
});

/** A pattern seen across loops: a finding type of one critic, with how it went. */
const Learning = z.object({
  critic_id: z.string(),
  finding_type: z.string(),
  /** Distinct runs (loops) the pattern appeared in. */
  loops: z.int().min(0),
  rounds_seen: z.int().min(0),
  /** Times it went away after a fix attempt. */
  fixed: z.int().min(0),
  /** Times a loop-detection heuristic named it. */
  stuck: z.int().min(0),
  example_title: z.string(),
  last_seen_at: z.string(),
  recent_plans: z.array(z.string()),
});

/** What calibration needs from one run of one plan. */
const RunSummary = z.object({
  run_id: EventId,
  plan: Slug,
  started_at: z.string(),
  ended_at: z.string().nullable(),
  status: z.string(),
  rounds: z.int().min(0),
  /** Rounds each phase took until it came clean (phases that never cleared are absent). */
  phases_cleared: z.partialRecord(Phase, z.int().min(1)),
  /** Rounds used so far in each phase. */
  phase_rounds: z.partialRecord(Phase, z.int().min(0)),
  detections: z.array(z.object({ heuristic: Heuristic, round: z.int().min(1) })),
  escalations: z.array(z.object({ reason: z.string(), heuristic: Heuristic.nullable(), round: z.int().min(1) })),
  resumes: z.int().min(0),
  /** Consecutive rounds a finding was present before it went away, for findings that did. */
  fixed_after_rounds: Histogram,
  /** Distinct fix attempts a finding needed before it went away. */
  attempts_to_fix: Histogram,
  /** Times a finding came back after it had gone. */
  reappearances: Histogram,
  /** Line shift between rounds of findings matched as the same issue by the fuzzy rule. */
  line_drift: Histogram,
});

export const JOURNAL_QUERIES = {
  /** The plan's loop state (the folded projection the panel decides from) and its stream version. */
  loop_state: {
    request: z.object({ plan: Slug }),
    reply: z.object({ plan: Slug, version: z.int().min(0), state: LoopState.nullable() }),
  },
  /** Events of a plan: the current run (default), one run, every run, or from a position on. */
  events: {
    request: z.object({
      plan: Slug,
      scope: z.enum(['current_run', 'all']).default('current_run'),
      /** One run's events (its PlanSubmitted's id), whether or not it is the plan's current run; overrides `scope`. */
      run_id: EventId.optional(),
      from_position: z.int().min(1).optional(),
      limit: z.int().min(1).max(10_000).default(1_000),
    }),
    /** A page: when `next_position` is set, ask again from there for the rest (replies stay under NATS's payload limit). */
    reply: z.object({
      plan: Slug,
      version: z.int().min(0),
      events: z.array(StoredEventRef),
      next_position: z.int().min(1).nullable().default(null),
    }),
  },
  /** A letter by id. */
  letter: {
    request: z.object({ letter_id: EventId }),
    reply: z.object({ letter: z.record(z.string(), z.unknown()) }),
  },
  /** Whether an event id is in the journal (the gate's submission dedupe). */
  event: {
    request: z.object({ event_id: EventId }),
    reply: z.object({
      found: z.boolean(),
      plan: z.string().optional(),
      event: z.record(z.string(), z.unknown()).optional(),
    }),
  },
  /** One plan's status, or every plan's. */
  status: {
    request: z.object({ plan: Slug.optional() }),
    reply: z.object({
      plans: z.array(
        z.object({
          plan: Slug,
          run_id: EventId.nullable(),
          status: z.string(),
          phase: z.string().nullable(),
          round: z.int().min(0),
          updated_at: z.string().nullable(),
          outcome_event_id: EventId.nullable(),
          findings_open: z.int().min(0).nullable(),
          /** The latest letter's findings by severity (null before the first letter). */
          counts: SeverityCounts.nullable().default(null),
          /** When the run was gated (its start, for its age). */
          started_at: z.string().nullable().default(null),
          spend_usd: z.number().min(0).default(0),
          /** A queued run's holders: the plans it waits for (scope locking), empty otherwise. */
          waiting_for: z.array(Slug).default([]),
        }),
      ),
    }),
  },
  /**
   * Scope locking (the gate's input): every run that has not ended (converged, bypassed, rejected,
   * stopped) or waits for a person (escalated), in admission order — the journal's order of their
   * PlanSubmitted, (transaction id, global position) — with the scope each holds or waits for.
   */
  open_runs: {
    request: z.object({}),
    reply: z.object({
      runs: z.array(
        z.object({
          plan: Slug,
          run_id: EventId,
          status: z.string(),
          /** The repository and files of its LoopGated or LoopQueued; null while it is not gated yet. */
          scope: z
            .object({ repo_path: z.string(), repo_url: z.string().optional(), files: z.array(z.string()) })
            .nullable(),
          /**
           * Whether every run submitted before it is in this list or has ended: its PlanSubmitted
           * lies below the journal's read horizon (no older transaction is still running).
           */
          settled: z.boolean(),
        }),
      ),
    }),
  },
  /** Escalations, newest first; `open` limits them to loops still waiting for a person. */
  escalations: {
    request: z.object({
      open: z.boolean().default(false),
      plan: Slug.optional(),
      limit: z.int().min(1).max(1000).default(100),
    }),
    reply: z.object({
      escalations: z.array(z.object({ plan: Slug, open: z.boolean(), event: z.record(z.string(), z.unknown()) })),
    }),
  },
  /**
   * LLM spend from the journal's UsageRecorded events, for budget checks before a dispatch: the
   * plan's (every run, and the given run), and every plan's on one UTC day (the caller's "today").
   */
  spend: {
    request: z.object({ plan: Slug, run_id: EventId.optional(), day: z.iso.date() }),
    reply: z.object({
      plan: Slug,
      plan_usd: z.number().min(0),
      /** Null when no run_id was asked for. */
      run_usd: z.number().min(0).nullable(),
      day: z.iso.date(),
      day_usd: z.number().min(0),
    }),
  },
  /** Per-finding timelines of the plan's current run (the given fingerprints, or every tracked finding). */
  timelines: {
    request: z.object({
      plan: Slug,
      fingerprints: z.array(z.string().max(64)).max(200).optional(),
      limit: z.int().min(1).max(200).default(50),
    }),
    reply: z.object({
      plan: Slug,
      run_id: EventId.nullable(),
      round: z.int().min(0),
      timelines: z.array(FindingTimeline),
    }),
  },
  /** The round history of a run (the current run by default), oldest first. */
  rounds: {
    request: z.object({ plan: Slug, run_id: EventId.optional(), limit: z.int().min(1).max(10_000).default(1000) }),
    reply: z.object({ plan: Slug, run_id: EventId.nullable(), rounds: z.array(RoundHistoryEntry) }),
  },
  /** Patterns seen in at least `min_loops` loops, for critics and implementers (optionally for some finding types). */
  learnings: {
    request: z.object({
      critic_id: z.string().max(128).optional(),
      finding_types: z.array(z.string().max(200)).max(200).optional(),
      min_loops: z.int().min(1).default(2),
      limit: z.int().min(1).max(1000).default(100),
    }),
    reply: z.object({ learnings: z.array(Learning) }),
  },
  /** Run summaries for `rloop calibrate`, newest first. */
  calibration: {
    request: z.object({ since: z.string().optional(), limit: z.int().min(1).max(100_000).default(10_000) }),
    reply: z.object({ runs: z.array(RunSummary) }),
  },
  /** How each critic fared over the most recent rounds of every plan (the console's critics registry). */
  critic_stats: {
    request: z.object({ rounds: z.int().min(1).max(100_000).default(2000) }),
    reply: z.object({
      rounds: z.int().min(0),
      critics: z.array(
        z.object({
          critic_id: z.string(),
          /** Rounds it was dispatched to (among those looked at). */
          dispatched: z.int().min(0),
          failed: z.int().min(0),
          /** Failures by CriticFailed reason. */
          reasons: z.record(z.string(), z.int().min(0)),
          last_round_at: z.string().nullable(),
        }),
      ),
    }),
  },
  /** Rebuilds projections from zero (all, or one by name). */
  rebuild: {
    request: z.object({ projection: z.string().optional() }),
    reply: z.object({ rebuilt: z.array(z.object({ projection: z.string(), events: z.int().min(0) })) }),
  },
} as const;

export type JournalQuery = keyof typeof JOURNAL_QUERIES;
export type JournalRequest<Q extends JournalQuery> = z.input<(typeof JOURNAL_QUERIES)[Q]['request']>;
export type JournalReply<Q extends JournalQuery> = z.infer<(typeof JOURNAL_QUERIES)[Q]['reply']>;
