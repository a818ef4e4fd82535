import { describe, expect, it } from '@jest/globals';
import { implementerWall } from './implementer-wall.js';
import { config, tracker } from './tracker.test-helpers.js';

const attempt = (round: number) => ({
  round,
  commit: null,
  outcome: 'committed',
  lines_changed: 2,
  signature: `src/a.ts:${round}-${round}`,
  position: round * 10,
});

describe('implementer_wall', () => {
  it('given 3 distinct fix attempts on a finding that is still in the letter, when checked, then it fires with the attempts', () => {
    const t = tracker('a', { streak: 4, streak_attempts: 3, attempts: [attempt(1), attempt(2), attempt(3)] });
    const firing = implementerWall([t], config);
    expect(firing).toMatchObject({
      heuristic: 'implementer_wall',
      trackers: [t],
      evidence: { threshold: 3, findings: [{ attempts: [attempt(1), attempt(2), attempt(3)] }] },
    });
    expect(firing?.message).toContain('tried 3 different approaches on "issue a" (src/a.ts:10)');
  });

  it('given 2 distinct attempts, when checked, then nothing fires', () => {
    expect(implementerWall([tracker('a', { streak: 3, streak_attempts: 2 })], config)).toBeNull();
  });

  it('given 3 attempts on a finding that is gone, when checked, then nothing fires', () => {
    expect(implementerWall([tracker('a', { streak_attempts: 3, last_state: 'a' })], config)).toBeNull();
  });
});
