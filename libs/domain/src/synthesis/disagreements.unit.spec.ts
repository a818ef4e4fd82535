import { describe, expect, it } from '@jest/globals';
import { Letter } from '@rloop/contracts';
import { renderLetterMarkdown } from '../letter/markdown.js';
import { finding } from '../testing/builders.test-helpers.js';
import { DEFAULT_KNOWN_CONFLICTS, findDisagreements, isKnownConflict } from './disagreements.js';
import { synthesizeLetter } from './synthesize.js';

const DUPLICATE = 'quality/duplicate-code-detector';
const COMPLEXITY = 'quality/complexity';
const REVIEWER = 'quality/code-reviewer';

const duplicated = finding({
  id: 'dup',
  raised_by: DUPLICATE,
  finding_type: 'duplicate/within-change',
  severity: 'medium',
  score: 5,
  category: 'maintainability',
  file: 'src/pricing.js',
  line_range: { start: 3, end: 20 },
  expected_behaviour: 'The repeated logic exists once.',
});
const complex = finding({
  id: 'cx',
  raised_by: COMPLEXITY,
  finding_type: 'complexity/function',
  severity: 'medium',
  score: 5,
  category: 'maintainability',
  file: 'src/pricing.js',
  line_range: { start: 1, end: 22 },
  expected_behaviour: 'priceOf is split into smaller functions.',
});
const inline = finding({
  id: 'perf',
  raised_by: REVIEWER,
  finding_type: 'llm/inline-for-performance',
  severity: 'medium',
  score: 5,
  category: 'performance',
  file: 'src/pricing.js',
  line_range: { start: 10, end: 12 },
});

describe('critic disagreements (same round, overlapping lines, a known conflict)', () => {
  it('given the shipped table, when duplication meets a performance inlining or a complexity split, then each is a known conflict in either order', () => {
    expect(isKnownConflict(DEFAULT_KNOWN_CONFLICTS, 'duplicate/within-change', 'llm/inline-for-performance')).toBe(
      true,
    );
    expect(isKnownConflict(DEFAULT_KNOWN_CONFLICTS, 'complexity/function', 'duplicate/against-repo')).toBe(true);
    expect(isKnownConflict(DEFAULT_KNOWN_CONFLICTS, 'llm/api-compatibility', 'sast/sql-injection')).toBe(true);
    expect(isKnownConflict(DEFAULT_KNOWN_CONFLICTS, 'llm/inline-for-readability', 'complexity/function')).toBe(true);
    expect(isKnownConflict(DEFAULT_KNOWN_CONFLICTS, 'sast/sql-injection', 'secret/aws-access-key')).toBe(false);
  });

  it('given two critics whose finding types conflict on overlapping lines, when looked for, then one disagreement names both findings, both critics and both asks', () => {
    const [found, ...rest] = findDisagreements([duplicated, complex], DEFAULT_KNOWN_CONFLICTS);
    expect(rest).toEqual([]);
    expect(found).toMatchObject({
      file: 'src/pricing.js',
      line_range: { start: 1, end: 22 },
      finding_ids: ['dup', 'cx'],
      critic_ids: [DUPLICATE, COMPLEXITY],
    });
    expect(found?.note).toContain('The repeated logic exists once.');
    expect(found?.note).toContain('priceOf is split into smaller functions.');
  });

  it('given conflicting types on lines that do not overlap, in other files, or from one critic, when looked for, then there is no disagreement', () => {
    const apart = { ...inline, line_range: { start: 30, end: 31 } };
    const otherFile = { ...inline, file: 'src/other.js' };
    const sameCritic = { ...complex, raised_by: DUPLICATE };
    expect(findDisagreements([duplicated, apart], DEFAULT_KNOWN_CONFLICTS)).toEqual([]);
    expect(findDisagreements([duplicated, otherFile], DEFAULT_KNOWN_CONFLICTS)).toEqual([]);
    expect(findDisagreements([duplicated, sameCritic], DEFAULT_KNOWN_CONFLICTS)).toEqual([]);
  });

  it('given an empty table, when looked for, then nothing is a disagreement', () => {
    expect(findDisagreements([duplicated, complex, inline], [])).toEqual([]);
  });

  it('given a round with conflicting findings, when the synthesizer writes the letter, then letter.disagreements holds them, the summary and the Markdown say so, and the letter is valid', () => {
    const letter = synthesizeLetter({
      letter_id: 'd_letter00000001',
      plan: 'add-billing',
      run_id: '01JRUN0000000000000000000A',
      round: 2,
      phase: 'medium',
      k: 5,
      commit: 'a'.repeat(40),
      created_at: '2026-11-30T10:00:00.000Z',
      reports: [
        { critic_id: DUPLICATE, core: true, outcome: 'reported', findings: [duplicated] },
        { critic_id: COMPLEXITY, core: false, outcome: 'reported', findings: [complex] },
      ],
      known_conflicts: DEFAULT_KNOWN_CONFLICTS,
    });
    expect(letter.disagreements).toHaveLength(1);
    expect(letter.disagreements[0]?.critic_ids.sort()).toEqual([COMPLEXITY, DUPLICATE]);
    expect(letter.summary).toContain('1 disagreement between critics');
    expect(renderLetterMarkdown(letter)).toMatch(
      /quality\/(duplicate-code-detector|complexity) vs quality\/(complexity|duplicate-code-detector)/,
    );
    expect(Letter.safeParse(letter).error?.issues ?? []).toEqual([]);
  });
});
