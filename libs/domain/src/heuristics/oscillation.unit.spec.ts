import { describe, expect, it } from '@jest/globals';
import { oscillation } from './oscillation.js';
import { config, tracker } from './tracker.test-helpers.js';

describe('oscillation', () => {
  it('given a finding that was gone in round 2 and came back in round 3, when checked, then it fires saying the fix did not hold', () => {
    const back = tracker('a', {
      reappearances: 1,
      segments: [
        [1, 1, 'p'],
        [2, 2, 'a'],
        [3, 3, 'p'],
      ],
    });
    const firing = oscillation({ reappeared: [back], cycles: [], round: 3 }, config);
    expect(firing?.trackers).toEqual([back]);
    expect(firing?.message).toBe(
      '"issue a" (src/a.ts:10) was gone in round 2 but came back in round 3 — the fix did not hold',
    );
  });

  it('given fixing B brought back A after fixing A brought back B (one critic), when checked, then it fires on the cycle', () => {
    const a = tracker('a');
    const b = tracker('b', { file: 'src/b.ts' });
    const firing = oscillation({ reappeared: [], cycles: [[a, b]], round: 4 }, config);
    expect(firing).toMatchObject({ heuristic: 'oscillation', evidence: { cycles: [[a.key, b.key]] } });
    expect(firing?.message).toBe(
      'fixing "issue b" brought back "issue a", and fixing "issue a" had brought back "issue b"',
    );
  });

  it('given a cycle between two critics on the same lines, when checked, then it is a disagreement, not an oscillation', () => {
    const a = tracker('a');
    const b = tracker('b', { critic_id: 'security/sast-scanner' });
    expect(oscillation({ reappeared: [a], cycles: [[a, b]], round: 4 }, config)).toBeNull();
  });

  it('given a comeback below the configured count, when checked, then nothing fires', () => {
    const config2 = { ...config, oscillation: { ...config.oscillation, reappearances: 2 } };
    expect(oscillation({ reappeared: [tracker('a', { reappearances: 1 })], cycles: [], round: 3 }, config2)).toBeNull();
  });
});
