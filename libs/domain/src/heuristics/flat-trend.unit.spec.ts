import { describe, expect, it } from '@jest/globals';
import { flatTrendFiring } from './flat-trend.js';
import { config } from './tracker.test-helpers.js';

const point = (round: number, top: number, keys: string[]) => ({ round, top, count: keys.length, keys });

describe('flat_trend', () => {
  it('given 3 complete letters whose top-3 average did not fall while the findings changed, when checked, then it fires with the slope', () => {
    const points = [point(1, 8, ['a', 'b']), point(2, 8, ['c', 'd']), point(3, 8, ['e', 'f'])];
    const firing = flatTrendFiring({ points, phase: 'critical', round: 3, complete: true }, config);
    expect(firing).toMatchObject({
      heuristic: 'flat_trend',
      trackers: [],
      evidence: {
        slope: 0,
        min_slope: 0.5,
        points: [{ round: 1, top_score_avg: 8, findings: 2 }, { round: 2 }, { round: 3 }],
      },
    });
    expect(firing?.message).toBe(
      'the top-3 severity average did not fall (8 → 8 → 8 over rounds 1-3, slope 0 > -0.5) while the findings kept changing — the critical phase is stuck',
    );
  });

  it('given the average falls by a point a round, when checked, then nothing fires', () => {
    expect(
      flatTrendFiring(
        {
          points: [point(1, 9, ['a']), point(2, 8, ['b']), point(3, 7, ['c'])],
          phase: 'critical',
          round: 3,
          complete: true,
        },
        config,
      ),
    ).toBeNull();
  });

  it('given the same findings every round (stuck, not churning), when checked, then it is left to the per-issue heuristics', () => {
    expect(
      flatTrendFiring(
        {
          points: [point(1, 8, ['a']), point(2, 8, ['a']), point(3, 8, ['a'])],
          phase: 'critical',
          round: 3,
          complete: true,
        },
        config,
      ),
    ).toBeNull();
  });

  it('given an incomplete letter or fewer rounds than the window, when checked, then nothing fires', () => {
    const points = [point(1, 8, ['a']), point(2, 8, ['b']), point(3, 8, ['c'])];
    expect(flatTrendFiring({ points, phase: 'critical', round: 3, complete: false }, config)).toBeNull();
    expect(
      flatTrendFiring({ points: points.slice(1), phase: 'critical', round: 3, complete: true }, config),
    ).toBeNull();
  });
});
