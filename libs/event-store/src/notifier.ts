/** How a wait for a commit ended. */
export type WakeReason = 'committed' | 'timeout' | 'aborted';

/**
 * Counts the commit notifications the store has heard. A waiter passes the count it saw before
 * reading, so a notification that lands between its read and its wait still wakes it at once.
 */
export class CommitSignal {
  private generation = 0;
  private readonly waiters = new Set<() => void>();

  get current(): number {
    return this.generation;
  }

  notify(): void {
    this.generation += 1;
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves when a notification newer than `seen` arrives, after `timeoutMs`, or when `signal` aborts. */
  wait(seen: number, timeoutMs: number, signal?: AbortSignal): Promise<WakeReason> {
    if (this.generation !== seen) return Promise.resolve('committed');
    if (signal?.aborted === true) return Promise.resolve('aborted');
    return new Promise((resolve) => {
      const finish = (reason: WakeReason): void => {
        clearTimeout(timer);
        this.waiters.delete(onCommit);
        signal?.removeEventListener('abort', onAbort);
        resolve(reason);
      };
      const onCommit = (): void => finish('committed');
      const onAbort = (): void => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      this.waiters.add(onCommit);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Keeps the store LISTENing for commits. */
export interface CommitListener {
  /** Starts listening if not already (again after a lost connection); throws when it cannot. */
  ensure(): Promise<void>;
  close(): Promise<void>;
}
