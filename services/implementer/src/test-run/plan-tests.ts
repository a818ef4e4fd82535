import type { RecordedCoverage } from '@rloop/contracts';
import type { ImplementerEnv } from '../deps.js';
import { coverageDirFor, recordV8Coverage } from './coverage.js';
import { type TestRunResult, runTests } from './test-runner.js';

/**
 * Runs the plan's test command in a worktree with the implementer's settings, recording V8
 * coverage when the implementer records it (null otherwise, or when the run wrote none). The
 * coverage is read before returning, while the worktree still holds what the tests ran: callers
 * commit or reset it afterwards.
 */
export async function runPlanTests(
  dir: string,
  command: string,
  deps: ImplementerEnv,
): Promise<{ readonly run: TestRunResult; readonly coverage: RecordedCoverage | null }> {
  const coverageDir = deps.recordCoverage === true ? coverageDirFor(deps.workRoot) : undefined;
  const run = await runTests({
    cwd: dir,
    command,
    env: deps.env,
    timeoutMs: deps.testTimeoutMs,
    limits: deps.commands.limits,
    signal: deps.signal,
    coverageDir,
  });
  return { run, coverage: coverageDir === undefined ? null : recordV8Coverage(coverageDir, dir) };
}
