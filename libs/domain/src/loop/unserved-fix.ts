import type { EventOf } from '@rloop/contracts';
import { escalationEvent } from '../escalation/decide-escalation.js';
import type { DecisionMeta } from './envelope.js';
import type { LoopState } from './state.js';

/**
 * A fix request nobody can serve — its branch is held elsewhere, the plan's repository is
 * unreachable from the implementers' hosts, every attempt fails — is retried with backoff, and
 * once the deadline has passed since the letter it answers, the loop escalates with reason
 * `implementer_failed`: a plan never stays in "fixing" with no timer. Decided from the run's
 * committed state alone, so the implementer (after a failed attempt) and the panel's guard (when
 * no implementer answers at all) reach the same answer and raise the same event (its id is
 * derived from the plan, run, round and reason).
 */

/** RLOOP_FIX_DEADLINE_MS and the retry backoff. */
export interface UnservedFixPolicy {
  /** How long after its letter a fix may stay unserved. Default 600 000 (10 min). */
  readonly deadline_ms: number;
  /** The first retry waits this long, each next one twice as long, capped at `retry_max_ms`. */
  readonly retry_initial_ms: number;
  readonly retry_max_ms: number;
}

export const DEFAULT_UNSERVED_FIX_POLICY: UnservedFixPolicy = {
  deadline_ms: 600_000,
  retry_initial_ms: 2_000,
  retry_max_ms: 60_000,
};

export type UnservedFixDecision =
  /** The run waits for no fix (it was served, or the run moved on): nothing to do. */
  | { readonly kind: 'served' }
  /** Still within the deadline: try (or look) again after this long. */
  | { readonly kind: 'retry'; readonly after_ms: number }
  /** The deadline has passed: this EscalationRaised (reason implementer_failed) ends the wait. */
  | { readonly kind: 'escalate'; readonly event: EventOf<'EscalationRaised'> };

export interface UnservedFixAttempt {
  /** Now, in epoch milliseconds. */
  readonly now_ms: number;
  /** Attempts made so far (a message's deliveries): the backoff's exponent. */
  readonly attempts: number;
  /** Why the last attempt failed (null: none failed, nobody answered). Said in the escalation. */
  readonly failure: string | null;
}

/**
 * Whether a requested fix is still awaited, when to try again, or that it is time to escalate.
 * Pure: time comes in through `attempt.now_ms` and `meta`.
 *
 * @example
 *   decideUnservedFix(fixingSince(t), { now_ms: t + 5_000, attempts: 2, failure: 'repository unreachable' }, DEFAULT_UNSERVED_FIX_POLICY, meta)
 *   // → { kind: 'retry', after_ms: 4_000 }
 */
export function decideUnservedFix(
  state: LoopState,
  attempt: UnservedFixAttempt,
  policy: UnservedFixPolicy,
  meta: DecisionMeta,
): UnservedFixDecision {
  const current = state.current;
  const letter = current?.letter;
  if (
    state.status !== 'fixing' ||
    state.run_id === null ||
    current === null ||
    !current.fix_requested ||
    current.fix !== null ||
    letter === null ||
    letter === undefined
  )
    return { kind: 'served' };
  const waited = attempt.now_ms - Date.parse(letter.occurred_at);
  const left = policy.deadline_ms - waited;
  if (left > 0) {
    const backoff = Math.min(
      policy.retry_max_ms,
      policy.retry_initial_ms * 2 ** Math.min(Math.max(0, attempt.attempts - 1), 30),
    );
    return { kind: 'retry', after_ms: Math.max(1, Math.min(backoff, left)) };
  }
  const spoken =
    policy.deadline_ms >= 120_000
      ? `${Math.round(policy.deadline_ms / 60_000)} min`
      : `${Math.round(policy.deadline_ms / 1000)} s`;
  const why =
    attempt.failure === null ? 'no implementer answered' : `the last attempt failed: ${attempt.failure.slice(0, 2000)}`;
  const detail = `round ${current.round}'s fix was not made within ${policy.deadline_ms} ms (${spoken}) of its letter; ${why}`;
  return {
    kind: 'escalate',
    event: escalationEvent(
      state,
      meta,
      { kind: 'implementer_failed', detail },
      { round: current.round, source: 'fix-deadline' },
    ),
  };
}
