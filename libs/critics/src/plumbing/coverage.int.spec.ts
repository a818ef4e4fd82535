import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CriticCoverage } from '@rloop/contracts';
import {
  type CoverageSource,
  type CriticDefinition,
  type CriticRunResult,
  DEFAULT_MAX_FILE_BYTES,
  builtInCritics,
  defineCritic,
  draftFinding,
  reviewRepositoryWithRuns,
  runCritic,
} from '../index.js';

// Every critic says what it covered of the files under review, from what it really read: a file
// it supports and did not read, or could not read, is never counted as reviewed. The checkout sits
// where the fleet puts it in the README's layout: under `.rloop/` in a project's git tree.

/** What lies outside the checkout, behind committed links: it must never reach a report. */
const MARKER = 'rootSecretMarker4711';
/** Its first characters: an error message may quote only the start of a file (JSON.parse quotes ten). */
const LEAK = MARKER.slice(0, 10);
const AWS_KEY = 'AKIAZ7QRST2UVWXY3ABC';
const PAD = `// ${'x'.repeat(DEFAULT_MAX_FILE_BYTES)}\n`;

const FILES: Readonly<Record<string, string>> = {
  'src/server.js':
    "import { exec } from 'node:child_process';\nexport function list(req, res) {\n  exec('ls ' + req.query.dir, (e, out) => res.send(out));\n}\n",
  'src/util.ts': 'export function double(n: number): number {\n  return n * 2;\n}\n',
  'src/app.min.js': `export const bundle = ${JSON.stringify('y'.repeat(5_000))};\n`,
  // The padded file: an AWS key, a type error and an eval behind more than the bound.
  'src/padded.ts': `${PAD}const key = '${AWS_KEY}';\nconst n: number = 'text';\nexport const run = (req: { query: { code: string } }) => eval(req.query.code);\n`,
  'config/app.env': `AWS_ACCESS_KEY_ID=${AWS_KEY}\n`,
  'migrations/001_users.up.sql': 'CREATE TABLE users (id int primary key);\n',
  'migrations/001_users.down.sql': 'DROP TABLE users;\n',
  'package.json': '{ "name": "app", "version": "1.0.0", "private": true }\n',
  'package-lock.json': '{ "name": "app", "version": "1.0.0", "lockfileVersion": 3, "packages": {} }\n',
  '.nvmrc': '22\n',
  Dockerfile: 'FROM node:22-slim\n',
  'assets/logo.png': '\u0089PNG\r\n\u001a\n\u0000\u0000',
  // Binary content under a name that does not say so: not of a text critic's kind, not a gap.
  'data/model.bin': 'weights\u0000\u0001\u0002',
  'README.md': '# app\n',
  // Each language's own toolchain, and a link out among its files (go vet reads a package's every file).
  'tools/report.py': 'def total(values: list[int]) -> int:\n    return sum(values)\n',
  'scripts/deploy.sh': '#!/bin/sh\necho "deploy"\n',
  'go.mod': 'module example.org/app\n\ngo 1.19\n',
  'cmd/main.go': 'package main\n\nfunc main() {}\n',
};
/** Links a repository committed: out of the checkout (never read) and within it (read as its target). */
const LINKS_OUT = ['src/passwd.js', 'src/tokens.js', 'config/secrets.env', 'tools/leak.py', 'cmd/leak.go'];
const PLAN = [...Object.keys(FILES), ...LINKS_OUT, 'src/alias.js'].sort();

let root: string;
let checkout: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rloop-coverage-'));
  const project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, '.gitignore'), '.rloop/\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
  checkout = join(project, '.rloop/critic-runner/checkouts/a1b2c3');
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(checkout, file)), { recursive: true });
    writeFileSync(join(checkout, file), text);
  }
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(root, 'etc/passwd'), `${MARKER}:x:0:0:root:/root:/bin/bash\neval(process.argv[2]);\n`);
  writeFileSync(join(root, 'etc/secrets.env'), `AWS_SECRET_ACCESS_KEY=${MARKER}Zp8Qv1Lm4Nx7Rt2Wy5Bc9Df3Gh6Jk0\n`);
  // ESLint would name this unused variable in its message, quoting the file it should never have read.
  writeFileSync(join(root, 'etc/tokens.js'), `const ${MARKER} = 'x';\n`);
  symlinkSync(join(root, 'etc/passwd'), join(checkout, 'src/passwd.js'));
  symlinkSync(join(root, 'etc/tokens.js'), join(checkout, 'src/tokens.js'));
  symlinkSync(join(root, 'etc/secrets.env'), join(checkout, 'config/secrets.env'));
  symlinkSync(join(root, 'etc/passwd'), join(checkout, 'tools/leak.py'));
  symlinkSync(join(root, 'etc/passwd'), join(checkout, 'cmd/leak.go'));
  symlinkSync('server.js', join(checkout, 'src/alias.js'));
}, 60_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const run = (
  critic: CriticDefinition,
  options: { core?: boolean; maxFileBytes?: number; files?: readonly string[] } = {},
): Promise<CriticRunResult> =>
  runCritic(
    critic,
    {
      repoDir: checkout,
      commit: '0'.repeat(40),
      files: options.files ?? PLAN,
      phase: 'final_sweep',
      now: new Date('2026-11-30T00:00:00Z'),
    },
    {
      ...(options.core === undefined ? {} : { core: options.core }),
      ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
    },
  );

/** Each critic: the plan files it analyses, and the ones it skips with the reason. */
const EXPECTED: Readonly<
  Record<string, { readonly analysed: readonly string[]; readonly skipped: Readonly<Record<string, string>> }>
> = {
  'toolchain/compiler-linter': {
    analysed: ['src/alias.js', 'src/app.min.js', 'src/server.js', 'src/util.ts'],
    skipped: { 'src/padded.ts': 'too_large', 'src/passwd.js': 'outside_checkout', 'src/tokens.js': 'outside_checkout' },
  },
  'quality/duplicate-code-detector': {
    analysed: ['src/alias.js', 'src/server.js', 'src/util.ts'],
    skipped: {
      'src/app.min.js': 'generated',
      'src/padded.ts': 'too_large',
      'src/passwd.js': 'outside_checkout',
      'src/tokens.js': 'outside_checkout',
    },
  },
  'security/sast-scanner': {
    analysed: ['src/alias.js', 'src/app.min.js', 'src/server.js', 'src/util.ts'],
    skipped: { 'src/padded.ts': 'too_large', 'src/passwd.js': 'outside_checkout', 'src/tokens.js': 'outside_checkout' },
  },
  'security/input-validation-checker': {
    analysed: ['src/alias.js', 'src/app.min.js', 'src/server.js', 'src/util.ts'],
    skipped: { 'src/padded.ts': 'too_large', 'src/passwd.js': 'outside_checkout', 'src/tokens.js': 'outside_checkout' },
  },
  'security/secrets-detector': {
    analysed: PLAN.filter((f) => !['assets/logo.png', 'data/model.bin', 'src/padded.ts', ...LINKS_OUT].includes(f)),
    skipped: {
      'src/padded.ts': 'too_large',
      'src/passwd.js': 'outside_checkout',
      'src/tokens.js': 'outside_checkout',
      'config/secrets.env': 'outside_checkout',
      'tools/leak.py': 'outside_checkout',
      'cmd/leak.go': 'outside_checkout',
    },
  },
  'toolchain/dependency-audit': { analysed: ['package-lock.json', 'package.json'], skipped: {} },
  'toolchain/dependency-eol': { analysed: ['.nvmrc', 'Dockerfile', 'package.json'], skipped: {} },
  'specialized/database-reviewer': {
    analysed: ['migrations/001_users.down.sql', 'migrations/001_users.up.sql'],
    skipped: {},
  },
  'toolchain/python': { analysed: ['tools/report.py'], skipped: { 'tools/leak.py': 'outside_checkout' } },
  'toolchain/go': { analysed: ['cmd/main.go'], skipped: { 'cmd/leak.go': 'outside_checkout' } },
  'toolchain/rust': { analysed: [], skipped: {} },
  'toolchain/shell': { analysed: ['scripts/deploy.sh'], skipped: {} },
  'quality/complexity': {
    analysed: ['src/alias.js', 'src/app.min.js', 'src/server.js', 'src/util.ts'],
    skipped: { 'src/padded.ts': 'too_large', 'src/passwd.js': 'outside_checkout', 'src/tokens.js': 'outside_checkout' },
  },
  // The recorded coverage holds a .js file, so .js files it does not list were never loaded; it holds no .ts file, so it cannot speak to them.
  'quality/test-coverage': {
    analysed: ['src/alias.js', 'src/app.min.js', 'src/server.js'],
    skipped: { 'src/padded.ts': 'too_large', 'src/passwd.js': 'outside_checkout', 'src/tokens.js': 'outside_checkout' },
  },
};

/** What quality/test-coverage reads in this spec: a run that loaded src/server.js. */
const RECORDED: CoverageSource = {
  kind: 'recorded',
  coverage: () =>
    Promise.resolve({
      format: 'v8',
      files: [{ file: 'src/server.js', executable: 3, uncovered: [] }],
      truncated: false,
    }),
};

describe('what each built-in critic covered', () => {
  for (const critic of builtInCritics({ testCoverage: RECORDED })) {
    it(`${critic.id}: counts what it read, skips with the reason, never reads through a link out`, async () => {
      const result = await run(critic);
      expect(JSON.stringify(result)).not.toContain(LEAK);
      if (result.status !== 'reported') throw new Error(`${critic.id} ${result.reason}: ${result.message}`);
      const coverage = result.coverage;
      if (coverage === null) throw new Error(`${critic.id} reports no coverage`);
      expect(CriticCoverage.safeParse(coverage).success).toBe(true);
      const expected = EXPECTED[critic.id];
      if (expected === undefined) throw new Error(`no expectation for ${critic.id}`);
      expect(Object.fromEntries(coverage.skipped.map((s) => [s.file, s.reason]))).toEqual(expected.skipped);
      expect(coverage).toMatchObject({
        considered: PLAN.length,
        analysed: expected.analysed.length,
        skipped_total: Object.keys(expected.skipped).length,
        max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        max_file_bytes_configured: false,
      });
      expect(coverage.unsupported).toBe(PLAN.length - expected.analysed.length - Object.keys(expected.skipped).length);
    }, 120_000);
  }

  it('analyses an oversized file up to the bound the operator set, and says the bound was chosen', async () => {
    const [sast, secrets] = builtInCritics({ only: ['security/sast-scanner', 'security/secrets-detector'] });
    if (sast === undefined || secrets === undefined) throw new Error('critics missing');
    const bound = 2 * DEFAULT_MAX_FILE_BYTES;
    const defaults = await run(sast, { files: ['src/padded.ts'] });
    const chosen = await run(sast, { files: ['src/padded.ts'], maxFileBytes: bound });
    expect(defaults).toMatchObject({
      status: 'reported',
      findings: [],
      coverage: { analysed: 0, skipped: [{ file: 'src/padded.ts', reason: 'too_large' }] },
    });
    expect(chosen).toMatchObject({
      status: 'reported',
      coverage: { analysed: 1, skipped_total: 0, max_file_bytes: bound, max_file_bytes_configured: true },
    });
    expect(chosen.status === 'reported' && chosen.findings.map((f) => f.finding_type)).toEqual(['sast/code-injection']);
    const keys = await run(secrets, { files: ['src/padded.ts'], maxFileBytes: bound });
    expect(keys.status === 'reported' && keys.findings.map((f) => f.finding_type)).toContain('secret/aws-access-key');
  }, 120_000);
});

describe('a manifest that links out of the checkout', () => {
  it('is never parsed: the dependency critics say it was not read instead of quoting it in an error', async () => {
    const linked = join(root, 'linked');
    mkdirSync(linked);
    symlinkSync(join(root, 'etc/passwd'), join(linked, 'package.json'));
    const [audit, eol] = builtInCritics({ only: ['toolchain/dependency-audit', 'toolchain/dependency-eol'] });
    if (audit === undefined || eol === undefined) throw new Error('critics missing');
    const context = {
      repoDir: linked,
      commit: '0'.repeat(40),
      files: ['package.json'],
      phase: 'final_sweep' as const,
      now: new Date('2026-11-30T00:00:00Z'),
    };
    const audited = await runCritic(audit, context);
    expect(JSON.stringify(audited)).not.toContain(LEAK);
    expect(audited).toMatchObject({
      status: 'failed',
      reason: 'not_runnable',
      message: 'package.json cannot be audited: a symbolic link to a file outside the checkout, never read',
    });
    const dated = await runCritic(eol, context);
    expect(JSON.stringify(dated)).not.toContain(LEAK);
    expect(dated).toMatchObject({
      status: 'reported',
      coverage: { skipped: [{ file: 'package.json', reason: 'outside_checkout' }] },
    });
  });
});

describe('a core critic that analysed none of the files it supports', () => {
  it('fails with no_files_analysed, saying why each file was skipped — never "0 findings"', async () => {
    const [sast] = builtInCritics({ only: ['security/sast-scanner'] });
    if (sast === undefined) throw new Error('critic missing');
    const files = ['src/padded.ts', 'src/passwd.js', 'README.md'];
    const result = await run(sast, { core: true, files });
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'no_files_analysed',
      coverage: { considered: 3, analysed: 0, unsupported: 1, skipped_total: 2 },
    });
    expect(result.status === 'failed' && result.message).toMatch(
      /^analysed none of the 2 file\(s\) under review it supports: 0 of 3 files analysed, 1 not of a kind it reviews, 2 skipped: src\/padded\.ts \(too large: \d+ bytes, over the \d+-byte bound\); src\/passwd\.js \(outside the checkout: a symbolic link to a file outside the checkout, never read\)/,
    );
    // Not core, the same run is a report whose coverage says it saw nothing; with nothing it supports, core is fine too.
    expect(await run(sast, { core: false, files })).toMatchObject({ status: 'reported', coverage: { analysed: 0 } });
    expect(await run(sast, { core: true, files: ['README.md'] })).toMatchObject({
      status: 'reported',
      coverage: { considered: 1, unsupported: 1 },
    });
  }, 120_000);

  it('counts a file the critic supports but never read as not_read, and a critic without `covers` reports no coverage', async () => {
    const lazy = defineCritic({
      id: 'test/lazy',
      evidence: 'test',
      description: 'reads nothing',
      triggers: [],
      timeoutMs: 5_000,
      covers: () => true,
      run: () => Promise.resolve([]),
    });
    expect(await run(lazy, { core: true, files: ['src/util.ts'] })).toMatchObject({
      status: 'failed',
      reason: 'no_files_analysed',
      coverage: { skipped: [{ file: 'src/util.ts', reason: 'not_read' }] },
    });
    const marking = defineCritic({
      id: 'test/marking',
      evidence: 'test',
      description: 'a tool of its own reads the files',
      triggers: [],
      timeoutMs: 5_000,
      covers: () => true,
      run: (ctx) => {
        ctx.coverage.analysed('src/util.ts');
        ctx.coverage.skipped('src/server.js', 'parse_error', 'unexpected token at 3:1');
        return Promise.resolve([]);
      },
    });
    expect(await run(marking, { files: ['src/util.ts', 'src/server.js'] })).toMatchObject({
      status: 'reported',
      coverage: {
        analysed: 1,
        skipped: [{ file: 'src/server.js', reason: 'parse_error', detail: 'unexpected token at 3:1' }],
      },
    });
    const silent = defineCritic({
      id: 'test/silent',
      evidence: 'test',
      description: 'says nothing',
      triggers: [],
      timeoutMs: 5_000,
      run: () => Promise.resolve([]),
    });
    expect(await run(silent, { core: true })).toMatchObject({ status: 'reported', coverage: null });
  });

  it('reads the lines of a finding on a link out of the checkout as no lines', async () => {
    const pointing = defineCritic({
      id: 'test/pointing',
      evidence: 'test',
      description: 'reports on a link',
      triggers: [],
      timeoutMs: 5_000,
      run: () =>
        Promise.resolve([
          draftFinding({
            severity: 'low',
            category: 'readability',
            finding_type: 'test/link',
            file: 'src/passwd.js',
            line_range: { start: 1, end: 1 },
            title: 'a link',
            current_behaviour: 'x',
            expected_behaviour: 'y',
            observable_test_conditions: ['z'],
            forbidden_in_test: [],
          }),
        ]),
    });
    const result = await run(pointing);
    const unread = await runCritic(
      pointing,
      { repoDir: checkout, commit: '0'.repeat(40), files: [], phase: 'final_sweep' },
      { readFile: () => null },
    );
    expect(result.status === 'reported' && result.findings[0]?.location_hash).toBe(
      unread.status === 'reported' ? unread.findings[0]?.location_hash : 'none',
    );
  });
});

describe('rloop review', () => {
  it('never reads through a link out of the reviewed directory, and reports what each critic covered', async () => {
    const only = ['security/sast-scanner', 'security/secrets-detector'];
    const outcome = await reviewRepositoryWithRuns({
      repoDir: checkout,
      now: new Date('2026-11-30T00:00:00Z'),
      critics: builtInCritics({ only }),
      core: only,
    });
    expect(JSON.stringify(outcome)).not.toContain(LEAK);
    const sast = outcome.letter.critics.find((c) => c.critic_id === 'security/sast-scanner');
    expect(sast?.coverage?.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'src/passwd.js', reason: 'outside_checkout' }),
        expect.objectContaining({ file: 'src/padded.ts', reason: 'too_large' }),
      ]),
    );
    expect(outcome.letter.findings.map((f) => [f.raised_by, f.finding_type, f.file])).toEqual(
      expect.arrayContaining([
        ['security/sast-scanner', 'sast/command-injection', 'src/server.js'],
        ['security/secrets-detector', 'secret/aws-access-key', 'config/app.env'],
      ]),
    );
    // The padded file was not analysed: the review is not complete however few findings it has.
    expect(outcome.letter.complete).toBe(false);
    expect(outcome.letter.summary).toMatch(/Not analysed: src\/padded\.ts \(too large: .*\) by security\/sast-scanner/);
  }, 120_000);
});
