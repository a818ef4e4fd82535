import { describe, expect, it } from '@jest/globals';
import { EscalationRaised } from '@rloop/contracts';
import { initialLoopState, type LoopState } from '@rloop/domain';
import {
  budgetEscalation,
  budgetReached,
  budgetReachedFrom,
  type BudgetState,
  describeBudgetReached,
  LlmBudgetExceededError,
  parseModelCatalogue,
} from './index.js';

const RUN = '01JRUN0000000000000000000A';
const limits = { dailyUsd: 100, perPlanUsd: 5, perDispatchUsd: null };
const state = (spentOnPlanUsd: number, spentTodayUsd: number): BudgetState => ({
  limits,
  spentOnPlanUsd,
  spentTodayUsd,
});

describe('budget stops before a dispatch', () => {
  it('given spend under every limit, when checked, then the dispatch may go', () => {
    expect(budgetReached(state(4.99, 99.99), 'quality/code-reviewer')).toBeNull();
  });

  it('given the plan spent its budget, when checked, then the plan budget is reported with what was spent', () => {
    expect(budgetReached(state(6.25, 10), 'test-writer')).toEqual({
      scope: 'plan',
      limitUsd: 5,
      spentUsd: 6.25,
      spentOnPlanUsd: 6.25,
      spentTodayUsd: 10,
      estimateUsd: null,
      dispatch: 'test-writer',
    });
  });

  it('given the day is used up across plans, when checked, then the daily budget is reported', () => {
    expect(budgetReached(state(1, 100), 'implementer')).toMatchObject({ scope: 'daily', limitUsd: 100, spentUsd: 100 });
  });

  it('given no limits, when checked, then nothing stops', () => {
    expect(
      budgetReached({ limits: { dailyUsd: null, perPlanUsd: null }, spentOnPlanUsd: 1e6, spentTodayUsd: 1e6 }, 'x'),
    ).toBeNull();
  });

  it('given a call the Dispatcher refused, when described, then the estimate is named too', () => {
    const error = new LlmBudgetExceededError('refused', {
      scope: 'dispatch',
      limitUsd: 1,
      spentTodayUsd: 3,
      spentOnPlanUsd: 2,
      spentOnDispatchUsd: 0.95,
      estimateUsd: 0.08,
    });
    const reached = budgetReachedFrom(error, 'implementer');
    expect(reached).toMatchObject({ scope: 'dispatch', spentUsd: 0.95, estimateUsd: 0.08 });
    expect(describeBudgetReached(reached)).toBe(
      "the per-dispatch LLM budget of $1.00 would be passed by the next call (estimated at up to $0.08) before implementer: $2.00 spent on this plan's loop, $3.00 today across all plans, $0.95 by this dispatch",
    );
  });
});

describe('the budget escalation', () => {
  const running: LoopState = {
    ...initialLoopState('add-billing'),
    run_id: RUN,
    status: 'reviewing',
    phase: 'critical',
    round: 2,
    head: 'a'.repeat(40),
  };
  const meta = {
    plan: 'add-billing',
    run_id: RUN,
    causation_id: 'd_cause00000000000000000000000000',
    producer: 'critic-runner@1',
    now: '2026-11-30T10:00:00.000Z',
  };
  const reached = budgetReached(state(6, 6), "the round's LLM critics");

  it('is a valid EscalationRaised with reason budget and the spend in its report', () => {
    if (reached === null) throw new Error('expected the budget to be reached');
    const event = budgetEscalation(running, reached, meta, 2, 'critics');
    expect(EscalationRaised.parse(event)).toEqual(event);
    expect(event.data).toMatchObject({ reason: 'budget', round: 2, phase: 'critical', escalation_id: event.event_id });
    expect(event.data.report.trigger).toEqual({ kind: 'budget', detail: describeBudgetReached(reached) });
    expect(event.data.report.trigger.detail).toContain('$6.00 spent on this plan');
    expect(event.data.markdown).toContain('budget');
    expect(event.data.report.recommended_action).toContain('rloop resume add-billing');
  });

  it('has the same id for the same round and source, whoever raises it and whenever, and another for another source', () => {
    if (reached === null) throw new Error('expected the budget to be reached');
    const a = budgetEscalation(running, reached, meta, 2, 'critics');
    const b = budgetEscalation(
      running,
      { ...reached, spentUsd: 7 },
      { ...meta, producer: 'critic-runner@2', now: '2026-11-30T11:00:00.000Z' },
      2,
      'critics',
    );
    expect(b.event_id).toBe(a.event_id);
    expect(budgetEscalation(running, reached, meta, 2, 'implementer').event_id).not.toBe(a.event_id);
    expect(budgetEscalation(running, reached, meta, 3, 'critics').event_id).not.toBe(a.event_id);
  });
});

describe('roles and budgets in models.yaml', () => {
  const prices =
    'input: 1\n    output: 5\n    cache_write_5m: 1.25\n    cache_write_1h: 2\n    cache_read: 0.1\n    forced_tool_choice: true\n    max_output_tokens: 64000';

  it('reads the model of each role and the budgets', () => {
    const catalogue = parseModelCatalogue(
      `prices_checked_on: "2026-11-30"\nroles:\n  critics: m-1\n  test_writer: m-1\n  implementer: m-1\nbudgets:\n  daily_usd: 50\n  per_plan_usd: null\nmodels:\n  m-1:\n    ${prices}\n`,
    );
    expect(catalogue.roles).toEqual({ critics: 'm-1', testWriter: 'm-1', implementer: 'm-1' });
    expect(catalogue.budgets).toEqual({ dailyUsd: 50, perPlanUsd: null, perDispatchUsd: null });
  });

  it('without them, has no roles and no limits', () => {
    const catalogue = parseModelCatalogue(`prices_checked_on: "2026-11-30"\nmodels:\n  m-1:\n    ${prices}\n`);
    expect(catalogue.roles).toBeNull();
    expect(catalogue.budgets).toEqual({ dailyUsd: null, perPlanUsd: null, perDispatchUsd: null });
  });

  it('refuses a role naming a model without a price, and a negative budget', () => {
    expect(() =>
      parseModelCatalogue(
        `prices_checked_on: "2026-11-30"\nroles:\n  critics: m-2\n  test_writer: m-1\n  implementer: m-1\nbudgets:\n  daily_usd: -1\n  per_plan_usd: 5\nmodels:\n  m-1:\n    ${prices}\n`,
      ),
    ).toThrow(/roles\.critics: model m-2 is not in the models table.*|budgets\.daily_usd/s);
  });
});
