import { readFile } from 'node:fs/promises';
import type { Letter } from '@rloop/contracts';
import { changedHunks, changesSince, fileAtCommit, type FileChange } from './git.js';
import { describeWarnings, type LintWarning, type WarningLister, warningsByFile } from './lint-warnings.js';
import { runPassed, type TestRunner, type TestRunResult } from './test-runner.js';
import { compareTestSources, isTestPath, testSourceStats } from './test-source.js';
import type { WrittenTest } from './test-writer.js';
import { realWorktreeRoot, resolveInWorktree } from './worktree.js';

/** Why a fix is refused. */
export const VERIFY_REFUSALS = [
  'no_source_change',
  'red_test_modified',
  'red_test_still_failing',
  'test_deleted',
  'test_weakened',
  'test_skipped',
  'regression',
  'suite_failed',
  'new_warnings',
  'diff_too_large',
] as const;
export type VerifyRefusal = (typeof VERIFY_REFUSALS)[number];

export interface VerifyReason {
  readonly code: VerifyRefusal;
  readonly detail: string;
}

/** Shaped for FixApplied: tests_result, diff_stats and fixes_applied. */
export interface FixVerdict {
  readonly accepted: boolean;
  readonly reasons: readonly VerifyReason[];
  readonly testsResult: {
    readonly added: number;
    readonly passed: number;
    readonly failed: number;
    readonly total: number;
    readonly regressions: number;
    readonly warnings: number;
  };
  readonly diffStats: { readonly files_changed: number; readonly insertions: number; readonly deletions: number };
  readonly fixesApplied: readonly {
    readonly file: string;
    readonly fixed_findings: string[];
    readonly lines_changed: number;
    readonly hunks: { start: number; end: number }[];
  }[];
  readonly regressions: readonly string[];
  readonly warnings: number;
}

export interface VerifyFixOptions {
  readonly worktreeDir: string;
  /** The commit the round started from (before the tests were written). */
  readonly baseCommit: string;
  /** Tests already failing at the baseline (BaselineRecorded.failing): not regressions. */
  readonly baselineFailing: readonly string[];
  readonly runTests: TestRunner;
  /** Compiler/linter warnings in the worktree now (the compiler-linter critic). */
  readonly listWarnings: WarningLister;
  /** Warnings at the base commit, before the red tests were written. Default none: the loop's floor is zero warnings. */
  readonly baselineWarnings?: readonly LintWarning[];
  /** Lines inserted + deleted by the fix (red tests excluded). */
  readonly maxDiffLines: number;
  /** The red tests as writeFailingTests confirmed them: they must be unchanged and pass now. */
  readonly redTests: readonly WrittenTest[];
  /** For fixes_applied.fixed_findings (findings whose file the fix changed). */
  readonly letter?: Letter;
  readonly isTestFile?: (path: string) => boolean;
  readonly signal?: AbortSignal;
}

async function currentContent(root: string, file: string): Promise<string | null> {
  try {
    const { absolute } = await resolveInWorktree(root, file);
    return await readFile(absolute, 'utf8');
  } catch {
    return null; // gone (or unreadable): for a red test, both mean it is not the test that was written
  }
}

/** Checks the diff and the test files without running anything. Exposed for the unit tests. */
export async function staticChecks(
  root: string,
  options: Pick<VerifyFixOptions, 'baseCommit' | 'redTests' | 'maxDiffLines' | 'isTestFile'>,
  changes: readonly FileChange[],
): Promise<VerifyReason[]> {
  const isTest = options.isTestFile ?? isTestPath;
  const reasons: VerifyReason[] = [];
  const redFiles = new Set(options.redTests.map((t) => t.file));
  for (const red of options.redTests) {
    const now = await currentContent(root, red.file);
    if (now === null)
      reasons.push({
        code: 'red_test_modified',
        detail: `${red.file} (a failing test written for the letter) was deleted`,
      });
    else if (now !== red.content)
      reasons.push({
        code: 'red_test_modified',
        detail: `${red.file} (a failing test written for the letter) was changed`,
      });
  }
  const fix = changes.filter((c) => !redFiles.has(c.file));
  if (!fix.some((c) => !isTest(c.file))) {
    reasons.push({
      code: 'no_source_change',
      detail: 'the change touches only tests: a fix must change the code under test',
    });
  }
  for (const change of fix.filter((c) => isTest(c.file))) {
    if (change.status === 'deleted') {
      reasons.push({ code: 'test_deleted', detail: `${change.file} was deleted` });
      continue;
    }
    const after = (await currentContent(root, change.file)) ?? '';
    const before = change.status === 'added' ? null : await fileAtCommit(root, options.baseCommit, change.file);
    if (before === null) {
      const skips = testSourceStats(after).skipMarkers;
      if (skips.length > 0)
        reasons.push({
          code: 'test_skipped',
          detail: `${change.file} adds skipped or focused tests (${skips.join(', ')})`,
        });
      continue;
    }
    const weakening = compareTestSources(before, after);
    if (weakening.removedTests > 0)
      reasons.push({ code: 'test_deleted', detail: `${change.file} lost ${weakening.removedTests} test(s)` });
    if (weakening.removedAssertions > 0)
      reasons.push({
        code: 'test_weakened',
        detail: `${change.file} lost ${weakening.removedAssertions} assertion(s)`,
      });
    if (weakening.addedSkipMarkers.length > 0)
      reasons.push({
        code: 'test_skipped',
        detail: `${change.file} now skips or focuses tests (${weakening.addedSkipMarkers.join(', ')})`,
      });
  }
  const lines = fix.reduce((sum, c) => sum + c.insertions + c.deletions, 0);
  if (lines > options.maxDiffLines)
    reasons.push({
      code: 'diff_too_large',
      detail: `the fix changes ${lines} lines; the bound is ${options.maxDiffLines}`,
    });
  return reasons;
}

function summary(result: TestRunResult): string {
  const status = result.timedOut ? 'timed out' : `exit code ${result.exitCode ?? 'none'}`;
  return `${status}; ${result.passed.length} passed, ${result.failed.length} failed`;
}

/**
 * The verifier (step c): deterministic, no model. Accepts a fix only when the failing tests
 * written for the letter are untouched and now pass, the whole suite passes (failures already
 * there at the baseline excepted), no file of the code (the red tests aside: their warnings are the
 * test writer's) has more compiler/linter warnings than at the base, the diff stays within
 * the bound, and no test was weakened: a change that only edits tests is refused, and so is
 * deleting, skipping or emptying tests and assertions.
 */
export async function verifyFix(options: VerifyFixOptions): Promise<FixVerdict> {
  const root = await realWorktreeRoot(options.worktreeDir);
  const changes = await changesSince(root, options.baseCommit);
  const reasons = await staticChecks(root, options, changes);
  const signal = options.signal === undefined ? {} : { signal: options.signal };

  // Names of the red tests as the runner reports them, so a red test still failing in the
  // suite run counts once (red_test_still_failing), not also as a regression.
  const redNames = new Set<string>();
  if (options.redTests.length > 0) {
    const red = await options.runTests({
      worktreeDir: root,
      testFiles: [...new Set(options.redTests.map((t) => t.file))],
      ...signal,
    });
    for (const name of [...red.passed, ...red.failed]) redNames.add(name);
    if (!runPassed(red))
      reasons.push({
        code: 'red_test_still_failing',
        detail: `the tests written for the letter do not pass: ${summary(red)}`,
      });
  }
  const suite = await options.runTests({ worktreeDir: root, ...signal });
  const baseline = new Set(options.baselineFailing);
  const regressions = suite.failed.filter((name) => !baseline.has(name) && !redNames.has(name));
  if (regressions.length > 0)
    reasons.push({
      code: 'regression',
      detail: `tests failing now that did not fail at the baseline: ${regressions.slice(0, 20).join(', ')}`,
    });
  else if (suite.timedOut || (suite.exitCode !== 0 && suite.failed.length === 0)) {
    // A crash or a hang is not explained by any known failure.
    reasons.push({ code: 'suite_failed', detail: `the test suite did not complete cleanly: ${summary(suite)}` });
  }
  // The fix is judged by the code's warnings: the red tests' own are the test writer's (it was made to fix them), not the fix's.
  const redFiles = new Set(options.redTests.map((t) => t.file));
  const listed = await options.listWarnings(root);
  const code = listed.filter((w) => !redFiles.has(w.file));
  const before = warningsByFile(options.baselineWarnings ?? []);
  const gained = [...warningsByFile(code)]
    .filter(([file, count]) => count > (before.get(file) ?? 0))
    .map(([file]) => file);
  const warnings = code.length;
  if (gained.length > 0) {
    const added = code.filter((w) => gained.includes(w.file));
    reasons.push({
      code: 'new_warnings',
      detail: `files with more compiler/linter warnings than at the base: ${gained.join(', ')}\n${describeWarnings(added)}`,
    });
  }

  const fix = changes.filter((c) => !redFiles.has(c.file));
  const fixesApplied = [];
  for (const change of fix) {
    const hunks =
      change.status === 'deleted'
        ? []
        : change.status === 'added'
          ? change.insertions > 0
            ? [{ start: 1, end: change.insertions }]
            : []
          : await changedHunks(root, options.baseCommit, change.file);
    fixesApplied.push({
      file: change.file,
      fixed_findings: (options.letter?.findings ?? []).filter((f) => f.file === change.file).map((f) => f.id),
      lines_changed: change.insertions + change.deletions,
      hunks,
    });
  }
  return {
    accepted: reasons.length === 0,
    reasons,
    testsResult: {
      added: options.redTests.length,
      passed: suite.passed.length,
      failed: suite.failed.length,
      total: suite.passed.length + suite.failed.length + suite.skipped.length,
      regressions: regressions.length,
      warnings,
    },
    diffStats: {
      files_changed: fix.length,
      insertions: fix.reduce((sum, c) => sum + c.insertions, 0),
      deletions: fix.reduce((sum, c) => sum + c.deletions, 0),
    },
    fixesApplied,
    regressions,
    warnings,
  };
}
