import type { Finding, Heuristic, Phase } from '@rloop/contracts';
import { NO_STALL, type StallCount } from './stall.js';

// The loop memory's shape (what the journal keeps in loop_memory and the rows its fold yields).
// The fold is memory.ts (evolveMemory); following issues across rounds is trackers.ts.

/** A finding as the memory keeps it from one critic's report (small; no prose beyond the title and the ask). */
export interface FindingRef {
  readonly id: string;
  readonly fingerprint: string;
  readonly location_hash: string | null;
  readonly file: string;
  readonly finding_type: string;
  readonly line_range: { readonly start: number; readonly end: number };
  readonly raised_by: string;
  readonly score: number;
  readonly severity: Finding['severity'];
  readonly category: Finding['category'];
  readonly title: string;
  readonly expected: string;
}

/** How a finding stood in a round: in the letter (p), reported but cut by top-K (h), or gone (a). Rounds its critic did not report are not recorded. */
export type PresenceState = 'p' | 'h' | 'a';
export type Segment = readonly [from: number, to: number, state: PresenceState];

export interface FixAttempt {
  readonly round: number;
  readonly commit: string | null;
  readonly outcome: string;
  readonly lines_changed: number;
  /** The changed files and line ranges: two attempts with the same signature are the same attempt. */
  readonly signature: string;
  /** Stream position of the FixApplied event (its patch is read from there for reports). */
  readonly position: number;
}

/** One issue followed across rounds (identity: the domain's isSameIssue, per critic). */
export interface Tracker {
  readonly key: string;
  readonly fingerprints: readonly string[];
  readonly critic_id: string;
  readonly file: string;
  readonly finding_type: string;
  readonly line_range: { readonly start: number; readonly end: number };
  readonly location_hash: string | null;
  readonly title: string;
  readonly severity: Finding['severity'];
  readonly category: Finding['category'];
  readonly score: number;
  readonly expected: string;
  readonly first_round: number;
  readonly last_seen: number;
  readonly last_state: PresenceState;
  readonly segments: readonly Segment[];
  /** Letter rounds in the current stretch of presence (rounds cut by top-K neither add nor break it). */
  readonly streak: number;
  readonly streak_start: number;
  /** Distinct fix attempts on it during the current stretch. */
  readonly streak_attempts: number;
  readonly signatures: readonly string[];
  /** Comebacks not yet reported by an oscillation detection. */
  readonly reappearances: number;
  readonly total_reappearances: number;
  readonly absent_since: number | null;
  readonly attempts: readonly FixAttempt[];
}

/** One round in the round-history projection. */
export interface RoundHistoryRow {
  readonly run_id: string;
  readonly round: number;
  readonly phase: Phase;
  readonly phase_round: number;
  readonly started_at: string;
  readonly commit: string;
  readonly critics: Readonly<Record<string, string>>;
  readonly letter_id: string | null;
  readonly findings: number | null;
  readonly counts: { readonly critical: number; readonly medium: number; readonly low: number } | null;
  readonly complete: boolean | null;
  readonly top_score_avg: number | null;
  readonly max_score: number | null;
  readonly key_moment: string | null;
  readonly retained_best: {
    readonly best_round: number;
    readonly best_commit: string;
    readonly worse_round: number;
    readonly worse_commit: string;
  } | null;
  readonly fix: {
    readonly outcome: string;
    readonly commit: string | null;
    readonly lines_changed: number;
    readonly infra_failure: boolean;
  } | null;
  readonly detections: readonly Heuristic[];
}

export type Histogram = Readonly<Record<string, number>>;

/** What calibration needs from one run. */
export interface RunSummaryRow {
  readonly run_id: string;
  readonly plan: string;
  readonly started_at: string;
  readonly ended_at: string | null;
  readonly status: string;
  readonly rounds: number;
  readonly phases_cleared: Readonly<Partial<Record<Phase, number>>>;
  readonly phase_rounds: Readonly<Partial<Record<Phase, number>>>;
  readonly detections: readonly { readonly heuristic: Heuristic; readonly round: number }[];
  readonly escalations: readonly {
    readonly reason: string;
    readonly heuristic: Heuristic | null;
    readonly round: number;
  }[];
  readonly resumes: number;
  readonly fixed_after_rounds: Histogram;
  readonly attempts_to_fix: Histogram;
  readonly reappearances: Histogram;
  readonly line_drift: Histogram;
}

/** A heuristic that fired: becomes a LoopDetected (id derived from plan, run, heuristic and round). */
export interface LoopDetection {
  readonly event_id: string;
  readonly plan: string;
  readonly run_id: string;
  readonly heuristic: Heuristic;
  readonly round: number;
  readonly fingerprints: readonly string[];
  readonly critic_ids: readonly string[];
  readonly message: string;
  readonly evidence: Readonly<Record<string, unknown>>;
  /** The event whose projection fired it, and its time (so replays produce the same event). */
  readonly causation_id: string;
  readonly occurred_at: string;
}

/** A change to the cross-loop learnings projection (keyed by critic and finding type). */
export interface LearningDelta {
  readonly critic_id: string;
  readonly finding_type: string;
  /** True the first time the pattern shows up in this run. */
  readonly new_loop: boolean;
  readonly rounds_seen: number;
  readonly fixed: number;
  readonly stuck: number;
  readonly title: string;
  readonly plan: string;
  readonly at: string;
}

export interface CurrentRound {
  readonly round: number;
  readonly phase: Phase;
  readonly phase_round: number;
  readonly mode: 'loop' | 'single_pass';
  /** Dispatched critic → `pending`, `reported` or the CriticFailed reason. */
  critics: Record<string, string>;
  reports: Record<string, FindingRef[]>;
  /** Letter finding id → tracker key (fix attempts name letter finding ids). */
  letter_map: Record<string, string>;
  letter_written: boolean;
  fixed: boolean;
}

/** One complete letter's point of the phase's severity trend (see flat-trend.ts). */
export interface TrendPoint {
  readonly round: number;
  readonly top: number;
  readonly count: number;
  readonly keys: readonly string[];
}

/** The loop memory of one plan's current run: bounded by the number of findings, not of rounds. */
export interface LoopMemory {
  readonly plan: string;
  readonly run_id: string | null;
  readonly ended: boolean;
  readonly verdict: string | null;
  readonly phase: Phase;
  readonly round: number;
  readonly trackers: readonly Tracker[];
  readonly current: Readonly<CurrentRound> | null;
  readonly history: RoundHistoryRow | null;
  readonly run: RunSummaryRow | null;
  readonly trend: { readonly phase: Phase; readonly points: readonly TrendPoint[] };
  readonly previous_max: number | null;
  readonly stall: StallCount;
  /** "Finding X went away and Y came" per round, for cycles across findings. */
  readonly edges: readonly { readonly round: number; readonly from: string; readonly to: string }[];
  /** `critic finding_type` already counted as a loop for the learnings. */
  readonly learned: readonly string[];
  /** Detection ids this memory produced (a LoopDetected event with one of them is not counted twice). */
  readonly fired: readonly string[];
  /** The last letter's disagreements (tracker pairs): one that is in the next letter too escalates. Absent in memories stored before. */
  readonly disagreements?: readonly string[];
  readonly version: number;
}

export interface MemoryStep {
  readonly memory: LoopMemory;
  readonly detections: readonly LoopDetection[];
  /** The round-history row that changed (upsert), if any. */
  readonly round: RoundHistoryRow | null;
  /** The run summary that changed (upsert), if any. */
  readonly run: RunSummaryRow | null;
  readonly learnings: readonly LearningDelta[];
}

export function initialLoopMemory(plan: string): LoopMemory {
  return {
    plan,
    run_id: null,
    ended: false,
    verdict: null,
    phase: 'critical',
    round: 0,
    trackers: [],
    current: null,
    history: null,
    run: null,
    trend: { phase: 'critical', points: [] },
    previous_max: null,
    stall: NO_STALL,
    edges: [],
    learned: [],
    fired: [],
    disagreements: [],
    version: 0,
  };
}
