import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Finding } from '@rloop/contracts';
import {
  RepoConfigError,
  RepoPolicy,
  TRUSTED_REPO_POLICY,
  applyBaseline,
  applyRepoRules,
  baselineText,
  findDirectives,
  parseRepoConfig,
  repoCriticsOff,
  repoExcludes,
} from '../index.js';
import { readBaseline } from './baseline.js';
import { lineFinding } from '../__fixtures__/finding.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function finding(type: string, line: number, over: Partial<Finding> = {}): Finding {
  return lineFinding('src/a.ts', line, type, {
    id: `f_${type}_${line}`,
    fingerprint: `${line}`
      .repeat(12)
      .slice(0, 12)
      .replace(/[^0-9]/g, '0'),
    location_hash: `${line}`.padStart(16, 'a'),
    title: `${type} at ${line}`,
    ...over,
  });
}

const SCHEMA = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../../schemas/rloop-config.schema.json', import.meta.url)), 'utf8'),
) as object;

describe('.rloop.yaml', () => {
  const valid = [
    'critics:',
    '  toolchain/dependency-audit: off',
    '  quality/code-reviewer: true',
    'rules:',
    '  eslint/prefer-const: low',
    '  "eslint/*": medium',
    'exclude: ["vendor/**", "!vendor/ours/**"]',
    'max_file_bytes: 200000',
    'llm:',
    '  model: claude-sonnet-5-5',
    '',
  ].join('\n');

  it('parses every key, and the committed JSON Schema accepts the same file', () => {
    const config = parseRepoConfig(valid, '.rloop.yaml', ['toolchain/dependency-audit', 'quality/code-reviewer']);
    expect(config).toEqual({
      critics: { 'toolchain/dependency-audit': 'off', 'quality/code-reviewer': true },
      rules: { 'eslint/prefer-const': 'low', 'eslint/*': 'medium' },
      exclude: ['vendor/**', '!vendor/ours/**'],
      max_file_bytes: 200000,
      llm: { model: 'claude-sonnet-5-5' },
    });
    const validate = new Ajv2020({ strict: false }).compile(SCHEMA);
    expect(validate(config)).toBe(true);
    expect(validate({ rules: { 'eslint/prefer-const': 'loud' } })).toBe(false);
  });

  it.each([
    ['critcs:\n  a/b: off\n', /\.rloop\.yaml: .*critcs|Unrecognized key.*critcs/],
    ['rules:\n  eslint/prefer-const: loud\n', /\.rloop\.yaml: rules\.eslint\/prefer-const: /],
    ['max_file_bytes: lots\n', /\.rloop\.yaml: max_file_bytes: /],
    ['critics:\n  no/such-critic: off\n', /\.rloop\.yaml: critics\.no\/such-critic: no critic has this id/],
    ['rules: [unclosed\n', /\.rloop\.yaml: not valid YAML/],
    ['llm:\n  model: claude\n  temperature: 2\n', /\.rloop\.yaml: .*temperature/],
  ])('refuses %j with an error naming the key', (text, message) => {
    let error: unknown;
    try {
      parseRepoConfig(text, '.rloop.yaml', ['toolchain/dependency-audit']);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RepoConfigError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('applyRepoRules within the operator policy', () => {
  const config = parseRepoConfig(
    'rules:\n  eslint/prefer-const: low\n  eslint/no-console: "off"\n  "sast/*": critical\n',
    '.rloop.yaml',
  );
  const findings = [
    finding('eslint/prefer-const', 1, { tool_severity: 'warning' }),
    finding('eslint/prefer-const', 2),
    finding('eslint/no-console', 3),
    finding('sast/xss', 4, { severity: 'medium', score: 5 }),
  ];

  it('trusted (rloop review): moves severities and dismisses rules that are off, keeping the tool level', () => {
    const result = applyRepoRules(findings, {
      config,
      source: '.rloop.yaml',
      policy: TRUSTED_REPO_POLICY,
      directives: [],
      today: '2026-11-30',
    });
    expect(result.findings.map((f) => [f.finding_type, f.severity, f.score, f.tool_severity])).toEqual([
      ['eslint/prefer-const', 'low', 2, 'warning'],
      ['eslint/prefer-const', 'low', 2, undefined],
      ['sast/xss', 'critical', 8, undefined],
    ]);
    expect(result.suppressed).toEqual([
      expect.objectContaining({
        finding_type: 'eslint/no-console',
        kind: 'config',
        source: '.rloop.yaml rules.eslint/no-console',
        reason: 'rule eslint/no-console is off in .rloop.yaml',
      }),
    ]);
    expect(result.overrides).toEqual(['eslint/prefer-const → low (2 findings)', 'sast/* → critical (1 finding)']);
    expect(result.refused).toEqual([]);
  });

  it('raise_only (the fleet default): raising applies, lowering and off are refused and said so', () => {
    const policy = RepoPolicy.parse({});
    const result = applyRepoRules(findings, {
      config,
      source: '.rloop.yaml',
      policy,
      directives: [],
      today: '2026-11-30',
    });
    expect(result.findings.map((f) => f.severity)).toEqual(['critical', 'critical', 'critical', 'critical']);
    expect(result.suppressed).toEqual([]);
    expect(result.refused).toEqual([
      ".rloop.yaml rules.eslint/prefer-const: low — the operator's policy lets a repository only raise severities",
      ".rloop.yaml rules.eslint/no-console: off — the operator's policy lets a repository only raise severities",
    ]);
  });

  it('inline suppressions off by policy: nothing is dismissed, and the refusal is listed', () => {
    const policy = RepoPolicy.parse({ inline_suppressions: false });
    const directives = findDirectives('src/a.ts', '// rloop-ignore sast/xss -- fine\n\n\nx');
    const result = applyRepoRules([finding('sast/xss', 2)], {
      config: {},
      source: '.rloop.yaml',
      policy,
      directives,
      today: '2026-11-30',
    });
    expect(result.findings).toHaveLength(1);
    expect(result.refused).toEqual([
      "1 rloop-ignore comment(s): the operator's policy does not let a repository dismiss findings inline",
    ]);
  });

  it('never lets a repository switch off a core critic, and others only when the policy lists them', () => {
    const wants = parseRepoConfig(
      'critics:\n  security/sast-scanner: off\n  toolchain/dependency-audit: off\n  toolchain/dependency-eol: false\n',
      '.rloop.yaml',
    );
    const policy = RepoPolicy.parse({ critics_off: ['toolchain/dependency-audit', 'security/sast-scanner'] });
    const core = new Set(['security/sast-scanner']);
    expect(repoCriticsOff(wants, '.rloop.yaml', policy, core, false)).toEqual({
      off: ['toolchain/dependency-audit'],
      refused: [
        '.rloop.yaml critics.security/sast-scanner: off — a core critic always runs',
        ".rloop.yaml critics.toolchain/dependency-eol: off — the operator's policy does not let a repository switch it off",
      ],
    });
    expect(repoExcludes({ exclude: ['x/**'] }, '.rloop.yaml', RepoPolicy.parse({ excludes: false })).refused).toEqual([
      ".rloop.yaml exclude/max_file_bytes: the operator's policy does not let a repository leave files out",
    ]);
  });
});

describe('baseline', () => {
  it('matches findings by their line-shift-proof hash, one entry per finding, and refuses a foreign file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rloop-baseline-'));
    try {
      const accepted = [finding('eslint/no-eval', 10), finding('sast/xss', 20)];
      const path = join(dir, 'baseline.json');
      writeFileSync(path, baselineText(accepted, new Date('2026-11-30T00:00:00Z')));
      // The same two problems three lines further down (same flagged text, new fingerprints), plus a second copy of one and a new one.
      const later = [
        finding('eslint/no-eval', 13, { location_hash: accepted[0]?.location_hash ?? '', fingerprint: 'aaaaaaaaaaaa' }),
        finding('sast/xss', 23, { location_hash: accepted[1]?.location_hash ?? '', fingerprint: 'bbbbbbbbbbbb' }),
        finding('sast/xss', 40, { location_hash: accepted[1]?.location_hash ?? '', fingerprint: 'cccccccccccc' }),
        finding('sast/sql-injection', 50),
      ];
      const { kept, suppressed } = applyBaseline(later, readBaseline(path), 'baseline.json');
      expect(kept.map((f) => f.line_range.start)).toEqual([40, 50]);
      expect(suppressed.map((s) => [s.line, s.kind, s.source])).toEqual([
        [13, 'baseline', 'baseline.json'],
        [23, 'baseline', 'baseline.json'],
      ]);
      writeFileSync(path, '{"version": 2}');
      expect(() => readBaseline(path)).toThrow(/not a baseline written by rloop review --write-baseline/);
      expect(() => readBaseline(join(dir, 'missing.json'))).toThrow(/cannot read the baseline/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
