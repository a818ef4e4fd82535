import type { Phase } from '@rloop/contracts';
import type { LoopConfig } from './config.js';
import type { Firing } from './firing.js';
import type { TrendPoint } from './memory.js';
import { slope } from './trend.js';

// Flat trend (review-loop seed): over `flat_trend.rounds` complete letters of a phase, the top-N
// severity average fell by less than `min_slope` a round while the findings kept changing.

export function flatTrend(points: readonly TrendPoint[], config: LoopConfig): { readonly slope: number } | null {
  const window = points.slice(-config.flat_trend.rounds);
  const first = window[0];
  const last = window.at(-1);
  if (window.length < config.flat_trend.rounds || first === undefined || last === undefined || last.count === 0)
    return null;
  const s = slope(window.map((p) => ({ x: p.round, y: p.top })));
  if (-s >= config.flat_trend.min_slope || last.count < first.count) return null;
  // A stable set of stuck findings is the per-issue heuristics' business; the trend guards against churn.
  const before = new Set(first.keys);
  if (last.keys.every((k) => before.has(k))) return null;
  return { slope: Math.round(s * 1000) / 1000 };
}

export interface FlatTrendInput {
  /** The phase's trend points so far, this round's last. */
  readonly points: readonly TrendPoint[];
  readonly phase: Phase;
  readonly round: number;
  /** Only a complete letter says something about severity. */
  readonly complete: boolean;
}

export function flatTrendFiring(input: FlatTrendInput, config: LoopConfig): Firing | null {
  const flat = input.complete ? flatTrend(input.points, config) : null;
  if (flat === null) return null;
  const points = input.points.slice(-config.flat_trend.rounds);
  return {
    heuristic: 'flat_trend',
    trackers: [],
    message: `the top-${config.flat_trend.top} severity average did not fall (${points.map((p) => p.top).join(' → ')} over rounds ${points[0]?.round ?? '?'}-${input.round}, slope ${flat.slope} > -${config.flat_trend.min_slope}) while the findings kept changing — the ${input.phase} phase is stuck`,
    evidence: {
      slope: flat.slope,
      min_slope: config.flat_trend.min_slope,
      points: points.map((p) => ({ round: p.round, top_score_avg: p.top, findings: p.count })),
    },
  };
}
