import { describe, expect, it } from '@jest/globals';
import type { Finding } from '@rloop/contracts';
import { applyInlineSuppressions, findDirectives } from '../index.js';
import { lineFinding } from '../__fixtures__/finding.js';

function finding(over: Partial<Finding> & Pick<Finding, 'file' | 'finding_type'> & { line: number }): Finding {
  const { line, ...rest } = over;
  return lineFinding(over.file, line, over.finding_type, {
    id: `f_${line}`,
    category: 'security',
    raised_by: 'security/sast-scanner',
    title: 'a finding',
    ...rest,
  });
}

describe('findDirectives', () => {
  it('reads the comment in any language, with targets, reason and date', () => {
    const text = [
      'eval(x); // rloop-ignore sast/code-injection -- only our own templates reach here',
      '# rloop-ignore security/secrets-detector until=2027-03-31 -- test key, rotated in March',
      '/* rloop-ignore eslint/*,tsc/TS2345 -- generated code */',
      '<!-- rloop-ignore db/unindexed-foreign-key -- tiny table until=2026-01-01 -->',
      "const key = 'x'; // rloop-ignore-secret (the secrets critic's own marker, not ours)",
    ].join('\n');
    expect(findDirectives('src/a.ts', text)).toEqual([
      {
        file: 'src/a.ts',
        line: 1,
        targets: ['sast/code-injection'],
        reason: 'only our own templates reach here',
        until: null,
        problem: null,
      },
      {
        file: 'src/a.ts',
        line: 2,
        targets: ['security/secrets-detector'],
        reason: 'test key, rotated in March',
        until: '2027-03-31',
        problem: null,
      },
      {
        file: 'src/a.ts',
        line: 3,
        targets: ['eslint/*', 'tsc/TS2345'],
        reason: 'generated code',
        until: null,
        problem: null,
      },
      {
        file: 'src/a.ts',
        line: 4,
        targets: ['db/unindexed-foreign-key'],
        reason: 'tiny table',
        until: '2026-01-01',
        problem: null,
      },
    ]);
  });

  it('names what is wrong with a comment that cannot work', () => {
    const problems = findDirectives(
      'a.py',
      [
        'x = 1  # rloop-ignore sast/xss',
        '# rloop-ignore -- why',
        '# rloop-ignore sast/xss until=2026-02-30 -- why',
        '# rloop-ignore <rule> -- why',
      ].join('\n'),
    ).map((d) => d.problem);
    expect(problems).toEqual([
      expect.stringMatching(/gives no reason/),
      expect.stringMatching(/names no rule or critic/),
      expect.stringMatching(/until=2026-02-30, which is not a date/),
      expect.stringMatching(/names "<rule>", which is not a rule or critic id/),
    ]);
  });

  it('ignores the syntax quoted in prose and in documentation files', () => {
    expect(findDirectives('src/a.ts', 'const help = "write `rloop-ignore <rule> -- <reason>`";')).toEqual([]);
    expect(findDirectives('README.md', '// rloop-ignore eslint/no-eval -- shown as an example')).toEqual([]);
  });
});

describe('applyInlineSuppressions', () => {
  const directives = findDirectives(
    'src/a.ts',
    [
      '// rloop-ignore sast/code-injection -- sandboxed',
      'eval(a);',
      'eval(b); // rloop-ignore security/sast-scanner -- whole critic, on the line itself',
      '// rloop-ignore sast/xss -- no reason needed? yes it is given',
      'send(c);',
      '// rloop-ignore sast/code-injection until=2026-01-01 -- expired',
      'eval(d);',
      '// rloop-ignore sast/*',
      'eval(e);',
      '// rloop-ignore sast/sql-injection -- nothing here any more',
      'ok();',
    ].join('\n'),
  );
  const findings = [
    finding({ file: 'src/a.ts', finding_type: 'sast/code-injection', line: 2 }),
    finding({ file: 'src/a.ts', finding_type: 'sast/code-injection', line: 3 }),
    finding({ file: 'src/a.ts', finding_type: 'sast/code-injection', line: 5 }),
    finding({ file: 'src/a.ts', finding_type: 'sast/code-injection', line: 7 }),
    finding({ file: 'src/a.ts', finding_type: 'sast/code-injection', line: 9 }),
  ];

  it('dismisses a finding on the comment line or the line after, by rule, glob or critic, and records why', () => {
    const result = applyInlineSuppressions(findings, directives, { today: '2026-11-30', inScope: () => true });
    expect(result.suppressed.map((s) => [s.line, s.kind, s.reason, s.source])).toEqual([
      [2, 'inline', 'sandboxed', 'src/a.ts:1'],
      [3, 'inline', 'whole critic, on the line itself', 'src/a.ts:3'],
    ]);
    // The xss comment matches no finding of its rule; the expired and reasonless ones do not apply.
    expect(result.kept.map((f) => f.line_range.start)).toEqual([5, 7, 9]);
    expect(result.problems.map((p) => [p.kind, p.directive.line])).toEqual([
      ['expired', 6],
      ['invalid', 8],
      ['unused', 4],
      ['unused', 10],
    ]);
  });

  it('does not call a comment unused when its target was not reviewed', () => {
    const result = applyInlineSuppressions(findings, directives, {
      today: '2026-11-30',
      inScope: (d) => !d.targets.includes('sast/sql-injection'),
    });
    expect(result.problems.filter((p) => p.kind === 'unused').map((p) => p.directive.line)).toEqual([4]);
  });
});
