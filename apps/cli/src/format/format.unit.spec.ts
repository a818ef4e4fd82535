import { describe, expect, it } from '@jest/globals';
import type { Finding, Letter } from '@rloop/contracts';
import { finding, letterOf } from './letters.test-helpers.js';
import { renderGithubAnnotations } from './github-annotations.js';
import { renderGitlabCodeQuality } from './gitlab.js';
import type { ReviewReport } from './report.js';
import { renderStylish } from './stylish.js';
import { colourWanted, palette } from './terminal.js';

const FINDINGS: Finding[] = [
  finding({
    related_locations: [{ file: 'src/app.js', line_range: { start: 2, end: 2 }, note: 'taint source: req.query.code' }],
  }),
  finding({
    id: 'f_2',
    fingerprint: '0123456789ac',
    severity: 'critical',
    category: 'maintainability',
    finding_type: 'eslint/prefer-const',
    raised_by: 'toolchain/compiler-linter',
    line_range: { start: 3, end: 3 },
    column: 5,
    end_column: 9,
    tool_severity: 'warning',
    title: "ESLint prefer-const: 'port' is never reassigned. Use 'const' instead.",
  }),
  finding({
    id: 'f_3',
    fingerprint: '0123456789ad',
    severity: 'medium',
    score: 5,
    category: 'maintainability',
    finding_type: 'duplicate/against-repo',
    raised_by: 'quality/duplicate-code-detector',
    file: 'lib/util.js',
    line_range: { start: 10, end: 30 },
    title: 'Duplicated block',
    related_locations: [{ file: 'lib/other.js', line_range: { start: 40, end: 60 }, note: 'other copy' }],
  }),
];

function report(l: Letter, over: Partial<ReviewReport> = {}): ReviewReport {
  return {
    letter: l,
    failOn: 'critical',
    notes: ['LLM review is off: ANTHROPIC_API_KEY is not set.'],
    verbose: false,
    toolVersion: '0.1.0',
    filesReviewed: 4,
    ...over,
  };
}

describe('stylish', () => {
  it('groups by file with line:col, tier and tool level, the message, the rule, and a second line where it helps', () => {
    const text = renderStylish(report(letterOf(FINDINGS)), palette(false));
    expect(text).toBe(
      [
        'lib/util.js',
        '  10:1  medium    Duplicated block  duplicate/against-repo',
        '        other copy: lib/other.js:40-60',
        '',
        'src/app.js',
        "  3:5  critical  warning  'port' is never reassigned. Use 'const' instead.  eslint/prefer-const",
        '  5:1  critical           Code injection: request input reaches eval  sast/code-injection',
        '       path: req.query.code (src/app.js:2) → here (src/app.js:5)',
        '',
        '✖ 3 findings (2 critical, 1 medium, 0 low) in 2 files · 4 files reviewed · 1 check',
        '  2 findings at critical or above fail the review (--fail-on critical).',
        '  Each finding shows its tier, then the tool’s own level; tool warnings rank as critical, since a review is clean only at zero warnings.',
        '  LLM review is off: ANTHROPIC_API_KEY is not set.',
        '',
      ].join('\n'),
    );
  });

  it('shows a code excerpt with --verbose, and a clean review in one line', () => {
    const lines = ['', 'const express = require("express");', 'let port = 3000;'];
    const verbose = renderStylish(
      report(letterOf([FINDINGS[1] as Finding]), { verbose: true, readLines: () => lines }),
      palette(false),
    );
    expect(verbose).toContain('       3 | let port = 3000;');
    const clean = renderStylish(report(letterOf([]), { notes: [] }), palette(false));
    expect(clean).toBe(
      '✔ no findings · 4 files reviewed · 1 check\n  Nothing at critical or above (--fail-on critical).\n',
    );
  });

  it('escapes control characters and bidi overrides from file names and messages', () => {
    const hostile = finding({ file: 'src/\u001b[2Jevil.js', title: 'boom\u001b]0;pwned\u0007 \u202eevil\r\nnext' });
    const text = renderStylish(report(letterOf([hostile])), palette(false));
    for (const raw of ['\u001b', '\u0007', '\u202e', '\r']) expect(text).not.toContain(raw);
    expect(text).toContain('src/\\x1b[2Jevil.js');
    expect(text).toContain('boom\\x1b]0;pwned\\x07 \\u202eevil\\r\\nnext');
    // A code excerpt keeps its indentation (tabs) but not its escapes.
    const excerpt = renderStylish(
      report(letterOf([finding({ line_range: { start: 1, end: 1 } })]), {
        verbose: true,
        readLines: () => ['\tconst a = "\u001b[2J";'],
      }),
      palette(false),
    );
    expect(excerpt).toContain('1 | \tconst a = "\\x1b[2J";');
  });

  it('says which files under review a check could not analyse (never the excluded ones), and names a repeated shape as such', () => {
    const coverage = {
      considered: 2,
      analysed: 1,
      unsupported: 0,
      skipped: [
        { file: 'src/big.js', reason: 'too_large' as const, detail: '5000000 bytes, over the 4194304-byte bound' },
      ],
      skipped_total: 1,
      max_file_bytes: 4_194_304,
      max_file_bytes_configured: false,
    };
    const shape = finding({
      severity: 'low',
      score: 2,
      category: 'maintainability',
      finding_type: 'duplicate/repeated-shape',
      raised_by: 'quality/duplicate-code-detector',
      title: '3 interfaces share one shape',
      related_locations: [{ file: 'src/b.ts', line_range: { start: 1, end: 4 }, note: 'same shape: B' }],
    });
    const letter = letterOf([shape], {
      complete: false,
      critics: [
        {
          critic_id: 'security/sast-scanner',
          core: true,
          outcome: 'reported',
          findings_total: 0,
          findings_kept: 0,
          coverage,
        },
      ],
      repo_config: { config: '.rloop.yaml', excluded_files: 3, overrides: [], refused: [] },
    });
    const lines = renderStylish(report(letter, { filesReviewed: 2, filesExcluded: 3 }), palette(false)).split('\n');
    expect(lines[2]).toBe('       same shape: src/b.ts:1-4');
    expect(lines.find((l) => l.startsWith('! '))).toMatch(
      /^! 1 finding \(0 critical, 0 medium, 1 low\) in 1 file · 2 files reviewed · 3 excluded · 1 check$/,
    );
    expect(lines.filter((l) => l.includes('not analysed'))).toEqual([
      '  not analysed: src/big.js (too large: 5000000 bytes, over the 4194304-byte bound) by security/sast-scanner',
    ]);
  });

  it("shows the new checks' own levels (a language tool, an advisory) and how many findings have a mechanical fix, by kind", () => {
    const fixes = [
      finding({
        id: 'f_4',
        fingerprint: '0123456789b1',
        finding_type: 'eslint/prefer-const',
        raised_by: 'toolchain/compiler-linter',
        tool_severity: 'warning',
        fixable: true,
        autofix: 'eslint',
        title: 'ESLint prefer-const: use const',
      }),
      finding({
        id: 'f_5',
        fingerprint: '0123456789b2',
        finding_type: 'deprecation/Buffer',
        raised_by: 'toolchain/compiler-linter',
        line_range: { start: 7, end: 7 },
        tool_severity: 'warning',
        fixable: true,
        autofix: 'codemod',
        title: 'Deprecated API: Buffer',
      }),
      finding({
        id: 'f_6',
        fingerprint: '0123456789b3',
        finding_type: 'tsc/TS2322',
        raised_by: 'toolchain/compiler-linter',
        line_range: { start: 9, end: 9 },
        tool_severity: 'error',
        autofix: 'none',
        title: 'TS2322: no',
      }),
      finding({
        id: 'f_7',
        fingerprint: '0123456789b4',
        finding_type: 'shellcheck/SC2164',
        raised_by: 'toolchain/shell',
        file: 'deploy.sh',
        line_range: { start: 2, end: 2 },
        tool_severity: 'warning',
        title: 'SC2164: Use cd ... || exit',
      }),
      finding({
        id: 'f_8',
        fingerprint: '0123456789b5',
        finding_type: 'cve/GHSA-vh95-rmgr-6w4m',
        raised_by: 'toolchain/dependency-audit',
        file: 'package.json',
        line_range: { start: 3, end: 3 },
        tool_severity: 'high',
        title: 'mkdirp 0.5.1: Prototype Pollution',
      }),
    ];
    const text = renderStylish(report(letterOf(fixes), { notes: [] }), palette(false));
    expect(text).toContain('  2:1  critical  warning  Use cd ... || exit  shellcheck/SC2164');
    expect(text).toContain('  3:1  critical  high  mkdirp 0.5.1: Prototype Pollution  cve/GHSA-vh95-rmgr-6w4m');
    expect(text).toContain(
      "  2 findings can be fixed mechanically: 1 by `eslint --fix`; 1 by rloop's codemods, which the fleet's autofix strategy applies.\n",
    );
    // autofix `none` (or absent) is nothing to announce.
    expect(renderStylish(report(letterOf([fixes[2] as Finding]), { notes: [] }), palette(false))).not.toContain(
      'mechanically',
    );
  });

  it('colours only when wanted: FORCE_COLOR wins, then NO_COLOR, then whether it is a terminal', () => {
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '' }, true)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '1', NO_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(renderStylish(report(letterOf(FINDINGS)), palette(true))).toContain('\u001b[31mcritical');
    expect(renderStylish(report(letterOf(FINDINGS)), palette(false))).not.toContain('\u001b[');
  });
});

describe('github and gitlab formats', () => {
  it('writes one workflow command per finding, escaping what would end the command or start another', () => {
    const hostile = finding({
      file: 'src/a,b:c.js',
      title: 'line one\n::set-env name=X::1 100%',
      tool_severity: 'error',
      column: 3,
      end_column: 7,
    });
    const text = renderGithubAnnotations(report(letterOf([hostile, FINDINGS[2] as Finding])));
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '::error file=src/a%2Cb%3Ac.js,line=5,endLine=5,col=3,endColumn=7,title=sast/code-injection (critical%2C error)::line one%0A::set-env name=X::1 100%25%0AThe input is never evaluated.',
    );
    expect(lines[1]).toMatch(
      /^::warning file=lib\/util.js,line=10,endLine=30,title=duplicate\/against-repo \(medium\)::Duplicated block%0A.*%0ARelated: other copy \(lib\/other.js:40-60\)$/,
    );
  });

  it("writes GitLab's code quality report", () => {
    expect(JSON.parse(renderGitlabCodeQuality(report(letterOf([FINDINGS[2] as Finding]))))).toEqual([
      {
        description: 'Duplicated block',
        check_name: 'duplicate/against-repo',
        fingerprint: '0123456789abcdef',
        severity: 'major',
        location: { path: 'lib/util.js', lines: { begin: 10, end: 30 } },
      },
    ]);
  });
});
