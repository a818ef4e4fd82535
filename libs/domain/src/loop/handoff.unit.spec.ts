import { describe, expect, it } from '@jest/globals';
import type { Phase } from '@rloop/contracts';
import { RUN_ID, event, finding, letterFor } from '../testing/builders.test-helpers.js';
import { type ReviewedRound, chooseHandoffRound, reviewedRounds } from './handoff.js';

const sha = (n: number): string => String(n).repeat(40).slice(0, 40);
const round = (
  n: number,
  critical: number,
  medium = 0,
  low = 0,
  phase: Phase = 'critical',
  commit = sha(n),
): ReviewedRound => ({ round: n, phase, commit, letter_id: `d_letter${n}`, counts: { critical, medium, low } });

describe('best-round handoff: the round whose commit the branch is left at', () => {
  it('given a loop that got worse after round 2, when it escalates, then round 2 is chosen and the reason compares it with the last round', () => {
    const choice = chooseHandoffRound([round(1, 3), round(2, 1), round(3, 2), round(4, 4)]);
    expect(choice?.best.round).toBe(2);
    expect(choice?.best.commit).toBe(sha(2));
    expect(choice?.reason).toBe(
      'round 2 had the fewest open findings (1 critical (medium, low not reviewed yet)); the last reviewed round, 4, had 4 critical (medium, low not reviewed yet)',
    );
  });

  it('given rounds as good as each other, when one is chosen, then it is the latest (the most work for the same result)', () => {
    expect(chooseHandoffRound([round(1, 2), round(2, 1), round(3, 1), round(4, 2)])?.best.round).toBe(3);
    expect(chooseHandoffRound([round(1, 2), round(2, 1)])?.reason).toBe(
      'round 2, the last reviewed, has the fewest open findings (1 critical (medium, low not reviewed yet))',
    );
  });

  it('given equal critical counts, when one round has fewer medium findings, then that one wins (critical, then medium, then low)', () => {
    const rounds = [
      round(1, 0, 3, 0, 'final_sweep'),
      round(2, 0, 1, 5, 'final_sweep'),
      round(3, 0, 1, 6, 'final_sweep'),
    ];
    expect(chooseHandoffRound(rounds)?.best.round).toBe(2);
  });

  it('given a loop that reached a later phase, when its rounds are compared, then the earlier phase counts as cleared and the later round is not beaten by one that never looked', () => {
    // Round 2 cleared the critical phase (0 critical, mediums not looked at); round 3 found 2 medium.
    const rounds = [round(1, 2), round(2, 0), round(3, 0, 2, 0, 'medium'), round(4, 0, 3, 0, 'medium')];
    const choice = chooseHandoffRound(rounds);
    expect(choice?.best.round).toBe(3);
    expect(choice?.reason).toContain('0 critical, 2 medium (low not reviewed yet)');
  });

  it('given no completely reviewed round, when a handoff is asked for, then there is no choice (the branch stays)', () => {
    expect(chooseHandoffRound([])).toBeNull();
  });

  it("given the run's events, when the reviewed rounds are read, then only complete loop letters of this run count", () => {
    const complete = event('LetterWritten', { letter: letterFor(1, 'critical', [finding()]) });
    const incomplete = event('LetterWritten', { letter: letterFor(2, 'critical', [], { complete: false }) });
    const otherRun = {
      ...event('LetterWritten', { letter: letterFor(3, 'critical', []) }),
      correlation_id: '01JOTHERRUN000000000000000',
    };
    expect(reviewedRounds([complete, incomplete, otherRun], RUN_ID).map((r) => [r.round, r.counts.critical])).toEqual([
      [1, 1],
    ]);
  });
});
