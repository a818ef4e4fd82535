import type { EventOf } from '@rloop/contracts';
import { type DecisionMeta, decisionEvent } from '../loop/envelope.js';
import type { LoopState, RoundRecord } from '../loop/state.js';

/**
 * The round under review that still needs its letter, or null: no run, no round, its letter
 * written, or the loop moved on (only a `reviewing` loop closes rounds). Pure.
 */
export function openRound(state: LoopState | null): RoundRecord | null {
  const current = state?.current ?? null;
  if (
    state === null ||
    state.run_id === null ||
    current === null ||
    current.letter !== null ||
    state.status !== 'reviewing'
  )
    return null;
  return current;
}

/** What happens to an open round now: wait for its critics, time the silent ones out, or write its letter. */
export type RoundClosure =
  | { readonly kind: 'complete' }
  | {
      readonly kind: 'waiting';
      readonly waitMs: number;
      readonly missing: readonly Pick<RoundRecord['critics'][number], 'critic_id' | 'core'>[];
    }
  | { readonly kind: 'timed_out'; readonly failures: readonly EventOf<'CriticFailed'>[] };

/**
 * When a round is complete: every dispatched critic has answered (a report or a failure), or the
 * round's deadline has passed — then each silent critic gets a CriticFailed `timed_out`, never a
 * "0 findings". `nowMs` is the decider's clock reading; the failures' ids come from the round and
 * the critic, so replicas deciding the same deadline publish the same events.
 */
export function decideRoundClosure(current: RoundRecord, nowMs: number, meta: DecisionMeta): RoundClosure {
  const missing = current.critics.filter((c) => current.reports[c.critic_id] === undefined);
  if (missing.length === 0) return { kind: 'complete' };
  const waitMs = Date.parse(current.deadline_at) - nowMs;
  if (waitMs > 0) return { kind: 'waiting', waitMs, missing };
  return {
    kind: 'timed_out',
    failures: missing.map((critic) =>
      decisionEvent('CriticFailed', meta, ['timeout', current.round, critic.critic_id], {
        round: current.round,
        critic_id: critic.critic_id,
        core: critic.core,
        reason: 'timed_out',
        message: `no report by the round's deadline ${current.deadline_at}`,
      }),
    ),
  };
}
