import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FixApplied, type Finding, type PlanImplementer } from '@rloop/contracts';
import { recordBaseline } from '../baseline/baseline.js';
import { readOnlyCheckout } from '@rloop/git';
import { fixRecordRef } from '../git/records.js';
import { worktreeDirFor } from '../git/worktree.js';
import { builtInStrategies } from '../strategies/resolve.js';
import {
  RUN_ID,
  type SampleRepo,
  type TempDir,
  TEST_COMMANDS,
  commandEnv,
  eslintFindings,
  gitOut,
  letterFor,
  sampleRepo,
  tempDir,
  tscFindings,
} from '../testing/repos.test-helpers.js';
import { type FixRequestedData, applyFix } from './fix-cycle.js';

describe('the fix cycle', () => {
  let tmp: TempDir;
  let workRoot: string;
  const deps = () => ({
    workRoot,
    env: commandEnv(),
    commands: TEST_COMMANDS,
    testTimeoutMs: 30_000,
    strategyFor: builtInStrategies({ commandTimeoutMs: 20_000, scratchRoot: tmp.path }),
  });

  beforeAll(async () => {
    tmp = await tempDir('fix');
    workRoot = join(tmp.path, 'home');
  });

  afterAll(() => tmp.cleanup());

  /** The findings a toolchain critic would report at the repo's commit, read from a clean checkout. */
  async function findingsAt(
    repo: SampleRepo,
    commit: string = repo.commit,
  ): Promise<{ eslint: Finding[]; tsc: Finding[] }> {
    const checkout = await readOnlyCheckout(repo.dir, commit, { workRoot });
    return { eslint: await eslintFindings(checkout.dir), tsc: tscFindings(checkout.dir) };
  }

  function request(
    repo: SampleRepo,
    slug: string,
    findings: readonly Finding[],
    overrides: Partial<FixRequestedData> & { implementer?: PlanImplementer } = {},
  ): FixRequestedData {
    const base = overrides.base_commit ?? repo.commit;
    return {
      round: 1,
      attempt: 1,
      letter: letterFor(slug, base, findings, {
        round: overrides.round ?? 1,
        ...(overrides.letter === undefined ? {} : { letter_id: overrides.letter.letter_id }),
      }),
      base_commit: base,
      branch: `rloop/${slug}`,
      repo_path: repo.dir,
      test_cmd: 'node --test',
      implementer: { strategy: 'autofix' },
      baseline_failing: [],
      ...overrides,
    };
  }

  async function script(name: string, body: string): Promise<string> {
    const path = join(tmp.path, `${name}.sh`);
    await writeFile(path, `set -e\n${body}\n`);
    return `sh ${path}`;
  }

  const commitsOnBranch = (repo: SampleRepo, slug: string, base = repo.commit) =>
    Number(gitOut(repo.dir, ['rev-list', '--count', `${base}..rloop/${slug}`]));

  it("given the fixable sample, when autofix runs, then every ESLint finding is gone in one commit with trailers, and the user's checkout is untouched", async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'isolation');
    const slug = 'fixable-autofix';
    // The user is mid-work on their own branch: unstaged and staged changes, an untracked file.
    gitOut(repo.dir, ['checkout', '-q', '-b', 'feature']);
    await writeFile(join(repo.dir, 'README.md'), 'my unsaved notes\n');
    await writeFile(join(repo.dir, 'staged.txt'), 'staged by the user\n');
    gitOut(repo.dir, ['add', 'staged.txt']);
    await writeFile(join(repo.dir, 'scratch.txt'), 'untracked\n');
    const user = () => ({
      status: gitOut(repo.dir, ['status', '--porcelain=v1', '--untracked-files=all']),
      head: gitOut(repo.dir, ['symbolic-ref', 'HEAD']),
      commit: gitOut(repo.dir, ['rev-parse', 'HEAD']),
      index: gitOut(repo.dir, ['diff', '--cached']),
      worktree: gitOut(repo.dir, ['diff']),
      branches: gitOut(repo.dir, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/'])
        .split('\n')
        .filter((b) => !b.startsWith('refs/heads/rloop/')),
    });
    const before = user();

    const baseline = await recordBaseline(
      { slug, runId: RUN_ID, repoPath: repo.dir, commit: repo.commit, testCmd: 'node --test' },
      deps(),
    );
    const { eslint } = await findingsAt(repo);
    expect(eslint.length).toBeGreaterThanOrEqual(5);
    expect(eslint.every((f) => f.fixable)).toBe(true);

    const result = await applyFix(request(repo, slug, eslint, { baseline_failing: baseline.failing }), {
      ...deps(),
      recordCoverage: true,
    });

    expect(FixApplied.shape.data.parse(result)).toEqual(result);
    // What the test run of the committed fix executed travels with it (quality/test-coverage reads it for result.commit).
    expect(result.coverage?.files.find((f) => f.file === 'src/tax.js')).toEqual({
      file: 'src/tax.js',
      executable: expect.any(Number) as unknown as number,
      uncovered: [],
    });
    expect(result).toMatchObject({
      outcome: 'committed',
      strategy: 'autofix',
      base_commit: repo.commit,
      tests_result: { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 },
      diff_stats: { files_changed: 2 },
      tests_added: [],
    });
    expect(result.fixes_applied.map((f) => f.file)).toEqual(['src/billing/invoice.ts', 'src/money.ts']);
    expect(result.fixes_applied.flatMap((f) => f.fixed_findings).sort()).toEqual(eslint.map((f) => f.id).sort());
    for (const file of result.fixes_applied) {
      expect(file.lines_changed).toBeGreaterThan(0);
      expect(file.hunks.length).toBeGreaterThan(0);
    }
    expect(commitsOnBranch(repo, slug)).toBe(1);
    expect(gitOut(repo.dir, ['rev-parse', `rloop/${slug}`])).toBe(result.commit);
    expect(gitOut(repo.dir, ['log', '-1', '--format=%s', `rloop/${slug}`])).toBe(`rloop: round 1 fixes for ${slug}`);
    expect(
      gitOut(repo.dir, [
        'log',
        '-1',
        '--format=%(trailers:key=Rloop-Letter,valueonly)%(trailers:key=Rloop-Round,valueonly)',
        `rloop/${slug}`,
      ]),
    ).toBe(`${result.letter_id}\n1`);

    const after = await findingsAt(repo, result.commit ?? '');
    expect(after.eslint).toEqual([]);
    expect(after.tsc).toEqual([]);
    expect(gitOut(worktreeDirFor(workRoot, slug), ['status', '--porcelain'])).toBe('');
    expect(user()).toEqual(before);
  });

  it('given the unfixable sample, when autofix runs, then the lint fixes are committed and the type error and deprecated call remain unclaimed', async () => {
    const repo = await sampleRepo(tmp.path, 'unfixable');
    const slug = 'unfixable-autofix';
    const { eslint, tsc } = await findingsAt(repo);
    expect(tsc.map((f) => `${f.file}:${f.finding_type}`)).toEqual(['src/report.ts:tsc/TS2322']);
    const deprecated: Finding = {
      ...tsc[0]!,
      id: 'deprecated-1',
      finding_type: '@typescript-eslint/no-deprecated',
      line_range: { start: 6, end: 6 },
      title: '`legacyFormat` is deprecated',
    };
    const findings = [...eslint, ...tsc, deprecated];

    const result = await applyFix(request(repo, slug, findings), deps());

    expect(result.outcome).toBe('committed');
    expect(result.fixes_applied.map((f) => f.file)).toEqual(['src/billing/invoice.ts', 'src/money.ts']);
    const claimed = result.fixes_applied.flatMap((f) => f.fixed_findings);
    expect(claimed).not.toContain(tsc[0]?.id);
    expect(claimed).not.toContain('deprecated-1');
    const after = await findingsAt(repo, result.commit ?? '');
    expect(after.eslint).toEqual([]);
    expect(after.tsc.map((f) => `${f.file}:${f.finding_type}`)).toEqual(['src/report.ts:tsc/TS2322']);
    expect(await readFile(join(worktreeDirFor(workRoot, slug), 'src', 'report.ts'), 'utf8')).toContain(
      'legacyFormat(cents)',
    );
  });

  it('given a redelivered request, then the same data comes back and the branch still has one commit, even when the record was lost', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'redelivery');
    const slug = 'redelivery';
    const { eslint } = await findingsAt(repo);
    // A previous attempt crashed half-way: the worktree holds a stray edit and an untracked file.
    await recordBaseline(
      { slug, runId: RUN_ID, repoPath: repo.dir, commit: repo.commit, testCmd: 'node --test' },
      deps(),
    );
    const dir = worktreeDirFor(workRoot, slug);
    await writeFile(join(dir, 'src', 'tax.js'), 'export const broken = true;\n');
    await writeFile(join(dir, 'half-done.txt'), 'left by a crash\n');
    const req = request(repo, slug, eslint);

    const first = await applyFix(req, deps());
    expect(first.outcome).toBe('committed');
    expect(first.fixes_applied.map((f) => f.file)).toEqual(['src/billing/invoice.ts', 'src/money.ts']);

    const second = await applyFix(req, deps());
    expect(second).toEqual(first);
    expect(commitsOnBranch(repo, slug)).toBe(1);

    // A crash between committing and storing the answer: the commit's trailers are enough, and the
    // coverage its test run recorded (lost with the crash) is recorded again on the commit.
    gitOut(repo.dir, ['update-ref', '-d', fixRecordRef(slug, req.letter.letter_id)]);
    const recovered = await applyFix(req, { ...deps(), recordCoverage: true });
    const { coverage, ...rest } = recovered;
    expect(rest).toEqual(first);
    expect(coverage?.files.find((f) => f.file === 'src/tax.js')).toEqual({
      file: 'src/tax.js',
      executable: expect.any(Number) as unknown as number,
      uncovered: [],
    });
    expect(await applyFix(req, deps())).toEqual(recovered);
    expect(commitsOnBranch(repo, slug)).toBe(1);
    expect(gitOut(dir, ['status', '--porcelain=v1', '--untracked-files=all'])).toBe('');
  });

  it("given the command strategy, then the agent finds the letter through its environment and its edits become rloop's single commit per round", async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'command');
    const slug = 'cmd-plan';
    const { eslint } = await findingsAt(repo);
    const round1 = await script(
      'round1',
      [
        'test "$RLOOP_ROUND" = 1 || { echo "bad round $RLOOP_ROUND"; exit 3; }',
        `test "$RLOOP_PLAN" = ${slug} || exit 4`,
        'test "$RLOOP_WORKTREE" = "$(pwd)" || exit 5',
        'grep -q "$RLOOP_LETTER_ID" "$RLOOP_LETTER_JSON" || exit 6',
        'grep -q "^# Letter $RLOOP_LETTER_ID" "$RLOOP_LETTER_MD" || exit 7',
        "sed -i 's/let cents/const cents/' src/money.ts",
        // Agents sometimes commit on their own; rloop still makes exactly one commit for the round.
        'git -c user.name=agent -c user.email=agent@example.com commit -qam "agent commit"',
        'echo "fixed prefer-const in money.ts"',
      ].join('\n'),
    );
    const first = await applyFix(
      request(repo, slug, eslint, { implementer: { strategy: 'command', command: round1 } }),
      deps(),
    );
    expect(first).toMatchObject({
      outcome: 'committed',
      strategy: 'command',
      diff_stats: { files_changed: 1, insertions: 1, deletions: 1 },
    });
    const preferConst = eslint.find((f) => f.file === 'src/money.ts' && f.finding_type === 'eslint/prefer-const');
    expect(first.fixes_applied).toEqual([
      { file: 'src/money.ts', fixed_findings: [preferConst?.id], lines_changed: 2, hunks: [{ start: 5, end: 5 }] },
    ]);
    expect(commitsOnBranch(repo, slug)).toBe(1);
    expect(gitOut(repo.dir, ['log', '-1', '--format=%an', `rloop/${slug}`])).toBe('rloop');

    const round2 = await script(
      'round2',
      'test "$RLOOP_ROUND" = 2\nsed -i \'s/let net/const net/\' src/billing/invoice.ts',
    );
    const base2 = first.commit ?? '';
    const second = await applyFix(
      request(repo, slug, (await findingsAt(repo, base2)).eslint, {
        round: 2,
        base_commit: base2,
        letter: letterFor(slug, base2, [], { letter_id: '01JLETTER0000000000000000B' }),
        implementer: { strategy: 'command', command: round2 },
      }),
      deps(),
    );
    expect(second).toMatchObject({ outcome: 'committed', round: 2, base_commit: base2 });
    expect(commitsOnBranch(repo, slug)).toBe(2);
    expect(gitOut(repo.dir, ['rev-parse', `${second.commit ?? ''}^`])).toBe(base2);
  });

  it('given a command that exits 1, then the outcome is failed with the exit code and output, nothing is committed, and a redelivery repeats the answer', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'failing-command');
    const slug = 'failing-command';
    const command = await script(
      'fail',
      "echo 'half an edit' >> src/money.ts\necho 'the agent cannot fix this'\nexit 1",
    );
    const req = request(repo, slug, [], { implementer: { strategy: 'command', command } });

    const result = await applyFix(req, deps());
    expect(result).toMatchObject({
      outcome: 'failed',
      strategy: 'command',
      commit: null,
      fixes_applied: [],
      diff_stats: { files_changed: 0 },
    });
    expect(result.reason).toContain('exited with code 1');
    expect(result.reason).toContain('the agent cannot fix this');
    const dir = worktreeDirFor(workRoot, slug);
    expect(gitOut(dir, ['status', '--porcelain'])).toBe('');
    expect(gitOut(repo.dir, ['rev-parse', `rloop/${slug}`])).toBe(repo.commit);
    expect(await applyFix(req, deps())).toEqual(result);
  });

  it('given a command whose change breaks tests that passed at the baseline, then the change is reverted and the broken tests are named', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'regression');
    const slug = 'regression';
    const command = await script(
      'regress',
      "sed -i 's/Math.round(Math.abs(raw))/Math.floor(Math.abs(raw)) + 1/' src/tax.js",
    );
    const result = await applyFix(request(repo, slug, [], { implementer: { strategy: 'command', command } }), deps());

    expect(result).toMatchObject({ outcome: 'reverted', commit: null, tests_result: { failed: 2, regressions: 2 } });
    expect(result.reason).toContain('tax is rounded to whole cents');
    expect(result.reason).toContain('tax on a refund is negative');
    expect(result.fixes_applied.map((f) => f.file)).toEqual(['src/tax.js']);
    expect(gitOut(worktreeDirFor(workRoot, slug), ['status', '--porcelain'])).toBe('');
    expect(gitOut(repo.dir, ['rev-parse', `rloop/${slug}`])).toBe(repo.commit);
  });

  it('given tests that already failed at the baseline, then they do not block the fix', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'known-bug');
    await writeFile(
      join(repo.dir, 'test', 'known-bug.test.mjs'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('known bug', () => assert.equal(1, 2));\n",
    );
    gitOut(repo.dir, ['add', '-A']);
    gitOut(repo.dir, ['commit', '-qm', 'a known bug']);
    const commit = gitOut(repo.dir, ['rev-parse', 'HEAD']);
    const slug = 'known-bug';
    const baseline = await recordBaseline(
      { slug, runId: RUN_ID, repoPath: repo.dir, commit, testCmd: 'node --test' },
      deps(),
    );
    const { eslint } = await findingsAt(repo, commit);

    const result = await applyFix(
      request(repo, slug, eslint, { base_commit: commit, baseline_failing: baseline.failing }),
      deps(),
    );
    expect(result).toMatchObject({ outcome: 'committed', tests_result: { failed: 1, regressions: 0 } });
  });

  it('given a strategy that changes nothing, then the outcome is no_change', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'no-change');
    const result = await applyFix(
      request(repo, 'no-change', [], { implementer: { strategy: 'command', command: 'echo nothing to do' } }),
      deps(),
    );
    expect(result).toMatchObject({ outcome: 'no_change', commit: null, tests_result: { passed: 3, regressions: 0 } });
    expect(result.reason).toContain('nothing to do');
  });

  it('given a strategy this implementer does not offer, then the outcome is failed and says so', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'unavailable');
    const result = await applyFix(request(repo, 'unavailable', [], { implementer: { strategy: 'anthropic' } }), deps());
    expect(result).toMatchObject({ outcome: 'failed', strategy: 'anthropic', commit: null });
    expect(result.reason).toContain('not available');
  });

  it('given a test command and an implementer command the operator did not allow (a forged request), then neither runs and FixApplied says why', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'refused');
    const marker = join(tmp.path, 'refused-ran');
    const result = await applyFix(
      request(repo, 'refused', [], {
        test_cmd: `touch ${marker}.tests`,
        implementer: { strategy: 'command', command: `touch ${marker}.agent` },
      }),
      deps(),
    );
    expect(result).toMatchObject({ outcome: 'failed', strategy: 'command', commit: null, fixes_applied: [] });
    expect(result.reason).toMatch(
      /^rloop refused to run the plan: test_cmd: the command "touch \S+\.tests" is not allowed on this fleet: .* commands\.allow of config\/trust\.yaml .*; implementer\.command: the command "touch \S+\.agent" is not allowed/,
    );
    expect(existsSync(`${marker}.tests`) || existsSync(`${marker}.agent`)).toBe(false);
  });
});
