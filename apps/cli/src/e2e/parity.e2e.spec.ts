import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_IN_CRITIC_IDS } from '@rloop/critics';
import { type EventOf, Letter, type RloopEvent } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { type FleetUnderTest, scriptedRepo, startReadmeFleet } from './fleet.test-helpers.js';

// Parity, end to end, in the README's layout: the fleet's home is `.rloop/e2e-…` under this
// project's root (ignored by its .gitignore, so every read-only checkout lies in a git tree that
// ignores it), the journal is PGlite under that home. A plan over a repository with a seeded
// defect of every built-in critic's kind must get, in round 1, every finding `rloop review` finds
// on the same commit — the same fingerprints. Before the fix the critics listed the checkout
// through the project's git, which ignores it: with that listing put back, the flow into the helper,
// the copy of existing code and the unvalidated input through the helper are missing from round 1.
// Dependencies are audited offline, as an operator without npm's bulk advisory endpoint runs the
// fleet: RLOOP_ADVISORIES names an OSV export (here, one record of our own).

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SLUG = 'e2e-parity';
const AWS_KEY = 'AKIAZ7QRST2UVWXY3ABC';
const MARKER = 'rootSecretMarker4711';

const copy = (
  name: string,
  items: string,
  total: string,
): string => `export function ${name}(${items}: { quantity: number; unitPrice: number; sku: string }[], rate: number): number {
  let ${total} = 0;
  for (const line of ${items}) {
    if (line.quantity <= 0) throw new Error(\`bad quantity for \${line.sku}\`);
    ${total} += line.quantity * line.unitPrice;
  }
  const discount = ${total} > 1000 ? ${total} * 0.05 : 0;
  const taxed = (${total} - discount) * (1 + rate);
  return Math.round(taxed * 100) / 100;
}
`;

/**
 * A defect of every built-in critic's kind, in the plan's files — some only visible with the rest
 * of the repository (a flow into a helper, a copy of existing code), as in most real changes.
 */
const SEEDED: Readonly<Record<string, string>> = {
  // security/sast-scanner: request input into a shell, through a helper outside the plan.
  'src/server.js':
    "import { run } from './lib/shell.js';\n\nexport function list(req, res) {\n  run('ls ' + req.query.dir, (out) => res.send(out));\n}\n",
  'src/lib/shell.js':
    "import { exec } from 'node:child_process';\n\nexport function run(command, done) {\n  exec(command, (error, out) => done(out));\n}\n",
  // security/input-validation-checker (the auth trigger): the whole request body stored.
  'src/auth/users.ts':
    "import express from 'express';\nimport { User } from './model.js';\n\nexport const app = express();\n\napp.post('/users', async (req, res) => {\n  await User.create(req.body);\n  res.status(201).end();\n});\n",
  'src/auth/model.ts':
    'export const User = {\n  async create(data: unknown): Promise<unknown> {\n    return data;\n  },\n};\n',
  // toolchain/compiler-linter: a type error and a let that is never reassigned.
  'src/total.ts':
    "export function total(values: number[]): number {\n  let sum = 0;\n  const count: number = 'many';\n  return sum + count + values.length;\n}\n",
  // quality/duplicate-code-detector: the plan copies a function the repository already has.
  'src/billing/invoice.ts': copy('invoiceTotal', 'items', 'subtotal'),
  'src/quote.ts': copy('quoteTotal', 'lines', 'sum'),
  // security/secrets-detector: a committed AWS key.
  'config/app.env': `AWS_ACCESS_KEY_ID=${AWS_KEY}\n`,
  // specialized/database-reviewer: a destructive migration without a way back.
  'migrations/002_cleanup.sql': 'ALTER TABLE users DROP COLUMN name;\n',
  // toolchain/dependency-eol: a Node.js line past its end of life.
  '.nvmrc': '16\n',
  // toolchain/dependency-audit: a dependency with a known advisory (in the OSV export).
  'package.json': `${JSON.stringify({ name: 'seeded', version: '1.0.0', private: true, type: 'module', dependencies: { mkdirp: '0.5.1' } }, null, 2)}\n`,
  'package-lock.json': `${JSON.stringify(
    {
      name: 'seeded',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'seeded', version: '1.0.0', dependencies: { mkdirp: '0.5.1' } },
        'node_modules/minimist': {
          version: '0.0.8',
          resolved: 'https://registry.npmjs.org/minimist/-/minimist-0.0.8.tgz',
        },
        'node_modules/mkdirp': {
          version: '0.5.1',
          resolved: 'https://registry.npmjs.org/mkdirp/-/mkdirp-0.5.1.tgz',
          dependencies: { minimist: '0.0.8' },
        },
      },
    },
    null,
    2,
  )}\n`,
  // quality/test-coverage: the test loads src/server.js but never calls list() (the implementer records the run's coverage).
  'test/ok.test.mjs':
    "import test from 'node:test';\nimport { list } from '../src/server.js';\n\ntest('the suite runs', () => { if (typeof list !== 'function') throw new Error('no list'); });\n",
  // quality/complexity: a function with more branches than the low threshold.
  'src/route.ts': `export function route(code: number): string {\n${Array.from({ length: 12 }, (_, i) => `  if (code === ${i}) return 'r${i}';`).join('\n')}\n  return 'other';\n}\n`,
  // toolchain/python: a type error (pyright) and an unused import (ruff).
  'tools/report.py':
    'import os\n\n\ndef total(values: list[int]) -> int:\n    return sum(values)\n\n\nlabel: str = total([1, 2])\n',
  // toolchain/shell: cd without a fallback (ShellCheck).
  'tools/deploy.sh': '#!/bin/sh\ncd /srv\necho deployed\n',
  // toolchain/go: a Printf verb of the wrong type (go vet).
  'tools/svc/go.mod': 'module example.org/svc\n\ngo 1.19\n',
  'tools/svc/main.go': 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Printf("%d\\n", "seven")\n}\n',
  // toolchain/rust: a needless return (clippy), in a crate whose build runs no code.
  'tools/rs/Cargo.toml': '[package]\nname = "rs"\nversion = "0.1.0"\nedition = "2021"\n',
  'tools/rs/src/main.rs': 'fn answer() -> i32 {\n    return 42;\n}\n\nfn main() {\n    println!("{}", answer());\n}\n',
};
const PLAN_FILES = [
  'src/server.js',
  'src/auth/**',
  'src/total.ts',
  'src/quote.ts',
  'src/route.ts',
  'config/**',
  'migrations/**',
  'package.json',
  'package-lock.json',
  '.nvmrc',
  'tools/**',
];

let t: FleetUnderTest;
let advisories: string;
let repo: string;
let commit: string;

function only<T extends RloopEvent['type']>(events: readonly RloopEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

/**
 * `rloop review` of the repository's checkout, as a user runs it (the same OSV export as the fleet),
 * with the coverage of the repository's tests run the way the implementer runs them (NODE_V8_COVERAGE).
 */
function rloopReview(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const coverage = join(t.home, 'review-coverage');
  execFileSync(process.execPath, ['--test'], {
    cwd: repo,
    env: { PATH: process.env['PATH'] ?? '', NODE_V8_COVERAGE: coverage },
    stdio: 'ignore',
  });
  const args = [
    join(REPO_ROOT, 'apps/cli/bin/rloop.js'),
    'review',
    repo,
    '--json',
    '--no-cache',
    '--coverage',
    coverage,
    '--files',
    ...PLAN_FILES,
  ];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { env: { ...process.env, RLOOP_ADVISORIES: advisories }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  advisories = await mkdtemp(join(tmpdir(), 'rloop-parity-osv-'));
  const record = {
    id: 'GHSA-vh95-rmgr-6w4m',
    modified: '2026-11-01T00:00:00Z',
    summary: 'Prototype Pollution in mkdirp',
    affected: [
      {
        package: { ecosystem: 'npm', name: 'mkdirp' },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.5.2' }] }],
      },
    ],
    database_specific: { severity: 'HIGH', cwe_ids: ['CWE-1321'] },
  };
  await writeFile(join(advisories, `${record.id}.json`), JSON.stringify(record));
  // The export holds the Go ecosystem too (tools/svc/go.mod is audited: nothing in it is affected).
  await writeFile(
    join(advisories, 'GO-2026-0001.json'),
    JSON.stringify({
      id: 'GO-2026-0001',
      modified: '2026-11-01T00:00:00Z',
      affected: [
        {
          package: { ecosystem: 'Go', name: 'golang.org/x/net' },
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.17.0' }] }],
        },
      ],
    }),
  );
  // No registry answers: the audit must come from the export.
  t = await startReadmeFleet({ env: { RLOOP_ADVISORIES: advisories, npm_config_registry: 'http://127.0.0.1:9/' } });
  repo = join(t.home, 'repos', 'seeded');
  await scriptedRepo(repo, SEEDED);
  commit = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await rm(advisories, { recursive: true, force: true });
}, 60_000);

describe('the fleet reviews what rloop review reviews, in the README layout', () => {
  it("round 1's reports hold every finding rloop review finds on the same commit, and every critic analysed the plan's files", async () => {
    const reply = await t.submit({
      slug: SLUG,
      title: 'Seeded defects',
      description: 'One defect of every critic kind.',
      effort_level: 'high',
      files: PLAN_FILES,
      repo: { path: repo, ref: 'main' },
      test_cmd: 'node --test',
    });
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const events = await eventually(
      async () => {
        const all = (await t.bus.journal.events(SLUG)).entries.map((e) => e.event);
        return only(all, 'LetterWritten').some((l) => l.data.letter.round === 1) ? all : undefined;
      },
      {
        timeoutMs: 240_000,
        intervalMs: 500,
        description: `round 1's letter of ${SLUG} (last lines: ${t.lines.slice(-10).join(' | ')})`,
      },
    );
    const [round] = only(events, 'RoundStarted');
    expect(round?.data.commit).toBe(commit);
    expect(round?.data.critics.map((c) => c.critic_id).sort()).toEqual([...BUILT_IN_CRITIC_IDS].sort());
    const failed = only(events, 'CriticFailed').filter((e) => e.data.round === 1);
    expect(failed.map((e) => `${e.data.critic_id}: ${e.data.reason}: ${e.data.message}`)).toEqual([]);
    const reports = only(events, 'FindingsReported').filter((e) => e.data.round === 1);
    const fleet = new Set(reports.flatMap((r) => r.data.findings.map((f) => f.fingerprint)));

    const review = await rloopReview();
    expect(review.code).toBe(1);
    const letter = Letter.parse(JSON.parse(review.stdout));
    expect(letter.commit).toBe(commit);
    // The seeding works: rloop review finds a defect of every built-in critic's kind.
    expect([...new Set(letter.findings.map((f) => f.raised_by))].sort()).toEqual([...BUILT_IN_CRITIC_IDS].sort());
    const audit = letter.critics.find((c) => c.critic_id === 'toolchain/dependency-audit');
    expect(audit?.message).toMatch(/OSV export .*rloop-parity-osv-.*: 1 npm, 1 Go record/);

    const missing = letter.findings
      .filter((f) => !fleet.has(f.fingerprint))
      .map((f) => `${f.raised_by} ${f.finding_type} ${f.file}:${f.line_range.start} (${f.fingerprint})`);
    expect(missing).toEqual([]);

    // Every critic says what it analysed of the plan's files, in its report and in the letter.
    for (const report of reports) {
      expect({
        critic: report.data.critic_id,
        analysed: (report.data.coverage?.analysed ?? 0) > 0,
        skipped: report.data.coverage?.skipped,
      }).toEqual({ critic: report.data.critic_id, analysed: true, skipped: [] });
    }
    const [written] = only(events, 'LetterWritten');
    expect(
      written?.data.letter.critics.filter((c) => c.outcome === 'reported').every((c) => c.coverage !== undefined),
    ).toBe(true);
  }, 360_000);

  it('never counts a round as clean when it could not read the plan: a padded file and a link out of the repository', async () => {
    const outside = join(t.home, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'passwd'), `${MARKER}:x:0:0:root:/root:/bin/bash\n`);
    const padded = join(t.home, 'repos', 'padded');
    await mkdir(join(padded, 'src'), { recursive: true });
    await symlink(join(outside, 'passwd'), join(padded, 'src/passwd.js'));
    await scriptedRepo(padded, {
      'src/big.js': `// ${'x'.repeat(5 * 1024 * 1024)}\nexport const run = (req) => eval(req.query.code);\n`,
      'test/ok.test.mjs': SEEDED['test/ok.test.mjs'] ?? '',
    });
    const slug = 'e2e-unreadable';
    const reply = await t.submit({
      slug,
      title: 'Unreadable files',
      description: 'A padded file and a link out.',
      effort_level: 'high',
      files: ['src/**'],
      repo: { path: padded, ref: 'main' },
      test_cmd: 'node --test',
    });
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const events = await eventually(
      async () => {
        const all = (await t.bus.journal.events(slug)).entries.map((e) => e.event);
        return only(all, 'LetterWritten').some((l) => l.data.letter.round === 1) ? all : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 500, description: `round 1's letter of ${slug}` },
    );
    const failed = only(events, 'CriticFailed').filter((e) => e.data.round === 1);
    const sast = failed.find((e) => e.data.critic_id === 'security/sast-scanner');
    expect(sast?.data).toMatchObject({
      core: true,
      reason: 'no_files_analysed',
      coverage: { considered: 2, analysed: 0 },
    });
    expect(sast?.data.coverage?.skipped.map((s) => [s.file, s.reason])).toEqual([
      ['src/big.js', 'too_large'],
      ['src/passwd.js', 'outside_checkout'],
    ]);
    const [letter] = only(events, 'LetterWritten');
    expect(letter?.data.letter).toMatchObject({ round: 1, complete: false });
    expect(only(events, 'LoopConverged')).toEqual([]);
    // What lies behind the link was never read: nothing of it reached the journal.
    expect(JSON.stringify(events)).not.toContain(MARKER.slice(0, 10));
  }, 360_000);
});
