import { z } from 'zod';
import {
  CriticFailureReason,
  DisagreementSide,
  DispatchedCritic,
  GateVerdict,
  Gating,
  Heuristic,
  ScopeHolder,
} from './event-parts.js';
import { Category, Phase, Severity } from './finding.js';
import { SeverityCounts } from './letter.js';
import { PlanSpec } from './plan.js';
import { ValidationError, toIssues } from './errors.js';

// The loop state (the journal's fold of a plan's current run) as it travels: in JournalCommitted
// announcements and `journal.loop_state` replies. The domain folds it (libs/domain loop/state.ts);
// every receiver parses it with parseLoopState, never casts it.

/** The shape's version: bump it (and add an upcaster below) when a field changes meaning or goes away. */
export const LOOP_STATE_VERSION = 1;

const Ref = z.object({ event_id: z.string().min(1), occurred_at: z.string().min(1) });

/**
 * Where a plan's current run stands. Terminal: converged, bypassed, rejected, stopped. An
 * escalated loop waits for a person (`rloop resume` / `rloop stop`); a queued one for the runs
 * whose files it overlaps (scope locking, see libs/domain/src/scope).
 */
export const LOOP_STATUSES = [
  'submitted',
  'queued',
  'awaiting_baseline',
  'ready',
  'reviewing',
  'fixing',
  'escalated',
  'converged',
  'bypassed',
  'rejected',
  'stopped',
] as const;
export const LoopStatus = z.enum(LOOP_STATUSES);
export type LoopStatus = z.infer<typeof LoopStatus>;

/**
 * A heuristic that fired in the current round and has not been escalated yet (a LoopDetected
 * folded into the state), so the panel never decides on the round without it.
 */
export const PendingDetection = z.object({
  event_id: z.string().min(1),
  heuristic: Heuristic,
  round: z.int().min(0),
  detail: z.string(),
  fingerprints: z.array(z.string()),
  disagreement: z.array(DisagreementSide).optional(),
});
export type PendingDetection = z.infer<typeof PendingDetection>;

/** The best round of the current phase so far (fewest critical, then fewest findings): where a worse round is reverted to. */
export const BestRound = z.object({
  phase: Phase,
  round: z.int().min(0),
  commit: z.string(),
  critical: z.int().min(0),
  findings: z.int().min(0),
});
export type BestRound = z.infer<typeof BestRound>;

/** A finding as the loop state keeps it (enough for an escalation report, small enough to fold). */
export const FindingSummary = z.object({
  id: z.string(),
  fingerprint: z.string(),
  title: z.string(),
  severity: Severity,
  category: Category,
  file: z.string(),
  line_range: z.object({ start: z.int(), end: z.int() }),
  raised_by: z.string(),
});
export type FindingSummary = z.infer<typeof FindingSummary>;

export const RoundLetter = Ref.extend({
  letter_id: z.string().min(1),
  findings: z.int().min(0),
  counts: SeverityCounts,
  complete: z.boolean(),
});
export type RoundLetter = z.infer<typeof RoundLetter>;

/** A critic's failure in a round, as the state keeps it. */
export const CriticFailure = z.object({ reason: CriticFailureReason, message: z.string(), core: z.boolean() });
export type CriticFailure = z.infer<typeof CriticFailure>;

/**
 * Where the run's state last changed (events that change nothing — a late report, a duplicate —
 * leave it): the position, the decision that changed it (null for a fact), and where it changed
 * before that decision's events began. A decision made on version V is still valid while
 * nothing but its own earlier events changed the state after V (see admitDecision).
 */
export const StateChange = z.object({ at: z.int().min(0), decision: z.string().nullable(), before: z.int().min(0) });
export type StateChange = z.infer<typeof StateChange>;

/** The round in progress (the state keeps only this one; history lives in projections). */
export const RoundRecord = z.object({
  round: z.int().min(0),
  phase: Phase,
  phase_round: z.int().min(0),
  k: z.int().nullable(),
  mode: z.enum(['loop', 'single_pass']),
  commit: z.string(),
  started_event_id: z.string(),
  started_at: z.string(),
  /** Stream position of the RoundStarted event: the round's reports follow it. */
  started_position: z.int().min(0),
  deadline_at: z.string(),
  critics: z.array(DispatchedCritic.pick({ critic_id: true, core: true })),
  /** Outcome per critic that has answered. */
  reports: z.record(z.string(), z.enum(['reported', 'failed'])),
  /** Why each critic that failed did (its reason and its own message, cut short). */
  failures: z.record(z.string(), CriticFailure),
  letter: RoundLetter.nullable(),
  fix_requested: z.boolean(),
  fix: Ref.extend({ outcome: z.string(), commit: z.string().nullable() }).nullable(),
});
export type RoundRecord = z.infer<typeof RoundRecord>;

export const LoopState = z.object({
  schema_version: z.literal(LOOP_STATE_VERSION),
  plan: z.string().min(1),
  /** The event id of the run's PlanSubmitted; every event of the run carries it as correlation_id. */
  run_id: z.string().nullable(),
  status: LoopStatus,
  spec: PlanSpec.nullable(),
  submission_id: z.string().nullable(),
  verdict: GateVerdict.nullable(),
  gated: Ref.extend({
    commit: z.string(),
    repo_path: z.string(),
    repo_url: z.string().optional(),
    files: z.array(z.string()),
  }).nullable(),
  /** While queued (scope locking): the gating it will run with and the runs it waits for, from its latest LoopQueued. */
  queued: z
    .object({ event_id: z.string().min(1), gating: Gating, waiting_for: z.array(ScopeHolder).min(1) })
    .nullable()
    .default(null),
  baseline: Ref.extend({ commit: z.string(), branch: z.string(), failing: z.array(z.string()) }).nullable(),
  /** The commit the next round reviews: the baseline, then each committed fix. */
  head: z.string().nullable(),
  phase: Phase,
  /** The last round number started in this run (0 before round 1). */
  round: z.int().min(0),
  /** Extra rounds people granted per phase when resuming. */
  cap_bonus: z.object({
    critical: z.int().min(0),
    medium: z.int().min(0),
    low: z.int().min(0),
    final_sweep: z.int().min(0),
  }) satisfies z.ZodType<Record<Phase, number>>,
  current: RoundRecord.nullable(),
  /** The latest letter's findings (capped), for stuck-issue reports. */
  last_findings: z.array(FindingSummary),
  escalation: z.object({ escalation_id: z.string(), reason: z.string(), round: z.int().min(0) }).nullable(),
  /** Set by LoopResumed until the next round starts: the panel acts on it once. */
  resumed: Ref.nullable(),
  /** Heuristics that fired in the current round, not yet escalated. */
  detections: z.array(PendingDetection),
  /** Detection ids already escalated or overruled by a person (a late LoopDetected copy changes nothing). */
  handled_detections: z.array(z.string()),
  /** Best-round retention (FSM seed): the best complete round of the current phase. */
  best: BestRound.nullable(),
  /** The critics that failed in the round before the current one (infrastructure failures that repeat escalate at once). */
  previous_failures: z.object({ round: z.int().min(0), failures: z.record(z.string(), CriticFailure) }).nullable(),
  /** Consecutive rounds whose letter was incomplete (a core critic failed), up to the current one: retried rounds back off by it. */
  incomplete_rounds: z.int().min(0),
  outcome_event_id: z.string().nullable(),
  /** Stream position of the last event folded in (the run's journal stream). */
  version: z.int().min(0),
  /** Where the state last changed: what decisions are checked against. */
  changed: StateChange,
  last_event_id: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type LoopState = z.infer<typeof LoopState>;

/**
 * Reads a loop state from the wire or the journal's table: states stored before the shape had a
 * version are version 1. A state that does not match is a ValidationError naming the fields.
 */
export function parseLoopState(value: unknown): LoopState {
  const versioned =
    typeof value === 'object' && value !== null && !('schema_version' in value)
      ? { ...value, schema_version: 1 }
      : value;
  const parsed = LoopState.safeParse(versioned);
  if (!parsed.success)
    throw new ValidationError(
      'CONTRACT.INVALID_LOOP_STATE',
      `invalid loop state: ${parsed.error.issues[0]?.message ?? 'unknown'}`,
      toIssues(parsed.error),
    );
  return parsed.data;
}
