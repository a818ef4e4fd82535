import { setTimeout as delay } from 'node:timers/promises';

/**
 * Prompt-cache sharing between requests sent at the same time. The API makes a cache entry
 * readable only once the response of the request that writes it has started, so a round's
 * critics, dispatched in parallel with the same stable prefix, would each pay the cache-write
 * rate for it. Here the first request for a prefix goes at once (the leader, sent streaming so
 * its start is seen); requests for the same prefix that arrive meanwhile wait until the leader's
 * response starts — then they read the prefix from the cache — or the leader fails, or a bound
 * passes (then they go anyway: waiting never costs more than one time to first token).
 */
export interface CacheWarmup {
  /**
   * Runs `send` for a request whose cached prefix is `key`. The leader's `send` gets the callback
   * to call when its response starts; a follower's gets undefined and runs once the prefix is
   * readable. `signal` aborts a follower's wait.
   */
  run<T>(
    key: string,
    send: (onResponseStart: (() => void) | undefined) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T>;
}

export interface CacheWarmupOptions {
  /** Longest a follower waits for the leader's response to start. Default 60 s. */
  readonly maxWaitMs?: number;
  /** How long a warmed prefix is remembered as readable (below the API's 5-minute TTL). Default 4 minutes. */
  readonly warmForMs?: number;
  /** Clock for `warmForMs`; default Date.now. */
  readonly now?: () => number;
}

interface Entry {
  /** Settles when the leader's response starts, or it fails. */
  readonly ready: Promise<void>;
  /** Set when the leader's response started: until then the prefix is being written. */
  warmAt: number | null;
}

// TODO(calibration): 60 s covers a slow time to first token under load; 4 minutes stays inside the 5-minute cache TTL. Settle both from request timings.
const DEFAULT_MAX_WAIT_MS = 60_000;
const DEFAULT_WARM_FOR_MS = 4 * 60_000;

/** A CacheWarmup for one process (share one among the LLM critics of a host). */
export function createCacheWarmup(options: CacheWarmupOptions = {}): CacheWarmup {
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const warmForMs = options.warmForMs ?? DEFAULT_WARM_FOR_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const forget = (): void => {
    for (const [key, entry] of entries)
      if (entry.warmAt !== null && now() - entry.warmAt > warmForMs) entries.delete(key);
  };

  return {
    async run<T>(
      key: string,
      send: (onResponseStart: (() => void) | undefined) => Promise<T>,
      signal?: AbortSignal,
    ): Promise<T> {
      forget();
      const known = entries.get(key);
      if (known !== undefined) {
        // Being written: wait until it is readable (or the writer failed, or too long passed).
        if (known.warmAt === null)
          await Promise.race([
            known.ready,
            delay(maxWaitMs, undefined, signal === undefined ? undefined : { signal }).catch(() => undefined),
          ]);
        return send(undefined);
      }
      let markReady: () => void = () => undefined;
      const entry: Entry = { ready: new Promise<void>((resolve) => (markReady = resolve)), warmAt: null };
      entries.set(key, entry);
      const started = (): void => {
        entry.warmAt = now();
        markReady();
      };
      try {
        return await send(started);
      } catch (error) {
        // The prefix was not written: the next request leads again, and the waiting ones go now.
        if (entry.warmAt === null) entries.delete(key);
        throw error;
      } finally {
        markReady();
      }
    },
  };
}
