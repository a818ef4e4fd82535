import { performance } from 'node:perf_hooks';
import { BaselineRecorded, type DataOf } from '@rloop/contracts';
import type { ImplementerEnv } from '../deps.js';
import { RecordInvalidError } from '../errors.js';
import { baselineRecordRef, readRecord, writeRecord } from '../git/records.js';
import { planRemote } from '../git/remote.js';
import { branchFor, ensureWorktree } from '../git/worktree.js';
import { commandRefusal } from '../shell/allowlist.js';
import { runPlanTests } from '../test-run/plan-tests.js';

export type BaselineRecordedData = DataOf<'BaselineRecorded'>;

export interface RecordBaselineInput {
  readonly slug: string;
  /** The loop run (LoopGated's correlation_id): one baseline per run, however often the event arrives. */
  readonly runId: string;
  readonly repoPath: string;
  /** The plan's repository URL, when it was given by URL: the baseline runs in this implementer's own copy of it. */
  readonly repoUrl?: string;
  /** The gated commit. */
  readonly commit: string;
  readonly testCmd: string;
}

/** How many failing names an event may carry (BaselineRecorded.failing's limit). */
const MAX_FAILING = 1000;

/** The exit code recorded for a test command rloop refused to run (a shell's "cannot execute"). */
export const REFUSED_EXIT_CODE = 126;

/** An exit code for the record when the process had none: 124 for a timeout (as coreutils' timeout), -1 for a signal. */
export function exitCodeOf(run: { readonly exitCode: number | null; readonly timedOut: boolean }): number {
  return run.exitCode ?? (run.timedOut ? 124 : -1);
}

/**
 * Runs the plan's tests at the gated commit in the plan's worktree (creating `rloop/<slug>` there)
 * and returns the data of BaselineRecorded. Idempotent per run: the result is stored in the
 * repository (refs/rloop/<slug>/baselines/<runId>), and a redelivered LoopGated gets the stored
 * answer without touching the worktree (which later rounds may have moved on).
 */
export async function recordBaseline(given: RecordBaselineInput, deps: ImplementerEnv): Promise<BaselineRecordedData> {
  const remote = await planRemote(given.repoUrl, deps.workRoot, [given.commit]);
  const input: RecordBaselineInput = remote === null ? given : { ...given, repoPath: remote.dir };
  const ref = baselineRecordRef(input.slug, input.runId);
  const stored = await readRecord(input.repoPath, ref);
  if (stored !== null) {
    const parsed = BaselineRecorded.shape.data.safeParse(stored);
    if (!parsed.success) throw new RecordInvalidError(ref, parsed.error.message);
    return parsed.data;
  }
  const clock = deps.clock ?? (() => performance.now());
  const started = clock();
  const worktree = await ensureWorktree({
    repoPath: input.repoPath,
    slug: input.slug,
    workRoot: deps.workRoot,
    commit: input.commit,
    branch: branchFor(input.slug),
  });
  const refused = commandRefusal({ test_cmd: input.testCmd, implementer: { strategy: 'autofix' } }, deps.commands);
  if (refused !== null) {
    // Nothing runs; the baseline says why (as its one failing "test"), and every fix of the run will be refused too.
    const data = BaselineRecorded.shape.data.parse({
      commit: input.commit,
      branch: worktree.branch,
      tests: { added: 0, passed: 0, failed: 1, total: 1, regressions: 0, warnings: 0 },
      exit_code: REFUSED_EXIT_CODE,
      failing: [refused.message],
      duration_ms: 0,
    } satisfies BaselineRecordedData);
    await writeRecord(input.repoPath, ref, data);
    return data;
  }
  const { run, coverage } = await runPlanTests(worktree.dir, input.testCmd, deps);
  const data = BaselineRecorded.shape.data.parse({
    commit: input.commit,
    branch: worktree.branch,
    tests: {
      added: 0,
      passed: run.passed,
      failed: run.failed,
      total: run.total,
      regressions: 0,
      warnings: run.warnings,
    },
    exit_code: exitCodeOf(run),
    failing: run.failing.slice(0, MAX_FAILING),
    duration_ms: Math.max(0, Math.round(clock() - started)),
    ...(coverage === null ? {} : { coverage }),
  } satisfies BaselineRecordedData);
  await writeRecord(input.repoPath, ref, data);
  return data;
}
