import { RloopError } from '@rloop/contracts';

/** Stable error codes of git operations. */
export const GIT_ERROR_CODES = {
  failed: 'GIT.FAILED',
  commitNotFound: 'GIT.COMMIT_NOT_FOUND',
  unsafeRepository: 'GIT.UNSAFE_REPOSITORY',
  outputTooLarge: 'GIT.OUTPUT_TOO_LARGE',
  pushRejected: 'GIT.PUSH_REJECTED',
} as const;

/** A git command exited non-zero. Not retryable: the same command on the same repository fails again. */
export class GitCommandError extends RloopError {
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(args: readonly string[], exitCode: number | null, stderr: string, options: { cause?: unknown } = {}) {
    super(
      GIT_ERROR_CODES.failed,
      `git ${args.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim().slice(-2000)}`,
      options,
    );
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** A commit named by an event does not exist in the repository (it was never fetched, or was garbage-collected). */
export class CommitNotFoundError extends RloopError {
  constructor(repoPath: string, commit: string) {
    super(GIT_ERROR_CODES.commitNotFound, `commit ${commit} does not exist in ${repoPath}`);
  }
}

/** A repository rloop will not work in as it is: owned by another user, or configured to work on a directory elsewhere. */
export class UnsafeRepositoryError extends RloopError {
  readonly repoPath: string;

  constructor(repoPath: string, why: string) {
    super(GIT_ERROR_CODES.unsafeRepository, `git will not work in ${repoPath}: ${why}`);
    this.repoPath = repoPath;
  }
}

/** A git command printed more than the runner keeps (GitOptions.maxOutputBytes); it was stopped. Not retryable. */
export class GitOutputTooLargeError extends RloopError {
  readonly args: readonly string[];
  readonly limitBytes: number;

  constructor(args: readonly string[], limitBytes: number) {
    super(
      GIT_ERROR_CODES.outputTooLarge,
      `git ${args.filter((a) => a !== '-c' && !a.includes('=')).join(' ')} printed more than ${limitBytes} bytes; it was stopped`,
    );
    this.args = args;
    this.limitBytes = limitBytes;
  }
}

/** A push git refused: a ref of the remote was not where the lease expected it (someone else moved it), or the update was not a fast-forward. Not retryable as it is: read the remote again first. */
export class PushRejectedError extends RloopError {
  readonly url: string;
  readonly refs: readonly string[];

  constructor(url: string, refs: readonly string[], stderr: string, options: { cause?: unknown } = {}) {
    super(
      GIT_ERROR_CODES.pushRejected,
      `the push of ${refs.join(', ')} was refused: the remote moved meanwhile (${stderr.trim().split('\n').slice(-3).join(' / ').slice(0, 1000)})`,
      options,
    );
    this.url = url;
    this.refs = refs;
  }
}
