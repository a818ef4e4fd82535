// Git plumbing shared by the services and libraries: the one hardened git runner and read-only checkouts of pinned commits.
export { git, gitText, commitExists, MAX_GIT_OUTPUT_BYTES, commitConfigArgs, DEFAULT_IDENTITY, type GitOptions, type GitResult, type CommitIdentity } from './git.js';
export { GIT_ERROR_CODES, GitCommandError, GitOutputTooLargeError, CommitNotFoundError, UnsafeRepositoryError } from './errors.js';
export { readOnlyCheckout, readOnlyCheckoutDir, removeReadOnlyCheckout, pruneReadOnlyCheckouts, type ReadOnlyCheckout } from './read-only-checkout.js';
