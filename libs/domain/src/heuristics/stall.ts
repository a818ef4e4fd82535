import type { LoopConfig } from './config.js';
import type { Firing } from './firing.js';

// Stall (FSM seed): the implementer changed nothing (no commit) `stall.rounds` rounds in a row.
// Infrastructure failures never count (see isInfraFailure); a resume starts the count again.

export interface StallCount {
  readonly count: number;
  readonly rounds: readonly number[];
  readonly outcomes: readonly string[];
}

export const NO_STALL: StallCount = { count: 0, rounds: [], outcomes: [] };

/** The count after a fix: one more when the code did not move, zero when it did. */
export function countStall(
  stall: StallCount,
  fix: { readonly round: number; readonly commit: string | null; readonly outcome: string },
): StallCount {
  if (fix.commit !== null) return NO_STALL;
  return {
    count: stall.count + 1,
    rounds: [...stall.rounds, fix.round].slice(-20),
    outcomes: [...stall.outcomes, fix.outcome].slice(-20),
  };
}

export function stall(
  count: StallCount,
  last: { readonly reason?: string | undefined; readonly strategy: string },
  config: LoopConfig,
): Firing | null {
  if (count.count < config.stall.rounds) return null;
  const rounds = count.rounds.slice(-count.count);
  const outcomes = count.outcomes.slice(-count.count);
  return {
    heuristic: 'stall',
    trackers: [],
    message: `the implementer changed nothing in ${count.count} rounds in a row (rounds ${rounds.join(', ')}: ${outcomes.join(', ')})${last.reason ? `; last: ${last.reason.slice(0, 500)}` : ''}`,
    evidence: { threshold: config.stall.rounds, rounds, outcomes, strategy: last.strategy },
  };
}
