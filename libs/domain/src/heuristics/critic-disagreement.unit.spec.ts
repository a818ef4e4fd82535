import { describe, expect, it } from '@jest/globals';
import type { Letter } from '@rloop/contracts';
import { finding, letterFor } from '../testing/builders.test-helpers.js';
import { criticDisagreement, repeatedDisagreements } from './critic-disagreement.js';
import { config, ref, tracker } from './tracker.test-helpers.js';

const eqeqeq = ref('a', { finding_type: 'eslint/eqeqeq', raised_by: 'toolchain/compiler-linter' });
const nullCheck = ref('b', {
  finding_type: 'null-check/loose',
  raised_by: 'quality/code-reviewer',
  line_range: { start: 11, end: 11 },
});

/** A letter whose synthesizer found one disagreement between findings `x` and `y`. */
function disagreeingLetter(round: number, x: string, y: string): Letter {
  const findings = [
    finding({ id: x, raised_by: 'toolchain/compiler-linter', finding_type: 'eslint/eqeqeq' }),
    finding({ id: y, raised_by: 'quality/code-reviewer', finding_type: 'null-check/loose' }),
  ];
  return {
    ...letterFor(round, 'critical', findings),
    disagreements: [
      {
        file: 'src/index.ts',
        line_range: { start: 3, end: 3 },
        finding_ids: [x, y],
        critic_ids: ['toolchain/compiler-linter', 'quality/code-reviewer'],
        note: 'conflict',
      },
    ],
  };
}

describe('critic_disagreement', () => {
  it('given a disagreement the letter before had too, when the letter is in, then it fires with both sides', () => {
    const trackers = [tracker('a'), tracker('b')];
    const firing = criticDisagreement(
      {
        repeated: [[eqeqeq, nullCheck]],
        cycles: [],
        trackers,
        keyOf: (r) => (r.id === 'a' ? trackers[0]?.key : trackers[1]?.key),
        round: 2,
      },
      config,
    );
    expect(firing).toMatchObject({
      heuristic: 'critic_disagreement',
      trackers,
      evidence: {
        rule: 'known_conflict',
        round: 2,
        sides: [{ critic_id: 'toolchain/compiler-linter' }, { critic_id: 'quality/code-reviewer' }],
      },
    });
    expect(firing?.message).toMatch(
      /^toolchain\/compiler-linter \(eslint\/eqeqeq\) and quality\/code-reviewer \(null-check\/loose\) ask for conflicting changes on src\/a.ts:10-12 — in the letter before and again in round 2's; .*a person decides\.$/,
    );
  });

  it('given a letter disagreement first seen, when checked, then it is remembered and not repeated', () => {
    const result = repeatedDisagreements(disagreeingLetter(1, 'f-1', 'f-2'), { 'f-1': 'k1', 'f-2': 'k2' }, []);
    expect(result).toEqual({ pairs: [], keys: ['k1 k2'] });
  });

  it('given the same two issues disagree in the next letter (other finding ids, same trackers), when checked, then the pair repeats', () => {
    const result = repeatedDisagreements(disagreeingLetter(2, 'g-1', 'g-2'), { 'g-1': 'k2', 'g-2': 'k1' }, ['k1 k2']);
    expect(result.keys).toEqual(['k1 k2']);
    expect(result.pairs.map(([a, b]) => [a.id, b.id])).toEqual([['g-1', 'g-2']]);
  });

  it('given a disagreement whose side has no tracker, when checked, then it is neither remembered nor repeated', () => {
    expect(repeatedDisagreements(disagreeingLetter(2, 'g-1', 'g-2'), { 'g-1': 'k1' }, ['k1 k2'])).toEqual({
      pairs: [],
      keys: [],
    });
  });

  it('given fixing one critic brought back the other on the same region (a cycle), when checked, then it fires by the cycle rule', () => {
    const a = tracker('a');
    const b = tracker('b', { critic_id: 'security/sast-scanner', line_range: { start: 12, end: 12 } });
    const firing = criticDisagreement(
      { repeated: [], cycles: [[a, b]], trackers: [a, b], keyOf: () => undefined, round: 5 },
      config,
    );
    expect(firing).toMatchObject({ evidence: { rule: 'cycle' }, trackers: [a, b] });
    expect(firing?.message).toContain('— fixing one brought the other back');
  });

  it('given no repeated disagreement and no cycle, when checked, then nothing fires', () => {
    expect(
      criticDisagreement({ repeated: [], cycles: [], trackers: [], keyOf: () => undefined, round: 2 }, config),
    ).toBeNull();
  });
});
