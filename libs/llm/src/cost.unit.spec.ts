import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  checkBudget,
  checkBudgetOrThrow,
  costOfCall,
  estimateCallCostUsd,
  findModelOrThrow,
  LlmBudgetExceededError,
  LlmConfigError,
  type ModelCatalogue,
  parseModelCatalogue,
  weightedInputTokens,
} from './index.js';
import { loadTestCatalogue } from './__fixtures__/helpers.js';

describe('config/models.yaml and pricing', () => {
  let catalogue: ModelCatalogue;
  beforeAll(async () => {
    catalogue = await loadTestCatalogue();
  });

  it('parses the shipped price table, dated', () => {
    expect(catalogue.pricesCheckedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(findModelOrThrow(catalogue, 'claude-sonnet-5-5')).toMatchObject({
      input: 2,
      output: 10,
      cache_write_5m: 2.5,
      cache_read: 0.1,
      forced_tool_choice: false,
    });
    expect(() => findModelOrThrow(catalogue, 'gpt-9')).toThrow(LlmConfigError);
  });

  it('names every bad field of an invalid catalogue', () => {
    const error = (() => {
      try {
        parseModelCatalogue('prices_checked_on: "yesterday"\nmodels:\n  m:\n    input: -1\n');
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(LlmConfigError);
    expect((error as LlmConfigError).issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['prices_checked_on', 'models.m.input', 'models.m.output']),
    );
  });

  it('prices a call as Anthropic bills it: input, 5m/1h cache writes, cache reads, output', () => {
    const sonnet = findModelOrThrow(catalogue, 'claude-sonnet-5-5');
    const usage = {
      input_tokens: 1000,
      output_tokens: 500,
      cache_creation_input_tokens: 4000,
      cache_read_input_tokens: 20_000,
    };
    // 1000×2 + 4000×2.5 + 20000×0.1 + 500×10 = 2000 + 10000 + 2000 + 5000 = 19000 µ$.
    expect(costOfCall(sonnet, usage)).toBeCloseTo(0.019, 9);
    expect(costOfCall(sonnet, { ...usage, cache_creation_1h_input_tokens: 4000 })).toBeCloseTo(0.019 - 0.01 + 0.016, 9);
  });

  it('bills a long Haiku 5.5 prompt entirely at the long-prompt rates', () => {
    const haiku = findModelOrThrow(catalogue, 'claude-haiku-5-5');
    const short = {
      input_tokens: 100_000,
      output_tokens: 1000,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    expect(costOfCall(haiku, short)).toBeCloseTo((100_000 * 0.1 + 1000 * 0.5) / 1e6, 9);
    expect(costOfCall(haiku, { ...short, cache_read_input_tokens: 1 })).toBeCloseTo(
      (100_000 * 0.5 + 1 * 0.05 + 1000 * 2.5) / 1e6,
      9,
    );
  });

  it('weights cached input by the table (writes 1.25x, reads at the read/input ratio)', () => {
    const opus = findModelOrThrow(catalogue, 'claude-opus-5');
    expect(
      weightedInputTokens(opus, {
        input_tokens: 100,
        output_tokens: 0,
        cache_creation_input_tokens: 1000,
        cache_read_input_tokens: 10_000,
      }),
    ).toBeCloseTo(100 + 1250 + 1000, 9);
  });

  it('estimates an upper bound before a call', () => {
    const sonnet = findModelOrThrow(catalogue, 'claude-sonnet-5-5');
    expect(estimateCallCostUsd(sonnet, { inputTokens: 10_000, maxOutputTokens: 1000, writesCache: false })).toBeCloseTo(
      (10_000 * 2 + 1000 * 10) / 1e6,
      9,
    );
    expect(estimateCallCostUsd(sonnet, { inputTokens: 10_000, maxOutputTokens: 1000, writesCache: true })).toBeCloseTo(
      (10_000 * 2.5 + 1000 * 10) / 1e6,
      9,
    );
  });
});

describe('checkBudget', () => {
  const limits = { dailyUsd: 50, perPlanUsd: 5, perDispatchUsd: 1 };

  it('lets a call through when every scope stays within its limit', () => {
    expect(checkBudget({ spentToday: 10, spentOnPlan: 2, spentOnDispatch: 0.2, estimate: 0.5, limits })).toEqual({
      ok: true,
    });
    expect(
      checkBudget({ spentToday: 1e6, spentOnPlan: 1e6, estimate: 1, limits: { dailyUsd: null, perPlanUsd: null } }),
    ).toEqual({ ok: true });
  });

  it('reports the narrowest scope that would be passed, with what was spent', () => {
    expect(checkBudget({ spentToday: 10, spentOnPlan: 2, spentOnDispatch: 0.8, estimate: 0.5, limits })).toEqual({
      ok: false,
      scope: 'dispatch',
      limitUsd: 1,
      spentTodayUsd: 10,
      spentOnPlanUsd: 2,
      spentOnDispatchUsd: 0.8,
      estimateUsd: 0.5,
    });
    expect(checkBudget({ spentToday: 49.9, spentOnPlan: 2, estimate: 0.5, limits })).toMatchObject({
      ok: false,
      scope: 'daily',
    });
    expect(checkBudget({ spentToday: 10, spentOnPlan: 5, estimate: 0.001, limits })).toMatchObject({
      ok: false,
      scope: 'plan',
    });
  });

  it('throws LlmBudgetExceededError from the OrThrow form', () => {
    expect(() => checkBudgetOrThrow({ spentToday: 0, spentOnPlan: 4.99, estimate: 0.02, limits })).toThrow(
      LlmBudgetExceededError,
    );
    try {
      checkBudgetOrThrow({ spentToday: 0, spentOnPlan: 4.99, estimate: 0.02, limits });
    } catch (error) {
      expect(error).toMatchObject({
        code: 'LLM.BUDGET_EXCEEDED',
        retryable: false,
        details: { scope: 'plan', spentOnPlanUsd: 4.99 },
      });
      expect((error as Error).message).toContain('$4.9900 spent');
    }
  });
});
