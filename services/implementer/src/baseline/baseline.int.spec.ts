import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BaselineRecorded } from '@rloop/contracts';
import { worktreeDirFor } from '../git/worktree.js';
import {
  RUN_ID,
  type TempDir,
  TEST_COMMANDS,
  commandEnv,
  gitOut,
  sampleRepo,
  tempDir,
} from '../testing/repos.test-helpers.js';
import { recordBaseline } from './baseline.js';

describe('recording the baseline before round 1', () => {
  let tmp: TempDir;
  const deps = () => ({
    workRoot: join(tmp.path, 'home'),
    env: commandEnv(),
    commands: TEST_COMMANDS,
    testTimeoutMs: 30_000,
  });

  beforeAll(async () => {
    tmp = await tempDir('baseline');
  });

  afterAll(() => tmp.cleanup());

  it.each(['fixable', 'unfixable'] as const)(
    'given the %s sample, then its tests pass at the gated commit on rloop/<slug>',
    async (variant) => {
      const repo = await sampleRepo(tmp.path, variant);
      const slug = `sample-${variant}`;
      const data = await recordBaseline(
        { slug, runId: RUN_ID, repoPath: repo.dir, commit: repo.commit, testCmd: 'node --test' },
        deps(),
      );
      expect(BaselineRecorded.shape.data.parse(data)).toEqual(data);
      expect(data).toMatchObject({
        commit: repo.commit,
        branch: `rloop/${slug}`,
        tests: { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 },
        exit_code: 0,
        failing: [],
      });
      expect(gitOut(worktreeDirFor(deps().workRoot, slug), ['rev-parse', 'HEAD'])).toBe(repo.commit);
    },
  );

  it("given coverage recording on, then the baseline carries what the tests ran: the sample's tax helpers, every line run", async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'coverage');
    await writeFile(join(repo.dir, 'src', 'untested.js'), 'export function untested(x) {\n  return x * 2;\n}\n');
    await writeFile(
      join(repo.dir, 'test', 'loads-untested.test.mjs'),
      "import { test } from 'node:test';\nimport '../src/untested.js';\ntest('loads it', () => {});\n",
    );
    gitOut(repo.dir, ['add', '-A']);
    gitOut(repo.dir, ['commit', '-qm', 'an untested helper']);
    const commit = gitOut(repo.dir, ['rev-parse', 'HEAD']);
    const data = await recordBaseline(
      { slug: 'coverage', runId: RUN_ID, repoPath: repo.dir, commit, testCmd: 'node --test' },
      { ...deps(), recordCoverage: true },
    );
    expect(BaselineRecorded.shape.data.parse(data)).toEqual(data);
    const files = Object.fromEntries((data.coverage?.files ?? []).map((f) => [f.file, f.uncovered]));
    expect(data.coverage?.format).toBe('v8');
    expect(files['src/tax.js']).toEqual([]);
    expect(files['src/untested.js']).toEqual([{ start: 2, end: 2 }]);
    // The coverage directory is rloop's own, gone after the run; nothing is written into the worktree.
    expect(existsSync(join(deps().workRoot, 'coverage')) ? readdirSync(join(deps().workRoot, 'coverage')) : []).toEqual(
      [],
    );
    expect(gitOut(worktreeDirFor(deps().workRoot, 'coverage'), ['status', '--porcelain'])).toBe('');
    // Off (the operator's choice): nothing recorded.
    const off = await recordBaseline(
      { slug: 'coverage-off', runId: RUN_ID, repoPath: repo.dir, commit, testCmd: 'node --test' },
      deps(),
    );
    expect(off.coverage).toBeUndefined();
  });

  it('given tests that already fail, then they are named so later rounds do not count them as regressions', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'already-failing');
    await writeFile(
      join(repo.dir, 'test', 'known-bug.test.mjs'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('known bug', () => assert.equal(1, 2));\n",
    );
    gitOut(repo.dir, ['add', '-A']);
    gitOut(repo.dir, ['commit', '-qm', 'a known bug']);
    const commit = gitOut(repo.dir, ['rev-parse', 'HEAD']);
    const data = await recordBaseline(
      { slug: 'known-bug', runId: RUN_ID, repoPath: repo.dir, commit, testCmd: 'node --test' },
      deps(),
    );
    expect(data).toMatchObject({ exit_code: 1, failing: ['known bug'], tests: { passed: 3, failed: 1, total: 4 } });
  });

  it('given a redelivered LoopGated after the loop moved on, then the same data comes back and the branch is left alone', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'redelivered');
    const input = {
      slug: 'redelivered',
      runId: RUN_ID,
      repoPath: repo.dir,
      commit: repo.commit,
      testCmd: 'node --test',
    };
    const first = await recordBaseline(input, deps());
    const dir = worktreeDirFor(deps().workRoot, 'redelivered');
    gitOut(dir, ['commit', '-q', '--allow-empty', '-m', 'round 1 fix']);
    const tip = gitOut(dir, ['rev-parse', 'HEAD']);

    const again = await recordBaseline(input, deps());
    expect(again).toEqual(first);
    expect(gitOut(repo.dir, ['rev-parse', 'rloop/redelivered'])).toBe(tip);
  });

  it('given a test command the operator did not allow, then it never runs and the baseline says why as its one failing test', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'refused');
    const marker = join(tmp.path, 'baseline-ran');
    const data = await recordBaseline(
      { slug: 'refused', runId: RUN_ID, repoPath: repo.dir, commit: repo.commit, testCmd: `touch ${marker}` },
      deps(),
    );
    expect(data).toMatchObject({ exit_code: 126, tests: { passed: 0, failed: 1, total: 1 } });
    expect(data.failing).toEqual([
      expect.stringMatching(
        /^rloop refused to run the plan: test_cmd: the command "touch \S+" is not allowed on this fleet/,
      ),
    ]);
    expect(existsSync(marker)).toBe(false);
  });
});
