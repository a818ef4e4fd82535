import { describe, expect, it } from '@jest/globals';
import { persistentIssue } from './persistent-issue.js';
import { config, tracker } from './tracker.test-helpers.js';

describe('persistent_issue', () => {
  it('given a finding in the letter 3 rounds in a row and no fix tried on it, when checked, then it fires naming it', () => {
    const t = tracker('a', { streak: 3, streak_start: 2 });
    const firing = persistentIssue([t], config, []);
    expect(firing).toMatchObject({
      heuristic: 'persistent_issue',
      trackers: [t],
      evidence: { threshold: 3, findings: [{ consecutive_rounds: 3, since_round: 2, distinct_attempts: 0 }] },
    });
    expect(firing?.message).toBe(
      '"issue a" (src/a.ts:10, toolchain/compiler-linter) was raised in 3 consecutive rounds and no fix removed it',
    );
  });

  it('given a finding present 2 rounds in a row, when checked, then nothing fires', () => {
    expect(persistentIssue([tracker('a', { streak: 2 })], config, [])).toBeNull();
  });

  it('given a finding the implementer tried a new way each round, when checked, then it is not persistent (it may become a wall)', () => {
    expect(persistentIssue([tracker('a', { streak: 3, streak_attempts: 2 })], config, [])).toBeNull();
  });

  it('given a finding cut by top-K this round, when checked, then nothing fires', () => {
    expect(persistentIssue([tracker('a', { streak: 3, last_state: 'h' })], config, [])).toBeNull();
  });

  it('given a finding an implementer wall named this round, when checked, then it is left to the wall', () => {
    const t = tracker('a', { streak: 4 });
    expect(persistentIssue([t], config, [t])).toBeNull();
  });
});
