import { type BudgetExceededDetails, type BudgetScope, LlmBudgetExceededError } from './errors.js';

/** Spending limits in USD; null means no limit on that scope. */
export interface BudgetLimits {
  /** Everything the fleet spends in one UTC day. */
  readonly dailyUsd: number | null;
  /** Everything one plan's loop spends, all rounds together. */
  readonly perPlanUsd: number | null;
  /** One dispatch (one critic run, one implementer run). */
  readonly perDispatchUsd?: number | null;
}

export interface BudgetCheckInput {
  readonly spentToday: number;
  readonly spentOnPlan: number;
  /** Spent so far by the dispatch the next call belongs to (0 for its first call). */
  readonly spentOnDispatch?: number;
  /** Upper-bound cost of the next call (see estimateCallCostUsd). */
  readonly estimate: number;
  readonly limits: BudgetLimits;
}

export type BudgetVerdict = { readonly ok: true } | ({ readonly ok: false } & BudgetExceededDetails);

/**
 * Whether the next call fits every budget: spent + estimate must stay at or under each limit.
 * Pure. The narrowest scope is reported first (dispatch, then plan, then daily), since that is
 * the one people would raise.
 */
export function checkBudget(input: BudgetCheckInput): BudgetVerdict {
  const spentOnDispatch = input.spentOnDispatch ?? 0;
  const scopes: readonly [BudgetScope, number | null | undefined, number][] = [
    ['dispatch', input.limits.perDispatchUsd, spentOnDispatch],
    ['plan', input.limits.perPlanUsd, input.spentOnPlan],
    ['daily', input.limits.dailyUsd, input.spentToday],
  ];
  for (const [scope, limit, spent] of scopes) {
    if (limit === null || limit === undefined) continue;
    if (spent + input.estimate > limit) {
      return {
        ok: false,
        scope,
        limitUsd: limit,
        spentTodayUsd: input.spentToday,
        spentOnPlanUsd: input.spentOnPlan,
        spentOnDispatchUsd: spentOnDispatch,
        estimateUsd: input.estimate,
      };
    }
  }
  return { ok: true };
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

/** Like checkBudget; throws LlmBudgetExceededError carrying what was spent. */
export function checkBudgetOrThrow(input: BudgetCheckInput): void {
  const verdict = checkBudget(input);
  if (verdict.ok) return;
  const spent =
    verdict.scope === 'daily'
      ? verdict.spentTodayUsd
      : verdict.scope === 'plan'
        ? verdict.spentOnPlanUsd
        : verdict.spentOnDispatchUsd;
  throw new LlmBudgetExceededError(
    `the ${verdict.scope} LLM budget of ${usd(verdict.limitUsd)} would be passed: ${usd(spent)} spent, next call estimated at up to ${usd(verdict.estimateUsd)}`,
    {
      scope: verdict.scope,
      limitUsd: verdict.limitUsd,
      spentTodayUsd: verdict.spentTodayUsd,
      spentOnPlanUsd: verdict.spentOnPlanUsd,
      spentOnDispatchUsd: verdict.spentOnDispatchUsd,
      estimateUsd: verdict.estimateUsd,
    },
  );
}

/** Where a dispatch starts from: the limits and what the journal says was spent already. */
export interface BudgetState {
  readonly limits: BudgetLimits;
  readonly spentTodayUsd: number;
  readonly spentOnPlanUsd: number;
}
