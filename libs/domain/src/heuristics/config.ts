import { z } from 'zod';
import { FUZZY_LINE_WINDOW } from '../identity/fingerprint.js';
import { DEFAULT_KNOWN_CONFLICTS } from '../synthesis/disagreements.js';

const Positive = z.int().min(1);

/**
 * config/loop.yaml: the thresholds of the loop-detection heuristics and the guards from the peer
 * seeds. Every number here is a guess until `rloop calibrate` has journal data to replace it.
 */
export const LoopConfig = z.strictObject({
  /** Same fingerprint from the same critic in this many consecutive letters (spec: 3). */
  persistent_issue: z.strictObject({ rounds: Positive.default(3) }).default({ rounds: 3 }),
  /** Reappearances (present, absent, back) before it is an oscillation (spec: 1). */
  oscillation: z
    .strictObject({ reappearances: Positive.default(1), cycle_lookback_rounds: Positive.default(10) })
    .default({ reappearances: 1, cycle_lookback_rounds: 10 }),
  /** Distinct fix attempts (different lines changed each time) on an issue that persists (spec: 3). */
  implementer_wall: z.strictObject({ attempts: Positive.default(3) }).default({ attempts: 3 }),
  critic_disagreement: z
    .strictObject({
      /**
       * Pairs of finding types known to ask for opposite changes (`duplicate/*` vs
       * `llm/inline-for-performance`); a trailing `*` matches a prefix. Both on overlapping lines in
       * one round are a disagreement of the letter (the synthesizer), and the same disagreement in
       * the next letter escalates; other pairs need the history (fixing one brings the other back).
       * Default: the shipped table (DEFAULT_KNOWN_CONFLICTS); `[]` turns the table off.
       */
      known_conflicts: z
        .array(z.tuple([z.string().min(1), z.string().min(1)]))
        .default(() => DEFAULT_KNOWN_CONFLICTS.map(([a, b]) => [a, b] as [string, string])),
    })
    .default(() => ({ known_conflicts: DEFAULT_KNOWN_CONFLICTS.map(([a, b]) => [a, b] as [string, string]) })),
  /** Review-loop seed: top-N average score slope below `min_slope` per round over `rounds` rounds is flat. */
  flat_trend: z
    .strictObject({
      rounds: z.int().min(2).default(3),
      min_slope: z.number().min(0).default(0.5),
      top: Positive.default(3),
    })
    .default({ rounds: 3, min_slope: 0.5, top: 3 }),
  /** Review-loop seed: a round whose highest score drops by more than this is a key moment. */
  key_moments: z.strictObject({ max_drop: z.number().min(0).default(3) }).default({ max_drop: 3 }),
  /** FSM seed: the implementer changed nothing (no commit, not an infra failure) in this many rounds in a row. */
  stall: z.strictObject({ rounds: Positive.default(2) }).default({ rounds: 2 }),
  /**
   * A round run again because a core critic failed (nothing to fix, nothing clean) waits
   * initial · 2^(n-1) ms after its letter, n being the incomplete rounds in a row, up to max.
   */
  retry_backoff: z
    .strictObject({
      initial_ms: z.int().min(0).max(3_600_000).default(2_000),
      max_ms: z.int().min(0).max(3_600_000).default(120_000),
    })
    .default({ initial_ms: 2_000, max_ms: 120_000 }),
  /** FSM seed: re-review the best commit after a round that made things worse. */
  best_round_retention: z.strictObject({ enabled: z.boolean().default(true) }).default({ enabled: true }),
  /** Review-loop seed: a pattern seen in this many loops is a learning. */
  learnings: z.strictObject({ min_loops: Positive.default(2) }).default({ min_loops: 2 }),
  /** Lines ± this many still count as the same place (spec: ± 5). */
  fuzzy_line_window: z.int().min(0).default(FUZZY_LINE_WINDOW),
  /** Bounds that keep the per-plan memory (and so each projection update) small. */
  limits: z
    .strictObject({
      max_tracked_findings: Positive.default(300),
      max_attempts_per_finding: Positive.default(5),
      max_segments_per_finding: Positive.default(20),
      max_timeline_rounds: Positive.default(200),
    })
    .default({
      max_tracked_findings: 300,
      max_attempts_per_finding: 5,
      max_segments_per_finding: 20,
      max_timeline_rounds: 200,
    }),
});
export type LoopConfig = z.infer<typeof LoopConfig>;
export type LoopConfigInput = z.input<typeof LoopConfig>;

/** The shipped defaults (config/loop.yaml says the same, with its TODO(calibration) notes). */
export const DEFAULT_LOOP_CONFIG: LoopConfig = LoopConfig.parse({});
