import { performance } from 'node:perf_hooks';
import { type DataOf, FixApplied, type Finding, type FixedFile } from '@rloop/contracts';
import type { ImplementerEnv } from '../deps.js';
import { AbortedError, RecordInvalidError, StrategyFailedError } from '../errors.js';
import { type DiffSummary, diffSummary, isTestFile } from '../git/diff.js';
import { DEFAULT_IDENTITY, PushRejectedError, commitConfigArgs, git, gitText } from '@rloop/git';
import { fixRecordRef, readRecord, writeRecord } from '../git/records.js';
import { RemoteMovedError, planRemote, trackingRef } from '../git/remote.js';
import { NO_HOOKS, ensureWorktree, resetWorktree } from '../git/worktree.js';
import type { StrategyResolver } from '../strategies/strategy.js';
import { commandRefusal } from '../shell/allowlist.js';
import { diffTestResults } from '../test-run/test-output.js';
import { runPlanTests } from '../test-run/plan-tests.js';

export type FixRequestedData = DataOf<'FixRequested'>;
export type FixAppliedData = DataOf<'FixApplied'>;
type TestsResult = FixAppliedData['tests_result'];

export interface FixCycleDeps extends ImplementerEnv {
  readonly strategyFor: StrategyResolver;
}

/** Trailer keys on rloop's fix commits: how a redelivered request finds and re-reads its commit. */
export const TRAILERS = {
  letter: 'Rloop-Letter',
  round: 'Rloop-Round',
  strategy: 'Rloop-Strategy',
  tests: 'Rloop-Tests',
  duration: 'Rloop-Duration-Ms',
} as const;

const MAX_REASON = 4000;
/** FixApplied.patch is bounded so events stay small; reports show the start of a long diff. */
const MAX_PATCH = 16_000;
const NO_CHANGE_STATS = { files_changed: 0, insertions: 0, deletions: 0 } as const;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start <= b.end && b.start <= a.end;
}

/**
 * Maps changed files to the letter's findings. A finding counts as addressed by a file's change
 * when the change touched its line range (compared on the letter's commit, where the finding's
 * lines are), or when the file was deleted. Findings in a changed file whose lines were not touched
 * are not claimed: the next round's critics say whether they still reproduce.
 */
export function fixedFiles(diff: DiffSummary, findings: readonly Finding[]): FixedFile[] {
  return diff.files.map((change) => ({
    file: change.file,
    fixed_findings: findings
      .filter(
        (f) =>
          f.file === change.file &&
          (change.status === 'deleted' || change.oldRanges.some((r) => overlaps(r, f.line_range))),
      )
      .map((f) => f.id),
    lines_changed: change.insertions + change.deletions,
    hunks: [...change.hunks],
  }));
}

/** The attempt as a unified diff (cut to MAX_PATCH characters), for stuck-issue reports. */
async function attemptPatch(cwd: string, range: readonly string[]): Promise<string> {
  const text = await gitText(
    ['-c', 'core.quotePath=false', 'diff', '--no-renames', '--no-ext-diff', '--no-color', ...range],
    { cwd },
  );
  return text.length <= MAX_PATCH ? text : `${text.slice(0, MAX_PATCH - 60)}\n… (diff cut at ${MAX_PATCH} characters)`;
}

function diffStats(diff: DiffSummary): FixAppliedData['diff_stats'] {
  return { files_changed: diff.files.length, insertions: diff.insertions, deletions: diff.deletions };
}

function testsAdded(diff: DiffSummary): string[] {
  return diff.files.filter((f) => f.status === 'added' && isTestFile(f.file)).map((f) => f.file);
}

const EMPTY_TESTS: TestsResult = { added: 0, passed: 0, failed: 0, total: 0, regressions: 0, warnings: 0 };

function formatTests(t: TestsResult): string {
  return `added=${t.added} passed=${t.passed} failed=${t.failed} total=${t.total} regressions=${t.regressions} warnings=${t.warnings}`;
}

function parseTests(text: string): TestsResult | null {
  const values: Record<string, number> = {};
  for (const part of text.trim().split(/\s+/)) {
    const [key, value] = part.split('=');
    if (key !== undefined && value !== undefined && /^\d+$/.test(value)) values[key] = Number(value);
  }
  const { added, passed, failed, total, regressions, warnings } = values;
  if (
    added === undefined ||
    passed === undefined ||
    failed === undefined ||
    total === undefined ||
    regressions === undefined ||
    warnings === undefined
  )
    return null;
  return { added, passed, failed, total, regressions, warnings };
}

async function trailersOf(repoPath: string, commit: string): Promise<Map<string, string>> {
  const text = await gitText(['log', '-1', '--format=%(trailers:only,unfold)', commit], { cwd: repoPath });
  const trailers = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z0-9-]+): (.*)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) trailers.set(match[1], match[2]);
  }
  return trailers;
}

/** The commit on the plan's branch (`branchRef`: the local branch, or what the remote's was when read) after `base` that carries this letter's trailer, if any. */
async function findFixCommit(
  repoPath: string,
  branchRef: string,
  base: string,
  letterId: string,
): Promise<string | null> {
  const tip = await git(['rev-parse', '-q', '--verify', `${branchRef}^{commit}`], { cwd: repoPath, okExitCodes: [1] });
  if (tip.exitCode !== 0) return null;
  const log = await git(
    ['log', '-z', `--format=%H%n%(trailers:key=${TRAILERS.letter},valueonly)`, `${base}..${tip.stdout.trim()}`],
    { cwd: repoPath },
  );
  for (const record of log.stdout.split('\0')) {
    const [sha, ...values] = record.trim().split('\n');
    if (sha !== undefined && values.some((v) => v.trim() === letterId)) return sha;
  }
  return null;
}

/**
 * The FixApplied data of a committed fix, read back from the commit itself (its diff against the
 * base and its trailers). Used both right after committing and on redelivery, so both give the
 * same data.
 */
async function committedResult(request: FixRequestedData, commit: string): Promise<FixAppliedData> {
  const trailers = await trailersOf(request.repo_path, commit);
  const tests = parseTests(trailers.get(TRAILERS.tests) ?? '');
  const duration = Number(trailers.get(TRAILERS.duration) ?? Number.NaN);
  const strategy = trailers.get(TRAILERS.strategy);
  if (tests === null || !Number.isInteger(duration) || strategy === undefined) {
    throw new RecordInvalidError(
      `commit ${commit}`,
      `its ${TRAILERS.tests}, ${TRAILERS.duration} or ${TRAILERS.strategy} trailer is missing or malformed`,
    );
  }
  const diff = await diffSummary(request.repo_path, request.base_commit, { commit });
  return FixApplied.shape.data.parse({
    round: request.round,
    letter_id: request.letter.letter_id,
    strategy,
    outcome: 'committed',
    fixes_applied: fixedFiles(diff, request.letter.findings),
    tests_added: testsAdded(diff),
    tests_result: tests,
    base_commit: request.base_commit,
    commit,
    diff_stats: diffStats(diff),
    duration_ms: duration,
    patch: await attemptPatch(request.repo_path, [request.base_commit, commit]),
  } satisfies FixAppliedData);
}

function commitMessage(
  request: FixRequestedData,
  strategy: string,
  diff: DiffSummary,
  fixes: readonly FixedFile[],
  tests: TestsResult,
  durationMs: number,
): string {
  const addressed = fixes.reduce((sum, f) => sum + f.fixed_findings.length, 0);
  return [
    `rloop: round ${request.round} fixes for ${request.letter.plan}`,
    '',
    `The ${strategy} strategy changed ${diff.files.length} file(s) (+${diff.insertions} -${diff.deletions}) for letter`,
    `${request.letter.letter_id}, touching ${addressed} of its ${request.letter.findings.length} finding(s).`,
    `Tests: ${tests.passed} passed, ${tests.failed} failed of ${tests.total}; ${tests.regressions} regression(s).`,
    '',
    `${TRAILERS.letter}: ${request.letter.letter_id}`,
    `${TRAILERS.round}: ${request.round}`,
    `${TRAILERS.strategy}: ${strategy}`,
    `${TRAILERS.tests}: ${formatTests(tests)}`,
    `${TRAILERS.duration}: ${durationMs}`,
    '',
  ].join('\n');
}

/** Runs the plan's tests on a committed fix in the plan's worktree and returns the coverage they recorded. */
async function coverageAt(
  request: FixRequestedData,
  commit: string,
  deps: FixCycleDeps,
): Promise<FixAppliedData['coverage'] | null> {
  const { dir } = await ensureWorktree({
    repoPath: request.repo_path,
    slug: request.letter.plan,
    workRoot: deps.workRoot,
    commit,
    branch: request.branch,
  });
  const { coverage } = await runPlanTests(dir, request.test_cmd, deps);
  await resetWorktree(dir, request.branch, commit);
  return coverage;
}

/** Reads a stored FixApplied record, or null when the letter was never handled. */
async function storedResult(repoPath: string, ref: string): Promise<FixAppliedData | null> {
  const stored = await readRecord(repoPath, ref);
  if (stored === null) return null;
  const parsed = FixApplied.shape.data.safeParse(stored);
  if (!parsed.success) throw new RecordInvalidError(ref, parsed.error.message);
  return parsed.data;
}

/**
 * Fixes one letter: resets the plan's worktree to the letter's commit, runs the plan's strategy,
 * runs the tests, and either commits the change on the plan's branch (one commit per round, with
 * `Rloop-Letter`/`Rloop-Round` trailers), reverts it (it broke tests that passed at the baseline),
 * or reports no change / a failed strategy. Returns the data of FixApplied.
 *
 * Idempotent: the answer is stored in the repository (refs/rloop/<slug>/fixes/<letter_id>); a
 * redelivered request gets it back without redoing anything, and a crash between committing and
 * storing is recovered by finding the commit through its trailer. A crash before that leaves a
 * half-done worktree, which the redelivery resets to the base commit before redoing the work.
 */
export async function applyFix(given: FixRequestedData, deps: FixCycleDeps): Promise<FixAppliedData> {
  // A plan given by URL is worked on in this implementer's own copy (the base commit fetched by sha), and its branch pushed back with a lease.
  const remote = await planRemote(given.repo_url, deps.workRoot, [given.base_commit]);
  const request: FixRequestedData = remote === null ? given : { ...given, repo_path: remote.dir };
  const letter = request.letter;
  const ref = fixRecordRef(letter.plan, letter.letter_id);
  const stored = await storedResult(request.repo_path, ref);
  if (stored !== null) return stored;
  const remoteBranch = `refs/heads/${request.branch}`;
  // What the plan's branch is on its repository now: the lease of our push, and where another implementer's fix of this letter would be.
  const remoteTip =
    remote === null ? null : await remote.cache.fetchRef(remote.url, remoteBranch, trackingRef(remoteBranch));
  const recover = async (): Promise<FixAppliedData | null> => {
    const found = await findFixCommit(
      request.repo_path,
      remote === null ? remoteBranch : trackingRef(remoteBranch),
      request.base_commit,
      letter.letter_id,
    );
    if (found === null) return null;
    const recovered = await committedResult(request, found);
    // The coverage of the crashed attempt's test run was lost with it: the test-coverage critic
    // reads it for this commit, so the tests run again on the commit (only on this crash path).
    const coverage = deps.recordCoverage === true ? await coverageAt(request, found, deps) : null;
    const result = { ...recovered, ...(coverage === null ? {} : { coverage }) };
    await writeRecord(request.repo_path, ref, result);
    return result;
  };
  const recovered = await recover();
  if (recovered !== null) return recovered;

  const clock = deps.clock ?? (() => performance.now());
  const started = clock();
  const elapsed = (): number => Math.max(0, Math.round(clock() - started));
  const signal = deps.signal ?? new AbortController().signal;
  const worktree = await ensureWorktree({
    repoPath: request.repo_path,
    slug: letter.plan,
    workRoot: deps.workRoot,
    commit: request.base_commit,
    branch: request.branch,
  });
  const dir = worktree.dir;
  const finish = async (data: FixAppliedData): Promise<FixAppliedData> => {
    const valid = FixApplied.shape.data.parse(data);
    await writeRecord(request.repo_path, ref, valid);
    return valid;
  };
  const notApplied = (
    outcome: 'no_change' | 'failed',
    reason: string,
    strategy: string,
    tests: TestsResult = EMPTY_TESTS,
  ): FixAppliedData => ({
    round: request.round,
    letter_id: letter.letter_id,
    strategy,
    outcome,
    reason: cut(reason, MAX_REASON),
    fixes_applied: [],
    tests_added: [],
    tests_result: tests,
    base_commit: request.base_commit,
    commit: null,
    diff_stats: NO_CHANGE_STATS,
    duration_ms: elapsed(),
  });

  const refused = commandRefusal(request, deps.commands);
  if (refused !== null) return finish(notApplied('failed', refused.message, request.implementer.strategy));
  const strategy = deps.strategyFor(request.implementer);
  if (strategy === null) {
    return finish(
      notApplied(
        'failed',
        `the ${request.implementer.strategy} strategy is not available on this implementer`,
        request.implementer.strategy,
      ),
    );
  }
  let log: string;
  try {
    const outcome = await strategy.apply({ worktreeDir: dir, letter, round: request.round, env: deps.env, signal });
    if (outcome.skipped !== undefined) {
      await resetWorktree(dir, request.branch, request.base_commit);
      return finish(
        notApplied('no_change', `the ${strategy.name} strategy made no attempt: ${outcome.skipped}`, strategy.name),
      );
    }
    log = outcome.log;
  } catch (error) {
    if (!(error instanceof StrategyFailedError)) throw error;
    await resetWorktree(dir, request.branch, request.base_commit);
    const tail = error.outputTail.trim();
    return finish(
      notApplied(
        'failed',
        tail === ''
          ? error.message
          : `${error.message}; output ends with:\n${tail.slice(-(MAX_REASON - error.message.length - 40))}`,
        strategy.name,
      ),
    );
  }
  if (signal.aborted) throw new AbortedError('the fix cycle');

  // A strategy may commit or switch branches on its own; rloop makes exactly one commit on its branch.
  const head = await git(['symbolic-ref', '-q', 'HEAD'], { cwd: dir, okExitCodes: [1] });
  if (head.stdout.trim() !== `refs/heads/${request.branch}`) {
    await resetWorktree(dir, request.branch, request.base_commit);
    return finish(
      notApplied(
        'failed',
        `the ${strategy.name} strategy left the worktree off ${request.branch}; its work was discarded`,
        strategy.name,
      ),
    );
  }
  await git(['reset', '-q', '--soft', request.base_commit], { cwd: dir });
  await git(['add', '-A'], { cwd: dir });
  const diff = await diffSummary(dir, request.base_commit, { index: true });

  // The coverage is read while the worktree still holds what the tests ran (the change, before it is committed or reset).
  const { run, coverage } = await runPlanTests(dir, request.test_cmd, deps);
  const regressions = diffTestResults(request.baseline_failing, run);
  const added = testsAdded(diff);
  const tests: TestsResult = {
    added: added.length,
    passed: run.passed,
    failed: run.failed,
    total: run.total,
    regressions: regressions.length,
    warnings: run.warnings,
  };

  if (diff.files.length === 0) {
    await resetWorktree(dir, request.branch, request.base_commit);
    return finish(
      notApplied(
        'no_change',
        `the ${strategy.name} strategy changed nothing (${cut(log.trim(), 1000) || 'no output'})`,
        strategy.name,
        tests,
      ),
    );
  }
  if (regressions.length > 0) {
    const patch = await attemptPatch(dir, ['--cached', request.base_commit]);
    await resetWorktree(dir, request.branch, request.base_commit);
    const names =
      regressions.slice(0, 20).join(', ') + (regressions.length > 20 ? `, and ${regressions.length - 20} more` : '');
    return finish({
      round: request.round,
      letter_id: letter.letter_id,
      strategy: strategy.name,
      outcome: 'reverted',
      reason: cut(
        `reverted: the change broke ${regressions.length} test(s) that passed at the baseline: ${names}`,
        MAX_REASON,
      ),
      // What was attempted and rolled back: fix-attempt identity for the implementer-wall heuristic.
      fixes_applied: fixedFiles(diff, letter.findings),
      tests_added: added,
      tests_result: tests,
      base_commit: request.base_commit,
      commit: null,
      diff_stats: diffStats(diff),
      duration_ms: elapsed(),
      patch,
    });
  }

  const message = commitMessage(request, strategy.name, diff, fixedFiles(diff, letter.findings), tests, elapsed());
  await git(
    [...NO_HOOKS, ...commitConfigArgs(deps.identity ?? DEFAULT_IDENTITY), 'commit', '-q', '--no-verify', '-F', '-'],
    { cwd: dir, input: message },
  );
  const commit = await gitText(['rev-parse', 'HEAD'], { cwd: dir });
  // Drop what the test run left behind, so the next round starts from exactly this commit.
  await resetWorktree(dir, request.branch, commit);
  if (remote !== null) {
    try {
      // Only while the branch is where we read it: of two implementers on one letter, one moves it.
      await remote.cache.push(remote.url, [{ source: commit, ref: remoteBranch, expected: remoteTip }], dir);
    } catch (error) {
      if (!(error instanceof PushRejectedError)) throw error;
      await remote.cache.fetchRef(remote.url, remoteBranch, trackingRef(remoteBranch));
      // Another implementer committed this letter's fix first: its answer is the answer.
      const theirs = await recover();
      if (theirs !== null) {
        await resetWorktree(dir, request.branch, theirs.commit ?? request.base_commit);
        return theirs;
      }
      throw new RemoteMovedError(`${letter.plan} round ${request.round}: pushing ${request.branch}`, { cause: error });
    }
  }
  const result = { ...(await committedResult(request, commit)), ...(coverage === null ? {} : { coverage }) };
  await writeRecord(request.repo_path, ref, result);
  return result;
}
