import { describe, expect, it } from '@jest/globals';
import { NO_STALL, countStall, stall } from './stall.js';
import { config } from './tracker.test-helpers.js';

describe('stall', () => {
  it('given two fixes in a row that committed nothing, when checked, then it fires naming the rounds and outcomes', () => {
    const count = countStall(countStall(NO_STALL, { round: 1, commit: null, outcome: 'no_change' }), {
      round: 2,
      commit: null,
      outcome: 'failed',
    });
    const firing = stall(count, { reason: 'tests failed', strategy: 'command' }, config);
    expect(firing).toMatchObject({
      heuristic: 'stall',
      evidence: { threshold: 2, rounds: [1, 2], outcomes: ['no_change', 'failed'], strategy: 'command' },
    });
    expect(firing?.message).toBe(
      'the implementer changed nothing in 2 rounds in a row (rounds 1, 2: no_change, failed); last: tests failed',
    );
  });

  it('given a commit between two empty fixes, when checked, then the count starts again and nothing fires', () => {
    let count = countStall(NO_STALL, { round: 1, commit: null, outcome: 'no_change' });
    count = countStall(count, { round: 2, commit: 'abc', outcome: 'committed' });
    count = countStall(count, { round: 3, commit: null, outcome: 'no_change' });
    expect(count.count).toBe(1);
    expect(stall(count, { strategy: 'command' }, config)).toBeNull();
  });
});
