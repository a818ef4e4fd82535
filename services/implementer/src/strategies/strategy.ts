import type { Letter, PlanImplementer } from '@rloop/contracts';

/** What a strategy is given for one fix attempt. */
export interface FixContext {
  /** The plan's worktree, reset to the letter's commit: the strategy edits files here and nowhere else. */
  readonly worktreeDir: string;
  readonly letter: Letter;
  readonly round: number;
  /** The environment for anything the strategy runs (the service's, trimmed by its config). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on shutdown: stop and throw (AbortedError); the message is redelivered and redone. */
  readonly signal: AbortSignal;
}

export interface FixOutcome {
  /** Files the strategy changed, repository-relative. The fix cycle trusts git for the diff; this is for logs. */
  readonly changedFiles: readonly string[];
  /** A short account of what the strategy did (tool notes, the tail of a command's output). */
  readonly log: string;
  /**
   * Set when the strategy made no attempt because nothing in the letter is its to fix (autofix on
   * a letter whose every finding is `autofix: none`): the fix cycle reports no change with this
   * reason and does not run the tests for nothing.
   */
  readonly skipped?: string;
}

/**
 * One way of fixing a letter. Expected failures (a command that exits non-zero, a timeout) are
 * thrown as StrategyFailedError and become `FixApplied{outcome: failed}`; anything else thrown is
 * a bug or an outage and propagates.
 */
export interface FixStrategy {
  /** The name recorded in FixApplied.strategy (e.g. `autofix`). */
  readonly name: string;
  apply(context: FixContext): Promise<FixOutcome>;
}

/** Picks the strategy for a plan's `implementer` block; null when this implementer does not offer it. */
export type StrategyResolver = (implementer: PlanImplementer) => FixStrategy | null;
