import { compilerLinterCritic, runCritic } from '@rloop/critics';
import { git } from '@rloop/git';
import type { WarningLister } from '@rloop/llm';
import { StrategyFailedError } from '../errors.js';

// TODO(calibration): 10 minutes covers tsc + ESLint on a mid-sized repository here; settle it from the critic's duration_ms.
const WARNING_COUNT_TIMEOUT_MS = 600_000;
const NO_COMMIT = '0'.repeat(40);

/**
 * Lists compiler and linter warnings in a worktree with the compiler-linter critic (tsc with the
 * repository's tsconfig, ESLint, deprecations): what the verifier compares before and after a fix
 * (file by file, the red tests aside), and what the test writer's tests are checked with. The
 * repository's own ESLint config is never loaded here: the worktree holds files the model wrote,
 * and loading a config runs it inside this process, next to the API key.
 */
export function createWarningLister(options: {
  readonly cacheDir: string;
  readonly signal?: AbortSignal;
}): WarningLister {
  const critic = compilerLinterCritic({ useRepoEslintConfig: false });
  return async (worktreeDir, only) => {
    const listed =
      only === undefined
        ? await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: worktreeDir })
        : null;
    // The critic picks the sources it can read out of the list itself.
    const files =
      listed === null ? [...(only ?? [])] : [...new Set(listed.stdout.split('\u0000').filter((f) => f !== ''))].sort();
    const result = await runCritic(
      critic,
      {
        repoDir: worktreeDir,
        commit: NO_COMMIT,
        files,
        phase: 'critical',
        cacheDir: options.cacheDir,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      { timeoutMs: WARNING_COUNT_TIMEOUT_MS },
    );
    if (result.status === 'failed')
      throw new StrategyFailedError(`the warning count (compiler-linter) failed: ${result.reason}: ${result.message}`);
    return result.findings.map((f) => ({
      file: f.file,
      line: f.line_range.start,
      rule: f.finding_type,
      message: f.title,
    }));
  };
}
