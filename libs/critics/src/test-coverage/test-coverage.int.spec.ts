import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CriticRunResult, runCritic, testCoverageCritic } from '../index.js';
import { type FixtureRepo, fixtureRepo, lineOf } from '../__fixtures__/repo.js';

// Coverage as Node.js writes it: the tests of a small repository run with NODE_V8_COVERAGE (as the
// plan's test command would), then the critic reads the directory. It never runs the tests itself.

const TAX = `export function rate(region) { // rate-start
  if (region === 'eu') {
    return 0.2;
  }
  if (region === 'uk') { // uk-branch
    return 0.175; // uk-return
  }
  return 0;
} // rate-end

export function unused(amount) { // unused-start
  const doubled = amount * 2;
  return doubled;
} // unused-end
`;
const TEST =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { rate } from '../src/tax.mjs';\n\ntest('eu', () => assert.equal(rate('eu'), 0.2));\ntest('none', () => assert.equal(rate('us'), 0));\n";

let repo: FixtureRepo;
let v8: string;

beforeAll(() => {
  repo = fixtureRepo({
    'package.json': '{ "type": "module" }\n',
    'src/tax.mjs': TAX,
    'src/other.mjs': 'export const other = () => 1;\n',
    'test/tax.test.mjs': TEST,
  });
  v8 = mkdtempSync(join(tmpdir(), 'rloop-v8-'));
  execFileSync(process.execPath, ['--test', 'test/'], {
    cwd: repo.dir,
    env: { PATH: process.env['PATH'] ?? '', NODE_V8_COVERAGE: v8 },
    stdio: 'ignore',
  });
});

afterAll(() => {
  repo.remove();
  rmSync(v8, { recursive: true, force: true });
});

const review = (files: readonly string[], path: string): Promise<CriticRunResult> =>
  runCritic(testCoverageCritic({ source: { kind: 'report', path } }), {
    repoDir: repo.dir,
    commit: '0'.repeat(40),
    files,
    phase: 'final_sweep',
  });

describe('quality/test-coverage', () => {
  it('reads V8 coverage: a function no test runs, the lines of a branch never taken, a file never loaded — medium, with the ranges', async () => {
    const result = await review(['src/tax.mjs', 'src/other.mjs', 'test/tax.test.mjs'], v8);
    const findings = result.status === 'reported' ? result.findings : [];
    expect(
      findings.map((f) => [f.finding_type, f.file, f.line_range.start, f.line_range.end, f.severity]).sort(),
    ).toEqual(
      [
        ['coverage/file-not-loaded', 'src/other.mjs', 1, 1, 'medium'],
        ['coverage/function-not-run', 'src/tax.mjs', lineOf(TAX, 'unused-start'), lineOf(TAX, 'unused-end'), 'medium'],
        ['coverage/lines-not-run', 'src/tax.mjs', lineOf(TAX, 'rate-start'), lineOf(TAX, 'rate-end'), 'medium'],
      ].sort(),
    );
    expect(findings.find((f) => f.finding_type === 'coverage/lines-not-run')?.title).toBe(
      `rate: lines ${lineOf(TAX, 'uk-return')} are never run by the tests`,
    );
    // The test file is what covers, not what is covered.
    expect(result.coverage).toMatchObject({ considered: 3, analysed: 2, unsupported: 1 });
  });

  it("reads istanbul's coverage-final.json (c8 --reporter=json, jest, vitest) with paths of the directory the tests ran in", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rloop-istanbul-'));
    try {
      const at = (line: number) => ({ start: { line, column: 0 }, end: { line, column: 10 } });
      const report = {
        [join(repo.dir, 'src/tax.mjs')]: {
          path: join(repo.dir, 'src/tax.mjs'),
          statementMap: { 0: at(2), 1: at(3), 2: at(5), 3: at(6), 4: at(8), 5: at(12), 6: at(13) },
          s: { 0: 2, 1: 1, 2: 1, 3: 0, 4: 1, 5: 0, 6: 0 },
          fnMap: {},
          f: {},
          branchMap: {},
          b: {},
        },
        [join(repo.dir, 'node_modules/dep/index.js')]: { statementMap: { 0: at(1) }, s: { 0: 0 } },
      };
      writeFileSync(join(dir, 'coverage-final.json'), JSON.stringify(report));
      const result = await review(['src/tax.mjs'], join(dir, 'coverage-final.json'));
      expect(result.status === 'reported' ? result.findings.map((f) => f.title).sort() : result).toEqual([
        'rate: lines 6 are never run by the tests',
        'unused is never run by the tests',
      ]);
      // The directory form is read too.
      expect((await review(['src/tax.mjs'], dir)).status).toBe('reported');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads what the implementer recorded with the test run of the reviewed commit (the fleet), counting code lines again from the text', async () => {
    const recorded = {
      format: 'v8' as const,
      files: [
        {
          file: 'src/tax.mjs',
          executable: 9,
          uncovered: [
            { start: 6, end: 6 },
            { start: 12, end: 13 },
          ],
        },
      ],
      truncated: false,
    };
    const result = await runCritic(
      testCoverageCritic({ source: { kind: 'recorded', coverage: () => Promise.resolve(recorded) } }),
      { repoDir: repo.dir, commit: 'a'.repeat(40), files: ['src/tax.mjs', 'src/other.mjs'], phase: 'final_sweep' },
    );
    expect(result.status === 'reported' ? result.findings.map((f) => f.title).sort() : result).toEqual([
      'rate: lines 6 are never run by the tests',
      'src/other.mjs is never loaded by the tests',
      'unused is never run by the tests',
    ]);
    const none = await runCritic(
      testCoverageCritic({ source: { kind: 'recorded', coverage: () => Promise.resolve(null) } }),
      { repoDir: repo.dir, commit: 'a'.repeat(40), files: ['src/tax.mjs'], phase: 'final_sweep' },
    );
    expect(none.status === 'failed' && none.message).toMatch(
      /no coverage was recorded for commit aaaaaaaaaaaa: the plan's test command wrote none/,
    );
  });

  it('is not configured without a report, and not runnable on one it cannot read — never "all covered"', async () => {
    const none = await runCritic(testCoverageCritic(), {
      repoDir: repo.dir,
      commit: '0'.repeat(40),
      files: ['src/tax.mjs'],
      phase: 'final_sweep',
    });
    expect(none).toMatchObject({ status: 'failed', reason: 'not_runnable' });
    expect(none.status === 'failed' && none.message).toMatch(/^not configured: no coverage report/);
    const missing = await review(['src/tax.mjs'], join(repo.dir, 'no-such-report.json'));
    expect(missing.status === 'failed' && missing.message).toMatch(/the coverage report .* does not exist/);
  });
});
