import { describe, expect, it } from '@jest/globals';
import { criticDisagreement, knownConflicts } from './critic-disagreement.js';
import { config, ref, tracker } from './tracker.test-helpers.js';

const conflicts = { ...config, critic_disagreement: { known_conflicts: [['eslint/eqeqeq', 'null-check/*']] as [string, string][] } };
const eqeqeq = ref('a', { finding_type: 'eslint/eqeqeq', raised_by: 'toolchain/compiler-linter' });
const nullCheck = ref('b', { finding_type: 'null-check/loose', raised_by: 'quality/code-reviewer', line_range: { start: 11, end: 11 } });

describe('critic_disagreement', () => {
  it('given two critics whose finding types are a known conflict on overlapping lines, when the letter is in, then it fires with both sides', () => {
    const trackers = [tracker('a'), tracker('b')];
    const firing = criticDisagreement({ letter: [eqeqeq, nullCheck], cycles: [], trackers, keyOf: (r) => (r.id === 'a' ? trackers[0]?.key : trackers[1]?.key), round: 2 }, conflicts);
    expect(firing).toMatchObject({ heuristic: 'critic_disagreement', trackers, evidence: { rule: 'known_conflict', round: 2, sides: [{ critic_id: 'toolchain/compiler-linter' }, { critic_id: 'quality/code-reviewer' }] } });
    expect(firing?.message).toMatch(/^toolchain\/compiler-linter \(eslint\/eqeqeq\) and quality\/code-reviewer \(null-check\/loose\) ask for conflicting changes on src\/a.ts:10-12; .*a person decides\.$/);
  });

  it('given the same pair on lines that do not overlap, when checked, then it is no conflict', () => {
    expect(knownConflicts([eqeqeq, { ...nullCheck, line_range: { start: 40, end: 41 } }], conflicts)).toEqual([]);
  });

  it('given the same pair from one critic, when checked, then it is no conflict', () => {
    expect(knownConflicts([eqeqeq, { ...nullCheck, raised_by: eqeqeq.raised_by }], conflicts)).toEqual([]);
  });

  it('given fixing one critic brought back the other on the same region (a cycle), when checked, then it fires by the cycle rule', () => {
    const a = tracker('a');
    const b = tracker('b', { critic_id: 'security/sast-scanner', line_range: { start: 12, end: 12 } });
    const firing = criticDisagreement({ letter: [], cycles: [[a, b]], trackers: [a, b], keyOf: () => undefined, round: 5 }, config);
    expect(firing).toMatchObject({ evidence: { rule: 'cycle' }, trackers: [a, b] });
    expect(firing?.message).toContain('— fixing one brought the other back');
  });

  it('given no known conflict and no cycle, when checked, then nothing fires', () => {
    expect(criticDisagreement({ letter: [eqeqeq, nullCheck], cycles: [], trackers: [], keyOf: () => undefined, round: 2 }, config)).toBeNull();
  });
});
