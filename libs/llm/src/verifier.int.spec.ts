import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createCommandTestRunner, type FixVerdict, verifyFix } from './index.js';
import {
  createTempRepo,
  RED_TEST,
  RED_TEST_PATH,
  SAMPLE_FILES,
  sampleLetter,
  TEST_COMMAND,
  TEST_ENV,
  type TempRepo,
} from './__fixtures__/helpers.js';

const FIXED_MATH = (SAMPLE_FILES['src/math.js'] ?? '').replace(
  '  if (value > max) return max;\n',
  '  if (value > max) return max;\n  if (value < min) return min;\n',
);
const DOUBLE_TEST = SAMPLE_FILES['test/double.test.js'] ?? '';

describe('verifyFix (deterministic, no model) on real git worktrees and node --test', () => {
  let repo: TempRepo | undefined;
  const runTests = createCommandTestRunner({ command: TEST_COMMAND, timeoutMs: 30_000, env: TEST_ENV });
  const redTests = [
    { file: RED_TEST_PATH, finding_ids: ['f-clamp-min'], name: 'clamp returns min below the range', content: RED_TEST },
  ];

  afterEach(async () => {
    await repo?.remove();
    repo = undefined;
  });

  /** A repo at the base commit with the red test written (as the test writer leaves it), then `change` applied. */
  async function verdictFor(
    change: (r: TempRepo) => Promise<void>,
    options: { maxDiffLines?: number; warnings?: number } = {},
  ): Promise<FixVerdict> {
    repo = await createTempRepo(SAMPLE_FILES);
    await repo.write(RED_TEST_PATH, RED_TEST);
    await change(repo);
    return await verifyFix({
      worktreeDir: repo.dir,
      baseCommit: repo.base,
      baselineFailing: [],
      runTests,
      listWarnings: () =>
        Promise.resolve(
          Array.from({ length: options.warnings ?? 0 }, (_v, i) => ({
            file: 'src/math.js',
            line: i + 1,
            rule: 'eslint/no-unused-vars',
            message: 'unused',
          })),
        ),
      maxDiffLines: options.maxDiffLines ?? 40,
      redTests,
      letter: sampleLetter(repo.base),
    });
  }

  it('accepts a real fix, with the data FixApplied needs', async () => {
    const verdict = await verdictFor((r) => r.write('src/math.js', FIXED_MATH));
    expect(verdict.reasons).toEqual([]);
    expect(verdict.accepted).toBe(true);
    expect(verdict.testsResult).toEqual({ added: 1, passed: 2, failed: 0, total: 2, regressions: 0, warnings: 0 });
    expect(verdict.diffStats).toEqual({ files_changed: 1, insertions: 1, deletions: 0 });
    expect(verdict.fixesApplied).toEqual([
      { file: 'src/math.js', fixed_findings: ['f-clamp-min'], lines_changed: 1, hunks: [{ start: 4, end: 4 }] },
    ]);
  });

  it('refuses a "fix" that only edits the failing test to turn it green', async () => {
    const verdict = await verdictFor((r) =>
      r.write(
        RED_TEST_PATH,
        RED_TEST.replace('assert.equal(clamp(-5, 0, 10), 0);', 'assert.equal(clamp(-5, 0, 10), -5);'),
      ),
    );
    expect(verdict.accepted).toBe(false);
    expect(verdict.reasons.map((r) => r.code)).toEqual(['red_test_modified', 'no_source_change']);
  });

  it('refuses a fix that also weakens, skips or deletes existing tests', async () => {
    const weakened = await verdictFor(async (r) => {
      await r.write('src/math.js', FIXED_MATH);
      await r.write('test/double.test.js', DOUBLE_TEST.replace('  assert.equal(double(-3), -6);\n', ''));
    });
    expect(weakened.reasons.map((r) => r.code)).toEqual(['test_weakened']);
    await repo?.remove();

    const skipped = await verdictFor(async (r) => {
      await r.write('src/math.js', FIXED_MATH);
      await r.write('test/double.test.js', DOUBLE_TEST.replace("test('double doubles'", "test.skip('double doubles'"));
    });
    expect(skipped.reasons.map((r) => r.code)).toEqual(['test_deleted', 'test_skipped']);
    await repo?.remove();

    const commented = await verdictFor(async (r) => {
      await r.write('src/math.js', FIXED_MATH);
      await r.write(
        'test/double.test.js',
        DOUBLE_TEST.replace('  assert.equal(double(2), 4);', '  // assert.equal(double(2), 4);'),
      );
    });
    expect(commented.reasons.map((r) => r.code)).toEqual(['test_weakened']);
    await repo?.remove();

    const deleted = await verdictFor(async (r) => {
      await r.write('src/math.js', FIXED_MATH);
      await rm(join(r.dir, 'test/double.test.js'));
    });
    expect(deleted.accepted).toBe(false);
    expect(deleted.reasons.map((r) => r.code)).toEqual(['test_deleted']);
  });

  it('refuses a diff over the bound, regressions and new warnings', async () => {
    const padding = Array.from({ length: 30 }, (_, i) => `export const PAD_${i} = ${i};`).join('\n');
    const oversized = await verdictFor((r) => r.write('src/math.js', `${FIXED_MATH}${padding}\n`), {
      maxDiffLines: 10,
    });
    expect(oversized.reasons).toEqual([
      { code: 'diff_too_large', detail: 'the fix changes 31 lines; the bound is 10' },
    ]);
    await repo?.remove();

    const regression = await verdictFor((r) =>
      r.write('src/math.js', FIXED_MATH.replace('return value * 2;', 'return value * 3;')),
    );
    expect(regression.reasons.map((r) => r.code)).toEqual(['regression']);
    expect(regression.regressions).toEqual(['double doubles']);
    expect(regression.testsResult.regressions).toBe(1);
    await repo?.remove();

    const warned = await verdictFor((r) => r.write('src/math.js', FIXED_MATH), { warnings: 2 });
    expect(warned.reasons).toEqual([
      {
        code: 'new_warnings',
        detail:
          'files with more compiler/linter warnings than at the base: src/math.js\nsrc/math.js:1 eslint/no-unused-vars: unused\nsrc/math.js:2 eslint/no-unused-vars: unused',
      },
    ]);
  });

  it('judges the fix by the code’s warnings: the red tests’ own are the test writer’s, and a file no worse than at the base is fine', async () => {
    repo = await createTempRepo(SAMPLE_FILES);
    await repo.write(RED_TEST_PATH, RED_TEST);
    await repo.write('src/math.js', FIXED_MATH);
    const warning = (file: string, line: number) => ({ file, line, rule: 'eslint/no-unused-vars', message: 'unused' });
    const verdict = await verifyFix({
      worktreeDir: repo.dir,
      baseCommit: repo.base,
      baselineFailing: [],
      runTests,
      // A warning in the red test, and src/math.js with as many warnings as at the base.
      listWarnings: () => Promise.resolve([warning(RED_TEST_PATH, 3), warning('src/math.js', 1)]),
      baselineWarnings: [warning('src/math.js', 7)],
      maxDiffLines: 40,
      redTests,
      letter: sampleLetter(repo.base),
    });
    expect(verdict.reasons).toEqual([]);
    expect(verdict.accepted).toBe(true);
    expect(verdict.warnings).toBe(1);
  });

  it('refuses a fix that leaves the failing test red', async () => {
    const verdict = await verdictFor((r) => r.write('src/math.js', `${SAMPLE_FILES['src/math.js'] ?? ''}// touched\n`));
    expect(verdict.reasons.map((r) => r.code)).toEqual(['red_test_still_failing']);
    expect(verdict.regressions).toEqual([]);
  });
});
