// Git plumbing shared by the services and libraries: the one hardened git runner, read-only checkouts of pinned commits, and each worker's own cache of repositories addressed by URL.
export {
  git,
  gitText,
  commitExists,
  MAX_GIT_OUTPUT_BYTES,
  commitConfigArgs,
  DEFAULT_IDENTITY,
  type GitOptions,
  type GitResult,
  type CommitIdentity,
} from './git.js';
export {
  GIT_ERROR_CODES,
  GitCommandError,
  GitOutputTooLargeError,
  CommitNotFoundError,
  UnsafeRepositoryError,
  PushRejectedError,
} from './errors.js';
export {
  readOnlyCheckout,
  readOnlyCheckoutDir,
  removeReadOnlyCheckout,
  pruneReadOnlyCheckouts,
  type ReadOnlyCheckout,
} from './read-only-checkout.js';
export {
  RepositoryCache,
  repositoryCacheAt,
  checkoutForWorker,
  repositoryIdentity,
  GIT_CREDENTIALS_VARIABLE,
  type RepositoryCacheOptions,
  type LeasedRefUpdate,
} from './repository-cache.js';
