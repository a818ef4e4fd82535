import { describe, expect, it } from '@jest/globals';
import { locationHashOf } from '../identity/fingerprint.js';
import { LINTER, SAST, Scenario, heuristicsOf, issue } from './scenario.test-helpers.js';

const A = issue({ finding_type: 'tsc/TS2322', file: 'src/a.ts', line: 10, title: 'A: type mismatch' });
const B = issue({ finding_type: 'tsc/TS2345', file: 'src/b.ts', line: 20, title: 'B: bad argument' });
const C = issue({ finding_type: 'eslint/no-eval', file: 'src/c.ts', line: 30, title: 'C: eval', score: 9 });
const elsewhere = { other: [{ file: 'src/unrelated.ts', hunks: [{ start: 1, end: 1 }] }] };

describe('persistent issue', () => {
  it('given the same finding from the same critic in 3 consecutive letters and fixes that never touch it, when round 3 is in, then persistent_issue fires naming it', () => {
    const loop = new Scenario();
    expect(heuristicsOf(loop.round({ findings: [A], fix: elsewhere }))).toEqual([]);
    expect(
      heuristicsOf(
        loop.round({ findings: [A], fix: { other: [{ file: 'src/unrelated.ts', hunks: [{ start: 5, end: 5 }] }] } }),
      ),
    ).toEqual([]);
    const third = loop.round({ findings: [A] });
    expect(heuristicsOf(third)).toEqual(['persistent_issue']);
    expect(third.detections[0]).toMatchObject({ round: 3, fingerprints: [A.fingerprint], critic_ids: [LINTER] });
    expect(third.detections[0]?.message).toContain('3 consecutive rounds');
  });

  it('given the finding moves a few lines between rounds, when it persists, then it is still the same issue (fuzzy line match) and fires', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: elsewhere });
    loop.round({ findings: [{ ...issue({ ...A, line: 13 }), id: A.id }], fix: elsewhere });
    const third = loop.round({ findings: [{ ...issue({ ...A, line: 12 }), id: A.id }] });
    expect(heuristicsOf(third)).toEqual(['persistent_issue']);
    expect(third.detections[0]?.fingerprints).toEqual([A.fingerprint]);
  });

  it('given the finding moves far but its snippet hash stays, when it persists, then the snippet identity keeps it the same issue', () => {
    const hash = locationHashOf('src/a.ts', 'tsc/TS2322', ['const total: number = "0";']);
    const loop = new Scenario();
    loop.round({ findings: [{ ...A, location_hash: hash }], fix: elsewhere });
    loop.round({ findings: [{ ...issue({ ...A, line: 60 }), location_hash: hash }], fix: elsewhere });
    expect(heuristicsOf(loop.round({ findings: [{ ...issue({ ...A, line: 90 }), location_hash: hash }] }))).toEqual([
      'persistent_issue',
    ]);
  });

  it('given its critic failed in the middle round (an infra failure), when round 3 is in, then the gap is not counted as a presence and nothing fires yet', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: elsewhere });
    loop.round({ findings: [A], failed: { [LINTER]: 'timed_out' }, fix: elsewhere });
    expect(heuristicsOf(loop.round({ findings: [A], fix: elsewhere }))).toEqual([]);
    expect(heuristicsOf(loop.round({ findings: [A] }))).toEqual(['persistent_issue']);
  });

  it('given a healthy loop (fixes land, findings shift lines, one needs a second try, a critic times out once), when it runs to a clean letter, then no heuristic fires', () => {
    const loop = new Scenario();
    const D = issue({ finding_type: 'eslint/no-unused-vars', file: 'src/a.ts', line: 40, score: 7 });
    const shiftedA = { ...issue({ ...A, line: 12 }), id: A.id };
    const results = [
      loop.round({
        findings: [A, B, C],
        fix: {
          touched: [
            { finding: C, hunks: [{ start: 30, end: 30 }] },
            { finding: B, hunks: [{ start: 20, end: 21 }] },
            { finding: A, hunks: [{ start: 8, end: 9 }] },
          ],
        },
      }),
      loop.round({
        findings: [shiftedA, D],
        fix: {
          touched: [
            { finding: shiftedA, hunks: [{ start: 12, end: 12 }] },
            { finding: D, hunks: [{ start: 40, end: 40 }] },
          ],
        },
      }),
      loop.round({ findings: [], failed: { [SAST]: 'timed_out' } }),
      loop.round({ findings: [] }),
    ];
    expect(results.flatMap(heuristicsOf)).toEqual([]);
  });

  it('given it fired once, when the finding persists one more round, then it does not fire again until another full stretch', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: elsewhere });
    loop.round({ findings: [A], fix: elsewhere });
    expect(heuristicsOf(loop.round({ findings: [A], fix: elsewhere }))).toEqual(['persistent_issue']);
    expect(heuristicsOf(loop.round({ findings: [A], fix: elsewhere }))).toEqual([]);
    expect(heuristicsOf(loop.round({ findings: [A], fix: elsewhere }))).toEqual([]);
    expect(heuristicsOf(loop.round({ findings: [A] }))).toEqual(['persistent_issue']);
  });
});

describe('oscillation', () => {
  it('given a finding present in R, absent in R+1 and back in R+2, when R+2 is in, then oscillation fires with the cycle across findings', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: { touched: [{ finding: A, hunks: [{ start: 10, end: 10 }] }] } });
    loop.round({ findings: [B], fix: { touched: [{ finding: B, hunks: [{ start: 20, end: 20 }] }] } });
    const third = loop.round({ findings: [A] });
    expect(heuristicsOf(third)).toEqual(['oscillation']);
    expect(third.detections[0]?.message).toContain('came back in round 3');
    expect(third.detections[0]?.evidence['cycles']).toEqual([[A.fingerprint, B.fingerprint]]);
  });

  it('given a finding cut from the letter by top-K (still reported), when it is in the next letter again, then it never went away and nothing fires', () => {
    const loop = new Scenario();
    loop.round({ findings: [A, B], fix: { touched: [{ finding: B, hunks: [{ start: 20, end: 20 }] }] } });
    loop.round({
      findings: [A, C],
      letter: [C.fingerprint],
      fix: { touched: [{ finding: C, hunks: [{ start: 30, end: 30 }] }] },
    });
    expect(heuristicsOf(loop.round({ findings: [A] }))).toEqual([]);
  });

  it('given the critic crashed in the middle round, when the finding is reported again, then the crash is not an absence and nothing fires', () => {
    const loop = new Scenario();
    loop.round({ findings: [A, B], fix: { touched: [{ finding: B, hunks: [{ start: 20, end: 20 }] }] } });
    loop.round({ findings: [A], failed: { [LINTER]: 'crashed' }, fix: elsewhere });
    expect(heuristicsOf(loop.round({ findings: [A, C] }))).toEqual([]);
  });

  it('given a round was reverted to the best commit, when what the reverted work had removed comes back, then that is no oscillation', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: { touched: [{ finding: A, hunks: [{ start: 10, end: 10 }] }] } });
    loop.round({ findings: [C, B] });
    const third = loop.round({ findings: [A], retained_best: { best_round: 1 } });
    expect(heuristicsOf(third)).toEqual([]);
    expect(third.history?.retained_best).toMatchObject({ best_round: 1, worse_round: 2 });
  });
});

describe('implementer wall', () => {
  it('given three different attempts on a finding that persists, when the fourth letter still has it, then implementer_wall fires (and persistent_issue waits for it)', () => {
    const loop = new Scenario();
    expect(
      heuristicsOf(loop.round({ findings: [A], fix: { touched: [{ finding: A, hunks: [{ start: 9, end: 10 }] }] } })),
    ).toEqual([]);
    expect(
      heuristicsOf(loop.round({ findings: [A], fix: { touched: [{ finding: A, hunks: [{ start: 10, end: 12 }] }] } })),
    ).toEqual([]);
    expect(
      heuristicsOf(loop.round({ findings: [A], fix: { touched: [{ finding: A, hunks: [{ start: 4, end: 10 }] }] } })),
    ).toEqual([]);
    const fourth = loop.round({ findings: [A] });
    expect(heuristicsOf(fourth)).toEqual(['implementer_wall']);
    expect(fourth.detections[0]?.message).toContain('tried 3 different approaches');
    expect((fourth.detections[0]?.evidence['findings'] as { attempts: unknown[] }[])[0]?.attempts).toHaveLength(3);
  });

  it('given the implementer repeats the same change each round, when the finding persists, then it is a persistent issue, not a wall', () => {
    const loop = new Scenario();
    const same = { touched: [{ finding: A, hunks: [{ start: 10, end: 10 }] }] };
    loop.round({ findings: [A], fix: same });
    loop.round({ findings: [A], fix: same });
    expect(heuristicsOf(loop.round({ findings: [A], fix: same }))).toEqual(['persistent_issue']);
  });

  it('given fix attempts that failed for infrastructure reasons, when the finding persists, then they are not attempts', () => {
    const loop = new Scenario({ persistent_issue: { rounds: 10 } });
    for (let i = 0; i < 4; i += 1) {
      expect(
        heuristicsOf(
          loop.round({
            findings: [A],
            fix: { outcome: 'failed', reason: 'the implementer command timed out after 600000 ms' },
          }),
        ),
      ).toEqual([]);
    }
    expect(loop.memory.trackers[0]?.attempts).toEqual([]);
  });
});

describe('critic disagreement', () => {
  const strict = issue({
    raised_by: LINTER,
    finding_type: 'eslint/eqeqeq',
    file: 'src/a.ts',
    line: 10,
    title: 'use ===',
  });
  const loose = issue({
    raised_by: SAST,
    finding_type: 'review/null-check',
    file: 'src/a.ts',
    line: 10,
    title: 'use == null to catch undefined',
  });

  it('given two critics asking for conflicting fixes on the same lines in one round, when the pair is a known conflict, then the letter surfaces it and nothing escalates yet', () => {
    const loop = new Scenario({ critic_disagreement: { known_conflicts: [['eslint/eqeqeq', 'review/null-*']] } });
    expect(heuristicsOf(loop.round({ findings: [strict, loose], fix: elsewhere }))).toEqual([]);
    expect(loop.memory.disagreements).toHaveLength(1);
  });

  it('given a known-conflict disagreement in one letter, when the same two issues disagree in the next letter (lines moved), then critic_disagreement fires with both asks', () => {
    const loop = new Scenario({ critic_disagreement: { known_conflicts: [['eslint/eqeqeq', 'review/null-*']] } });
    loop.round({ findings: [strict, loose], fix: elsewhere });
    const moved = [
      issue({ raised_by: LINTER, finding_type: 'eslint/eqeqeq', file: 'src/a.ts', line: 12, title: 'use ===' }),
      issue({
        raised_by: SAST,
        finding_type: 'review/null-check',
        file: 'src/a.ts',
        line: 12,
        title: 'use == null to catch undefined',
      }),
    ];
    const second = loop.round({ findings: moved });
    expect(heuristicsOf(second)).toEqual(['critic_disagreement']);
    expect([...(second.detections[0]?.critic_ids ?? [])].sort()).toEqual([LINTER, SAST].sort());
    expect(second.detections[0]?.evidence['sides']).toHaveLength(2);
    expect(second.detections[0]?.evidence['rule']).toBe('known_conflict');
    expect(second.detections[0]?.message).toContain('in the letter before and again in round 2');
  });

  it('given a disagreement in one letter, when the next letter has only one of its sides, then nothing fires', () => {
    const loop = new Scenario({ critic_disagreement: { known_conflicts: [['eslint/eqeqeq', 'review/null-*']] } });
    loop.round({ findings: [strict, loose], fix: elsewhere });
    expect(heuristicsOf(loop.round({ findings: [strict], fix: elsewhere }))).toEqual([]);
    expect(loop.memory.disagreements).toEqual([]);
  });

  it("given fixing one critic's finding brings back the other critic's on the same lines, when the cycle closes, then it is a disagreement, not an oscillation", () => {
    const loop = new Scenario();
    loop.round({ findings: [strict], fix: { touched: [{ finding: strict, hunks: [{ start: 10, end: 10 }] }] } });
    expect(
      heuristicsOf(
        loop.round({ findings: [loose], fix: { touched: [{ finding: loose, hunks: [{ start: 10, end: 10 }] }] } }),
      ),
    ).toEqual([]);
    const third = loop.round({ findings: [strict] });
    expect(heuristicsOf(third)).toEqual(['critic_disagreement']);
    expect(third.detections[0]?.message).toContain('fixing one brought the other back');
    expect(third.detections[0]?.evidence['rule']).toBe('cycle');
  });

  it('given two critics flag the same lines for unrelated reasons, when nothing links them, then no disagreement fires', () => {
    const loop = new Scenario({ critic_disagreement: { known_conflicts: [['eslint/eqeqeq', 'review/null-*']] } });
    const other = issue({ raised_by: SAST, finding_type: 'sast/sql-injection', file: 'src/a.ts', line: 10 });
    expect(heuristicsOf(loop.round({ findings: [strict, other] }))).toEqual([]);
  });
});

describe('flat severity trend (review-loop seed)', () => {
  const at = (n: number, score: number) =>
    issue({ finding_type: `eslint/rule-${n}`, file: `src/f${n}.ts`, line: n, score });

  it('given each round trades its findings for new ones of the same weight, when 3 rounds are flat, then flat_trend fires', () => {
    const loop = new Scenario();
    loop.round({
      findings: [at(1, 8), at(2, 8)],
      fix: { touched: [{ finding: at(1, 8), hunks: [{ start: 1, end: 1 }] }] },
    });
    loop.round({
      findings: [at(2, 8), at(3, 8)],
      fix: { touched: [{ finding: at(2, 8), hunks: [{ start: 2, end: 2 }] }] },
    });
    const third = loop.round({ findings: [at(3, 8), at(4, 8)] });
    expect(heuristicsOf(third)).toEqual(['flat_trend']);
    expect(third.detections[0]?.evidence['slope']).toBe(0);
  });

  it('given severity falls by a point or more a round, when 3 rounds are in, then the trend is not flat', () => {
    const loop = new Scenario();
    loop.round({ findings: [at(1, 10), at(2, 9)], fix: elsewhere });
    loop.round({ findings: [at(2, 9), at(3, 8)], fix: elsewhere });
    expect(heuristicsOf(loop.round({ findings: [at(3, 8), at(4, 7)] }))).toEqual([]);
  });

  it('given the number of findings goes down at the same severity, when 3 rounds are in, then that is progress, not a flat trend', () => {
    const loop = new Scenario();
    loop.round({ findings: [at(1, 8), at(2, 8), at(3, 8)], fix: elsewhere });
    loop.round({ findings: [at(2, 8), at(4, 8)], fix: elsewhere });
    expect(heuristicsOf(loop.round({ findings: [at(5, 8)] }))).toEqual([]);
  });
});

describe('stall (FSM seed) and infra failures', () => {
  it('given the implementer changed nothing in 2 rounds in a row, when the second fix is in, then stall fires', () => {
    const loop = new Scenario();
    expect(heuristicsOf(loop.round({ findings: [A], fix: { outcome: 'no_change' } }))).toEqual([]);
    const second = loop.round({
      findings: [B],
      fix: { outcome: 'failed', reason: 'the implementer command exited with code 1' },
    });
    expect(heuristicsOf(second)).toEqual(['stall']);
    expect(second.detections[0]?.message).toContain('changed nothing in 2 rounds');
  });

  it('given an infra failure between two no-change rounds, when they are in, then the failure counts neither way', () => {
    const loop = new Scenario({ stall: { rounds: 3 }, flat_trend: { rounds: 10 } });
    loop.round({ findings: [A], fix: { outcome: 'no_change' } });
    expect(
      heuristicsOf(
        loop.round({ findings: [B], fix: { outcome: 'failed', reason: 'rate limited (429) by the model API' } }),
      ),
    ).toEqual([]);
    expect(heuristicsOf(loop.round({ findings: [C], fix: { outcome: 'no_change' } }))).toEqual([]);
    expect(loop.memory.history?.fix).toMatchObject({ outcome: 'no_change', infra_failure: false });
  });

  it('given a committed fix between no-change rounds, when they are in, then the count starts again', () => {
    const loop = new Scenario({ flat_trend: { rounds: 10 } });
    loop.round({ findings: [A], fix: { outcome: 'no_change' } });
    loop.round({ findings: [B], fix: { touched: [{ finding: B, hunks: [{ start: 20, end: 20 }] }] } });
    expect(heuristicsOf(loop.round({ findings: [C], fix: { outcome: 'no_change' } }))).toEqual([]);
  });
});

describe('round history', () => {
  it('given the highest score drops by more than 3 between rounds, when the letter is in, then the round is tagged as a key moment', () => {
    const loop = new Scenario();
    loop.round({ findings: [{ ...C, score: 9 }], fix: { touched: [{ finding: C, hunks: [{ start: 30, end: 30 }] }] } });
    const second = loop.round({ findings: [issue({ severity: 'critical', score: 7, line: 40 })], fix: elsewhere });
    expect(second.history?.key_moment).toBeNull();
    const third = loop.round({ findings: [] });
    expect(third.history?.key_moment).toBe('highest severity score dropped from 7 to 0');
  });

  it('given a long loop over the same few findings, when it runs 200 rounds, then the memory stays bounded', () => {
    const loop = new Scenario({ persistent_issue: { rounds: 1000 }, implementer_wall: { attempts: 1000 } });
    for (let r = 0; r < 200; r += 1)
      loop.round({
        findings: r % 2 === 0 ? [A, B] : [A],
        fix: { touched: [{ finding: A, hunks: [{ start: r + 1, end: r + 1 }] }] },
      });
    const size = JSON.stringify(loop.memory).length;
    expect(loop.memory.trackers).toHaveLength(2);
    expect(
      loop.memory.trackers.every(
        (t) =>
          t.segments.length <= loop.config.limits.max_segments_per_finding &&
          t.attempts.length <= loop.config.limits.max_attempts_per_finding,
      ),
    ).toBe(true);
    expect(size).toBeLessThan(40_000);
    // PostgreSQL keeps the memory as jsonb, which refuses NUL characters.
    expect(JSON.stringify(loop.memory)).not.toContain('\\u0000');
  });
});
