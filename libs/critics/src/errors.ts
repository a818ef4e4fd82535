import { type Issue, NotFoundError, RloopError, type RloopErrorOptions, ValidationError } from '@rloop/contracts';

/**
 * The critic cannot run in this environment (the npm registry does not answer, there is no
 * lockfile to audit, a SARIF tool is not installed). Reported as a failure, never as "0 findings".
 */
export class CriticNotRunnableError extends RloopError {
  constructor(message: string, options: RloopErrorOptions = {}) {
    super('CRITIC.NOT_RUNNABLE', message, options);
  }
}

/** The critic did not finish before its deadline. */
export class CriticTimedOutError extends RloopError {
  constructor(
    readonly criticId: string,
    readonly timeoutMs: number,
  ) {
    super('CRITIC.TIMED_OUT', `${criticId} did not finish within ${timeoutMs} ms`, { retryable: true });
  }
}

/** The caller cancelled the run (its own signal was aborted). */
export class CriticCancelledError extends RloopError {
  constructor(criticId: string, options: RloopErrorOptions = {}) {
    super('CRITIC.CANCELLED', `${criticId} was cancelled by the caller`, options);
  }
}

/** A critic produced a finding that does not satisfy the Finding contract: a bug in the critic. */
export class CriticOutputInvalidError extends ValidationError {
  constructor(criticId: string, message: string, issues: readonly Issue[]) {
    super('CRITIC.INVALID_OUTPUT', `${criticId} produced an invalid finding: ${message}`, issues);
  }
}

/** What `rloop review` was pointed at does not exist or is not a directory. */
export class ReviewTargetNotFoundError extends NotFoundError {
  constructor(path: string) {
    super('REVIEW.TARGET_NOT_FOUND', `${path} is not a directory`);
  }
}

/** A git operation the review needs failed (no repository for --base, an unknown ref). */
export class ReviewGitError extends RloopError {
  constructor(message: string, options: RloopErrorOptions = {}) {
    super('REVIEW.GIT', message, options);
  }
}

/** A repository's `.rloop.yaml` (or the file given with --config) is not valid: the message names the file and the key. */
export class RepoConfigError extends ValidationError {
  constructor(message: string, issues: readonly Issue[], options: RloopErrorOptions = {}) {
    super('REVIEW.CONFIG_INVALID', message, issues, options);
  }
}

/** A baseline file (`rloop review --baseline`) cannot be read or is not one rloop wrote. */
export class BaselineError extends RloopError {
  constructor(message: string, options: RloopErrorOptions = {}) {
    super('REVIEW.BASELINE_INVALID', message, options);
  }
}
