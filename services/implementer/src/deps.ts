import type { CommitIdentity } from '@rloop/git';

/** What every implementer step needs from the service around it (built once from config). */
export interface ImplementerEnv {
  /** Root of rloop's scratch space: worktrees go to `<workRoot>/worktrees/<slug>`. */
  readonly workRoot: string;
  /** The environment the plan's test command and the strategies run with. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly testTimeoutMs: number;
  /** Aborted on shutdown: the step stops without reporting, so the message is redelivered. */
  readonly signal?: AbortSignal;
  /** Author and committer of rloop's commits. Default `rloop <rloop@localhost>`. */
  readonly identity?: CommitIdentity;
  /** Milliseconds for `duration_ms` (injected so tests can pin it). Default: performance.now. */
  readonly clock?: () => number;
}
