import { HEURISTICS, type Heuristic, PHASES, type Phase } from '@rloop/contracts';
import type { LoopConfig } from './config.js';
import type { Histogram, RunSummaryRow } from './memory.js';

/** Spread of a measure over the runs (null when there is no data point). */
export interface Spread {
  readonly samples: number;
  readonly median: number | null;
  readonly p90: number | null;
  readonly max: number | null;
}

export interface ThresholdAdvice {
  readonly current: number;
  /** What the data suggests (null: not enough data; keep the current value). */
  readonly suggested: number | null;
  readonly basis: string;
}

export interface HeuristicStats {
  readonly fired: number;
  /** Runs in which it fired at least once. */
  readonly runs: number;
  /** Of those runs, how many converged afterwards (after a person resumed them). */
  readonly converged_after: number;
  readonly note: string;
}

/** What `rloop calibrate` prints: what the spec's TODO(calibration) thresholds need, from the journal. */
export interface CalibrationReport {
  readonly runs: number;
  readonly outcomes: Readonly<Record<string, number>>;
  readonly enough_data: boolean;
  readonly min_runs: number;
  readonly phases: Readonly<Record<Phase, Spread & { readonly soft_cap: ThresholdAdvice }>>;
  readonly heuristics: Readonly<Record<Heuristic, HeuristicStats>>;
  readonly thresholds: {
    readonly persistent_issue_rounds: ThresholdAdvice;
    readonly implementer_wall_attempts: ThresholdAdvice;
    readonly oscillation_reappearances: ThresholdAdvice;
    readonly fuzzy_line_window: ThresholdAdvice;
  };
  readonly notes: readonly string[];
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? null;
}

function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    median: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    max: sorted.at(-1) ?? null,
  };
}

/** Sums histograms and expands them into sorted samples. */
function samplesOf(histograms: readonly Histogram[]): number[] {
  const totals = new Map<number, number>();
  for (const h of histograms)
    for (const [k, n] of Object.entries(h)) totals.set(Number(k), (totals.get(Number(k)) ?? 0) + n);
  return [...totals.entries()]
    .sort((a, b) => a[0] - b[0])
    .flatMap(([value, n]) => Array.from({ length: n }, () => value));
}

/**
 * Turns run summaries into calibration advice. Suggestions only appear with at least `minRuns`
 * finished runs; each says what it is based on, so a person can judge it.
 */
export function calibrate(
  runs: readonly RunSummaryRow[],
  current: { readonly softCaps: Readonly<Record<Phase, number>>; readonly loop: LoopConfig },
  minRuns = 5,
): CalibrationReport {
  const finished = runs.filter((r) => r.status !== 'running');
  const enough = finished.length >= minRuns;
  const outcomes: Record<string, number> = {};
  for (const r of runs) outcomes[r.status] = (outcomes[r.status] ?? 0) + 1;
  const notes: string[] = [];
  if (!enough)
    notes.push(
      `only ${finished.length} finished run(s) in the journal (need ${minRuns}): the suggestions stay empty; keep the defaults`,
    );

  const phases = Object.fromEntries(
    PHASES.map((phase) => {
      const spread = spreadOf(
        runs.flatMap((r) => (r.phases_cleared[phase] === undefined ? [] : [r.phases_cleared[phase]])),
      );
      const cap = current.softCaps[phase];
      const suggested = enough && spread.p90 !== null ? Math.max(1, spread.p90 + 1) : null;
      return [
        phase,
        {
          ...spread,
          soft_cap: {
            current: cap,
            suggested,
            basis: `rounds the ${phase} phase needed to come clean (p90 + 1 round of slack)`,
          },
        },
      ];
    }),
  ) as Record<Phase, Spread & { soft_cap: ThresholdAdvice }>;

  const heuristics = Object.fromEntries(
    HEURISTICS.map((h) => {
      const hit = runs.filter((r) => r.detections.some((d) => d.heuristic === h));
      const convergedAfter = hit.filter((r) => r.status === 'converged').length;
      const fired = runs.reduce((sum, r) => sum + r.detections.filter((d) => d.heuristic === h).length, 0);
      const rate = hit.length === 0 ? null : convergedAfter / hit.length;
      const note =
        hit.length === 0
          ? 'never fired'
          : rate !== null && rate >= 0.5
            ? `${Math.round(rate * 100)}% of the loops it stopped converged after a resume: it may fire too early (consider a higher threshold)`
            : `${Math.round((rate ?? 0) * 100)}% of the loops it stopped converged afterwards: it mostly caught loops that were really stuck`;
      return [h, { fired, runs: hit.length, converged_after: convergedAfter, note }];
    }),
  ) as Record<Heuristic, HeuristicStats>;

  const fixedAfter = spreadOf(samplesOf(runs.map((r) => r.fixed_after_rounds)).filter((n) => n > 0));
  const attempts = spreadOf(samplesOf(runs.map((r) => r.attempts_to_fix)).filter((n) => n > 0));
  const drift = spreadOf(samplesOf(runs.map((r) => r.line_drift)));
  const oscillationStats = heuristics.oscillation;
  const loop = current.loop;
  const thresholds = {
    persistent_issue_rounds: {
      current: loop.persistent_issue.rounds,
      suggested: enough && fixedAfter.p90 !== null ? Math.max(2, fixedAfter.p90 + 1) : null,
      basis: `consecutive rounds findings stayed before a fix removed them (p90 ${fixedAfter.p90 ?? '-'} over ${fixedAfter.samples}); one more than that is stuck`,
    },
    implementer_wall_attempts: {
      current: loop.implementer_wall.attempts,
      suggested: enough && attempts.p90 !== null ? Math.max(2, attempts.p90 + 1) : null,
      basis: `distinct attempts findings needed before they went away (p90 ${attempts.p90 ?? '-'} over ${attempts.samples})`,
    },
    oscillation_reappearances: {
      current: loop.oscillation.reappearances,
      suggested:
        enough && oscillationStats.runs > 0
          ? oscillationStats.converged_after / oscillationStats.runs >= 0.5
            ? loop.oscillation.reappearances + 1
            : loop.oscillation.reappearances
          : null,
      basis: 'whether loops stopped for an oscillation converged after a resume',
    },
    fuzzy_line_window: {
      current: loop.fuzzy_line_window,
      suggested: enough && drift.p90 !== null ? Math.max(1, drift.p90) : null,
      basis: `line shift of findings matched across rounds by snippet or by the fuzzy rule (p90 ${drift.p90 ?? '-'} over ${drift.samples})`,
    },
  };
  return { runs: runs.length, outcomes, enough_data: enough, min_runs: minRuns, phases, heuristics, thresholds, notes };
}
