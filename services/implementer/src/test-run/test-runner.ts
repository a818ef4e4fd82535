import { AbortedError } from '../errors.js';
import { type ProcessLimits, runShell } from '../shell/run-shell.js';
import { COMMAND_FAILED, type ParsedTestOutput, parseTestOutput } from './test-output.js';

export interface RunTestsOptions {
  /** The worktree the plan's tests run in. */
  readonly cwd: string;
  /** The plan's `test_cmd`, run by /bin/sh. */
  readonly command: string;
  /** The command's complete environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  readonly limits?: ProcessLimits | undefined;
  readonly signal?: AbortSignal | undefined;
  /** How much of the output's end is kept in `outputTail`. Default 8 KiB. */
  readonly tailBytes?: number | undefined;
  /** Where the Node.js processes of the run write their V8 coverage (NODE_V8_COVERAGE); absent: none is collected. */
  readonly coverageDir?: string | undefined;
}

export interface TestRunResult extends ParsedTestOutput {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly outputTail: string;
}

/**
 * Runs the plan's test command and reads its result. A timeout, or output past the limit, is a
 * failed run (COMMAND_FAILED is among the failing names); an abort throws AbortedError so nothing
 * half-measured is reported.
 */
export async function runTests(options: RunTestsOptions): Promise<TestRunResult> {
  const run = await runShell({
    command: options.command,
    cwd: options.cwd,
    env: options.coverageDir === undefined ? options.env : { ...options.env, NODE_V8_COVERAGE: options.coverageDir },
    timeoutMs: options.timeoutMs,
    limits: options.limits,
    signal: options.signal,
    tailBytes: options.tailBytes,
  });
  if (run.aborted) throw new AbortedError(`the test command in ${options.cwd}`);
  const stopped = run.timedOut || run.outputLimited;
  const parsed = parseTestOutput(run.output, { exitCode: stopped ? null : run.exitCode, cwd: options.cwd });
  const stoppedResult =
    stopped && !parsed.failing.includes(COMMAND_FAILED)
      ? { ...parsed, failed: parsed.failed + 1, total: parsed.total + 1, failing: [...parsed.failing, COMMAND_FAILED] }
      : parsed;
  const why = run.timedOut
    ? `\n[rloop: the test command timed out after ${options.timeoutMs} ms]`
    : run.outputLimited
      ? `\n[rloop: the test command wrote more than ${options.limits?.outputBytes ?? 0} bytes of output and was stopped]`
      : '';
  return {
    ...stoppedResult,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    durationMs: run.durationMs,
    outputTail: `${run.tail}${why}`,
  };
}
