import type { LoopState, RoundRecord } from '../loop/state.js';

// When is a round complete? Here: every dispatched critic has answered, or the round's deadline
// has passed (then each silent critic is failed `timed_out` first — never read as "0 findings").
// The synthesizer's handler acts on the answer; spec: round-completion.unit.spec.ts.

export type RoundCompletion =
  /** Nothing to do: no round under review, its letter is written, or the loop moved on. */
  | { readonly kind: 'none' }
  /** Critics are still due before the deadline: wait this long. */
  | { readonly kind: 'wait'; readonly ms: number; readonly missing: readonly RoundRecord['critics'][number][] }
  /** The deadline passed: these critics time out (the letter follows once their failures are journaled). */
  | { readonly kind: 'time_out'; readonly missing: readonly RoundRecord['critics'][number][] }
  /** Every critic answered: write the letter. */
  | { readonly kind: 'complete'; readonly round: RoundRecord };

/** Whether the round under review is complete at `nowMs`. Pure. */
export function roundCompletion(state: LoopState | null, nowMs: number): RoundCompletion {
  const current = state?.current ?? null;
  if (state === null || state.run_id === null || current === null || current.letter !== null || state.status !== 'reviewing') return { kind: 'none' };
  const missing = current.critics.filter((c) => current.reports[c.critic_id] === undefined);
  if (missing.length === 0) return { kind: 'complete', round: current };
  const waitMs = Date.parse(current.deadline_at) - nowMs;
  return waitMs > 0 ? { kind: 'wait', ms: waitMs, missing } : { kind: 'time_out', missing };
}
