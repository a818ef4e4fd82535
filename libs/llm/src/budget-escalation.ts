import type { EventOf } from '@rloop/contracts';
import { type DecisionMeta, type LoopState, budgetTrigger, escalationEvent } from '@rloop/domain';
import type { BudgetState } from './budget.js';
import type { BudgetScope, LlmBudgetExceededError } from './errors.js';

/** A budget that stops the next dispatch, and what was spent against it. */
export interface BudgetReached {
  readonly scope: BudgetScope;
  readonly limitUsd: number;
  /** Spent in the scope (the plan's run, the day, the dispatch). */
  readonly spentUsd: number;
  readonly spentOnPlanUsd: number;
  readonly spentTodayUsd: number;
  /** Upper-bound cost of the call that was refused, when a call was about to be sent. */
  readonly estimateUsd: number | null;
  /** What was about to be dispatched: a critic id, `test-writer`, `implementer`. */
  readonly dispatch: string;
}

/**
 * Whether a budget is already used up before a dispatch starts (spent >= limit; a dispatch that
 * still fits is checked call by call by the Dispatcher, with an estimate). Pure. The plan's
 * budget is reported first: it is the one people raise for one loop.
 */
export function budgetReached(state: BudgetState, dispatch: string): BudgetReached | null {
  const scopes: readonly [BudgetScope, number | null, number][] = [
    ['plan', state.limits.perPlanUsd, state.spentOnPlanUsd],
    ['daily', state.limits.dailyUsd, state.spentTodayUsd],
  ];
  for (const [scope, limit, spent] of scopes) {
    if (limit !== null && spent >= limit) {
      return {
        scope,
        limitUsd: limit,
        spentUsd: spent,
        spentOnPlanUsd: state.spentOnPlanUsd,
        spentTodayUsd: state.spentTodayUsd,
        estimateUsd: null,
        dispatch,
      };
    }
  }
  return null;
}

/** The same, from a call the Dispatcher refused (spent + estimate would pass a limit). */
export function budgetReachedFrom(error: LlmBudgetExceededError, dispatch: string): BudgetReached {
  const d = error.details;
  const spent = d.scope === 'daily' ? d.spentTodayUsd : d.scope === 'plan' ? d.spentOnPlanUsd : d.spentOnDispatchUsd;
  return {
    scope: d.scope,
    limitUsd: d.limitUsd,
    spentUsd: spent,
    spentOnPlanUsd: d.spentOnPlanUsd,
    spentTodayUsd: d.spentTodayUsd,
    estimateUsd: d.estimateUsd,
    dispatch,
  };
}

function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}

const SCOPE_NAMES: Readonly<Record<BudgetScope, string>> = {
  plan: 'per-plan',
  daily: 'daily',
  dispatch: 'per-dispatch',
};

/** One line for people: which budget, its limit and what was spent. Pure. */
export function describeBudgetReached(reached: BudgetReached): string {
  const next =
    reached.estimateUsd === null
      ? 'is reached'
      : `would be passed by the next call (estimated at up to ${usd(reached.estimateUsd)})`;
  return (
    `the ${SCOPE_NAMES[reached.scope]} LLM budget of ${usd(reached.limitUsd)} ${next} before ${reached.dispatch}: ` +
    `${usd(reached.spentOnPlanUsd)} spent on this plan's loop, ${usd(reached.spentTodayUsd)} today across all plans` +
    (reached.scope === 'dispatch' ? `, ${usd(reached.spentUsd)} by this dispatch` : '')
  );
}

/**
 * The EscalationRaised a budget stop publishes (reason `budget`, a stuck report with the spend in
 * its detail), built by the domain's one escalation path (escalationEvent; the trigger is listed
 * with the others in libs/domain escalation/decide-escalation.ts). Its id is derived from the
 * plan, run, round and `source` (who stopped: `critics` or `implementer`), so a replica or a
 * redelivery raising the same stop produces the same event. Pure: time and ids come in through `meta`.
 */
export function budgetEscalation(
  state: LoopState,
  reached: BudgetReached,
  meta: DecisionMeta,
  round: number,
  source: string,
): EventOf<'EscalationRaised'> {
  if (state.run_id === null) throw new Error('a budget escalation needs a run');
  return escalationEvent(state, meta, budgetTrigger(describeBudgetReached(reached)), { round, source });
}
