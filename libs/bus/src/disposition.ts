import { DeadLetter, type Issue, RloopError, TransientError, ValidationError, describeError } from '@rloop/contracts';
import { BUS_ERROR_CODES, RetryLaterError } from './errors.js';
import { type BackoffOptions } from './options.js';

/** The delay before retry number `attempt` (1-based): initial · 2^(attempt-1), capped. */
export function backoffDelay(attempt: number, backoff: BackoffOptions): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** exponent);
}

export type DeadLetterReason = DeadLetter['reason'];

/** What to do with a message whose handler failed. */
export type FailureDisposition =
  /** RetryLaterError: nak with exactly its delay; not a failure. */
  | { readonly action: 'park'; readonly delayMs: number; readonly reason: string }
  /** Retryable failure with attempts left: nak with backoff. */
  | { readonly action: 'retry'; readonly delayMs: number; readonly code: string; readonly message: string }
  /** TransientError within the outage bound: nak with backoff; not an attempt. */
  | { readonly action: 'wait'; readonly delayMs: number; readonly code: string; readonly message: string }
  /** Rejected for good, or out of attempts: dead letter, then term. */
  | {
      readonly action: 'dead_letter';
      readonly reason: DeadLetterReason;
      readonly code: string;
      readonly message: string;
      readonly issues: readonly Issue[];
    };

/** Code and message of anything a handler may throw (Nest's filters can turn errors into plain objects). */
export function describeFailure(error: unknown): {
  readonly code: string;
  readonly message: string;
  readonly issues: readonly Issue[];
} {
  if (error instanceof RloopError)
    return { code: error.code, message: error.message, issues: error instanceof ValidationError ? error.issues : [] };
  return { code: BUS_ERROR_CODES.handlerCrashed, message: describeError(error), issues: [] };
}

/** A message's run of transient failures before this one (in this process): how many, since when. */
export interface OutageRun {
  readonly failures: number;
  readonly sinceMs: number;
}

/**
 * Decides the fate of a message after its handler failed on `attempt` (deliveries that counted
 * as attempts, 1-based). RloopError with retryable=false is rejected at once; a TransientError
 * (a dependency down) waits with backoff without using an attempt, until its run of transient
 * failures (`outage`, this one included from `nowMs`) lasts maxOutageMs; anything else that is not
 * a RloopError is a crash and is retried, like a retryable RloopError.
 */
export function decideFailure(
  error: unknown,
  attempt: number,
  policy: { readonly maxDeliver: number; readonly backoff: BackoffOptions; readonly maxOutageMs: number },
  outage: OutageRun | null = null,
  nowMs: number = Date.now(),
): FailureDisposition {
  if (error instanceof RetryLaterError) return { action: 'park', delayMs: error.delayMs, reason: error.reason };
  const { code, message, issues } = describeFailure(error);
  if (error instanceof RloopError && !error.retryable)
    return { action: 'dead_letter', reason: 'handler_rejected', code, message, issues };
  if (error instanceof TransientError) {
    const failures = (outage?.failures ?? 0) + 1;
    const lastedMs = nowMs - (outage?.sinceMs ?? nowMs);
    if (lastedMs >= policy.maxOutageMs) {
      return {
        action: 'dead_letter',
        reason: 'max_deliver',
        code,
        message: `still failing after ${failures} transient failure(s) over ${Math.round(lastedMs / 1000)} s; last error: ${message}`,
        issues,
      };
    }
    return { action: 'wait', delayMs: backoffDelay(failures, policy.backoff), code, message };
  }
  if (attempt >= policy.maxDeliver) {
    return {
      action: 'dead_letter',
      reason: 'max_deliver',
      code,
      message: `gave up after ${attempt} attempt(s); last error: ${message}`,
      issues,
    };
  }
  return { action: 'retry', delayMs: backoffDelay(attempt, policy.backoff), code, message };
}

export interface DeadLetterInput {
  readonly consumer: string;
  readonly stream: string;
  readonly streamSequence: number;
  readonly subject: string;
  readonly deliveries: number;
  readonly reason: DeadLetterReason;
  readonly code: string;
  readonly message: string;
  readonly issues: readonly Issue[];
  readonly payload: { readonly payload: string; readonly payload_encoding: 'utf8' | 'base64' };
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly failedAt: Date;
}

/** Builds the DeadLetter record (validated against its contract). */
export function buildDeadLetter(input: DeadLetterInput): DeadLetter {
  return DeadLetter.parse({
    consumer: input.consumer,
    stream: input.stream,
    stream_sequence: input.streamSequence,
    subject: input.subject,
    deliveries: input.deliveries,
    reason: input.reason,
    code: input.code,
    message: input.message,
    issues: input.issues.map((i) => ({ path: i.path, message: i.message })),
    payload: input.payload.payload,
    payload_encoding: input.payload.payload_encoding,
    headers: Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k, [...v]])),
    failed_at: input.failedAt.toISOString(),
  });
}

/** The Nats-Msg-Id of a dead letter: one record per (consumer, stream message), however often it is retried. */
export function deadLetterMsgId(consumer: string, stream: string, streamSequence: number): string {
  return `dl-${consumer}-${stream}-${streamSequence}`;
}
