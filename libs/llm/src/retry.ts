/** How one failed API call is classified for the retry decision. */
export const FAILURE_KINDS = [
  'rate_limited',
  'overloaded',
  'unavailable',
  'timeout',
  'aborted',
  'auth',
  'spend_limit',
  'invalid',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface RetryPolicy {
  /** Retries after the first attempt (so at most maxRetries + 1 requests). */
  readonly maxRetries: number;
  /**
   * The longest wait a retry-after header may ask for inside one call. Longer than that, the call
   * ends with a retryable error carrying retryAfterMs, and the caller (a bus consumer) redelivers
   * later instead of holding a worker for minutes.
   */
  readonly maxRetryAfterMs: number;
  /** First backoff when the server gave no retry-after; doubles per attempt up to maxDelayMs. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

// TODO(calibration): 60 s / 0.5 s / 8 s follow the SDK's own backoff; revisit with 429 rates from UsageRecorded and logs.
export const DEFAULT_RETRY_POLICY: Omit<RetryPolicy, 'maxRetries'> = {
  maxRetryAfterMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
};

export function isRetryableKind(kind: FailureKind): boolean {
  return kind === 'rate_limited' || kind === 'overloaded' || kind === 'unavailable' || kind === 'timeout';
}

/** What the error body says, as the SDK exposes it: `error.type`, `error.message` and `error.details.error_code`. */
export interface ErrorBody {
  readonly type?: string | null;
  readonly message?: string | null;
  readonly errorCode?: string | null;
}

/**
 * Whether an error is a spend limit, which no retry lifts (docs: "Claude API errors", "Rate limits"):
 * the tier's monthly cap is a 429 whose `details.error_code` is `enforced_spend_limit_reached` and
 * that carries no retry-after; a limit the organization or workspace set is a 400 whose message
 * begins "You have reached your specified … API usage limits"; a billing problem is a 402.
 */
export function isSpendLimit(status: number | null, body: ErrorBody = {}): boolean {
  if (status === 402 || body.type === 'billing_error') return true;
  if (status === 429 && body.errorCode === 'enforced_spend_limit_reached') return true;
  return status === 400 && /^You have reached your specified (?:workspace )?API usage limits/.test(body.message ?? '');
}

/** Maps an HTTP status (and what the error body says) to a failure kind (null status: the connection failed). */
export function classifyStatus(status: number | null, body: ErrorBody = {}): FailureKind {
  if (status === null) return 'unavailable';
  if (isSpendLimit(status, body)) return 'spend_limit';
  if (status === 429) return 'rate_limited';
  if (status === 529) return 'overloaded';
  if (status === 408) return 'timeout';
  if (status === 401 || status === 403) return 'auth';
  if (status >= 500) return 'unavailable';
  return 'invalid';
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) as milliseconds. Pure. */
export function parseRetryAfterMs(header: (name: string) => string | null | undefined, nowMs: number): number | null {
  const ms = header('retry-after-ms');
  if (ms !== null && ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const after = header('retry-after');
  if (after === null || after === undefined || after.trim() === '') return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : null;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}

export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number }
  | { readonly retry: false; readonly why: 'not_retryable' | 'exhausted' | 'retry_after_too_long' };

/**
 * Whether to retry after the `attempt`-th failed request (1-based) and how long to wait. Honours
 * the server's retry-after when it gave one (bounded by maxRetryAfterMs); otherwise exponential
 * backoff with up to 25% jitter from `random` (0 ≤ random < 1). Pure.
 */
export function decideRetry(input: {
  readonly kind: FailureKind;
  readonly attempt: number;
  readonly retryAfterMs: number | null;
  readonly policy: RetryPolicy;
  readonly random: number;
}): RetryDecision {
  if (!isRetryableKind(input.kind)) return { retry: false, why: 'not_retryable' };
  if (input.retryAfterMs !== null && input.retryAfterMs > input.policy.maxRetryAfterMs)
    return { retry: false, why: 'retry_after_too_long' };
  if (input.attempt > input.policy.maxRetries) return { retry: false, why: 'exhausted' };
  if (input.retryAfterMs !== null) return { retry: true, delayMs: input.retryAfterMs };
  const backoff = Math.min(input.policy.baseDelayMs * 2 ** (input.attempt - 1), input.policy.maxDelayMs);
  return { retry: true, delayMs: Math.round(backoff * (1 - 0.25 * input.random)) };
}
