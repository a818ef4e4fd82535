import { type CommandLimits, type TestRunner, parseTapOutput, runCommand } from '@rloop/llm';
import { parseTestOutput } from '../test-run/test-output.js';

export interface PlanTestRunnerOptions {
  /** The plan's test command. */
  readonly command: string;
  readonly timeoutMs: number;
  /** The command's environment (secret-looking names are removed by runCommand too). */
  readonly env: Readonly<Record<string, string>>;
  /** The operator's output and memory limits. */
  readonly limits?: CommandLimits;
}

// Large suites print a lot; failing names near the middle of the output must not be cut.
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/**
 * The anthropic strategy's TestRunner over the plan's test command: selected files are appended
 * as arguments. Failing names come from the same reader the baseline used (parseTestOutput), so
 * the verifier compares like with like; passed names from TAP when the runner prints it.
 */
export function createPlanTestRunner(options: PlanTestRunnerOptions): TestRunner {
  return async (request) => {
    const result = await runCommand(options.command, {
      cwd: request.worktreeDir,
      timeoutMs: options.timeoutMs,
      env: options.env,
      extraArgs: request.testFiles ?? [],
      maxOutputBytes: MAX_OUTPUT_BYTES,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    const output = `${result.stdout}${result.stderr === '' ? '' : `\n${result.stderr}`}`;
    const parsed = parseTestOutput(output, {
      exitCode: result.timedOut ? null : result.exitCode,
      cwd: request.worktreeDir,
    });
    const tap = parseTapOutput(result.stdout);
    // Without TAP only the count of passing tests is known; placeholders keep the counts right.
    const passed =
      tap.passed.length === parsed.passed
        ? tap.passed
        : Array.from({ length: parsed.passed }, (_v, i) => `(passing test ${i + 1})`);
    return {
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      passed,
      failed: [...parsed.failing],
      skipped: tap.skipped,
      output,
      durationMs: result.durationMs,
    };
  };
}
