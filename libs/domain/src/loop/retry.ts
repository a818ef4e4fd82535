import type { LoopState } from './state.js';

/** How retried rounds back off (config/loop.yaml `retry_backoff`). */
export interface RetryBackoff {
  readonly initial_ms: number;
  readonly max_ms: number;
}

/**
 * How long the round that runs again after an incomplete, finding-free letter still waits, or
 * null when it may start now (pure). The n-th incomplete round in a row waits
 * initial · 2^(n-1) ms after its letter, capped at max: a core critic that keeps failing does
 * not use up the phase's rounds back to back.
 *
 * @example
 *   retryBackoffMs(stateWithSecondIncompleteLetterAt(t), t + 1_000, { initial_ms: 2_000, max_ms: 60_000 }) // 3_000
 */
export function retryBackoffMs(
  state: Pick<LoopState, 'status' | 'current' | 'incomplete_rounds'>,
  nowMs: number,
  backoff: RetryBackoff,
): number | null {
  const letter = state.current?.letter;
  if (state.status !== 'reviewing' || letter === null || letter === undefined || letter.complete || letter.findings > 0)
    return null;
  const streak = Math.max(1, state.incomplete_rounds);
  const delayMs = Math.min(backoff.max_ms, backoff.initial_ms * 2 ** Math.min(streak - 1, 30));
  const leftMs = delayMs - (nowMs - Date.parse(letter.occurred_at));
  return leftMs > 0 ? leftMs : null;
}
