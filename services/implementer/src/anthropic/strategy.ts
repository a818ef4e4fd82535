import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DataOf } from '@rloop/contracts';
import {
  type BudgetReached,
  type CommandLimits,
  type BudgetState,
  LlmAbortedError,
  LlmBudgetExceededError,
  LlmError,
  type LlmClient,
  type ModelSpec,
  type TestRunner,
  type UsageRecord,
  type WarningLister,
  type WrittenTest,
  budgetReached,
  budgetReachedFrom,
  describeBudgetReached,
  implementFix,
  realWorktreeRoot,
  redactSecrets,
  resolveInWorktree,
  verifyFix,
  writeFailingTests,
} from '@rloop/llm';
import { AbortedError, StrategyFailedError } from '../errors.js';
import type { FixContext, FixOutcome, FixStrategy } from '../strategies/strategy.js';
import { testLayoutOf } from './test-layout.js';
import { readTestsRecord, writeTestsRecord } from './tests-record.js';

export type FixRequestedData = DataOf<'FixRequested'>;
export type TestsWrittenData = DataOf<'TestsWritten'>;

/** Where the strategy reports what it did (the controller publishes these as events). */
export interface AnthropicStrategyHooks {
  /** The red tests, confirmed failing: published as TestsWritten before the implementer starts. */
  onTestsWritten(data: TestsWrittenData): Promise<void>;
  /** One dispatch's tokens and cost (the test writer's, the implementer's): UsageRecorded. */
  onUsage(usage: UsageRecord): Promise<void>;
  /** A budget stopped the fix: escalate with what was spent (EscalationRaised, reason budget). */
  onBudgetReached(reached: BudgetReached): Promise<void>;
}

export interface AnthropicStrategyOptions {
  /** The request being fixed (the letter, the plan's test command, the baseline's failing tests). */
  readonly request: FixRequestedData;
  readonly testWriter: { readonly client: LlmClient; readonly spec: ModelSpec; readonly stepBudget: number };
  readonly implementer: { readonly client: LlmClient; readonly spec: ModelSpec; readonly stepBudget: number };
  /** Limits and what the journal says was spent before this fix; null: no budget. */
  readonly budget: BudgetState | null;
  /** Runs the plan's test command (all tests, or some files). */
  readonly runTests: TestRunner;
  /** Compiler/linter warnings in a worktree, or in some of its files (the compiler-linter critic). */
  readonly listWarnings: WarningLister;
  /** Linter command lines the implementer may run besides the test command. */
  readonly lintCommands: readonly string[];
  /** The environment of commands the implementer runs (no secrets). */
  readonly commandEnv: Readonly<Record<string, string>>;
  /** The operator's output and memory limits for those commands. */
  readonly commandLimits?: CommandLimits;
  readonly commandTimeoutMs: number;
  readonly maxDiffLines: number;
  readonly hooks: AnthropicStrategyHooks;
}

function plus(budget: BudgetState, spentUsd: number): BudgetState {
  return {
    ...budget,
    spentOnPlanUsd: budget.spentOnPlanUsd + spentUsd,
    spentTodayUsd: budget.spentTodayUsd + spentUsd,
  };
}

/**
 * The spec's fix cycle through Claude, as a FixStrategy: (a) the test writer, in a fresh context
 * that sees the letter and the test layout but not the implementation, writes tests that must fail
 * now (run alone, confirmed red; TestsWritten); (b) the implementer, in a fresh context with the
 * letter and the red tests, edits the worktree through confined tools in a tool loop with a step
 * budget until they pass; (c) the verifier, with no model, accepts the result or refuses it
 * (tests edited instead of code, weakened or deleted tests, regressions, new warnings, a diff over
 * the bound). A refusal is a StrategyFailedError carrying the verifier's reasons: the fix cycle
 * resets the worktree and reports FixApplied{outcome: failed}. Accepted, the fix cycle commits the
 * code and the red tests together.
 *
 * The red tests are stored per letter in the repository, so a redelivered request reuses them
 * instead of paying for them again.
 */
export function createAnthropicStrategy(options: AnthropicStrategyOptions): FixStrategy {
  const { request, hooks } = options;
  const letter = request.letter;

  const stopForBudget = async (reached: BudgetReached): Promise<never> => {
    await hooks.onBudgetReached(reached);
    throw new StrategyFailedError(`stopped: ${describeBudgetReached(reached)}`);
  };

  /** Records what a failed dispatch spent, then turns the error into the fix's outcome. */
  const failed = async (error: unknown, dispatch: string, signal: AbortSignal): Promise<never> => {
    if (
      error instanceof LlmError &&
      error.usage !== undefined &&
      error.usage.input_tokens + error.usage.output_tokens > 0
    )
      await hooks.onUsage(error.usage);
    if (error instanceof LlmAbortedError && signal.aborted) throw new AbortedError(`the anthropic ${dispatch}`);
    if (error instanceof LlmBudgetExceededError) return stopForBudget(budgetReachedFrom(error, dispatch));
    // Every other model failure (bad output, refusal, overload after the client's retries) ends this attempt; the next round may try again.
    if (error instanceof LlmError)
      throw new StrategyFailedError(`the ${dispatch} failed: ${error.code}: ${error.message}`);
    throw error;
  };

  return {
    name: 'anthropic',
    async apply(context: FixContext): Promise<FixOutcome> {
      const dir = context.worktreeDir;
      const signal = context.signal;
      let budget = options.budget;
      const before = budget === null ? null : budgetReached(budget, 'the test writer');
      if (before !== null) await stopForBudget(before);
      const baselineWarnings = await options.listWarnings(dir);

      // (a) The red tests: the ones already written for this letter, or new ones from the test writer.
      let redTests: readonly WrittenTest[];
      let testsWritten: TestsWrittenData;
      const stored = await readTestsRecord(request.repo_path, letter.plan, letter.letter_id);
      if (stored !== null) {
        const root = await realWorktreeRoot(dir);
        for (const test of stored.red_tests) {
          const target = await resolveInWorktree(root, test.file);
          await mkdir(dirname(target.absolute), { recursive: true });
          await writeFile(target.absolute, test.content);
        }
        redTests = stored.red_tests;
        testsWritten = stored.tests_written;
      } else {
        const layout = await testLayoutOf(dir, request.test_cmd);
        const written = await writeFailingTests({
          letter,
          worktreeDir: dir,
          testLayout: layout,
          runTests: options.runTests,
          client: options.testWriter.client,
          spec: options.testWriter.spec,
          stepBudget: options.testWriter.stepBudget,
          // The red tests are checked like the code: their warnings are the test writer's to fix, not the fix's.
          lintTest: options.listWarnings,
          signal,
          ...(budget === null ? {} : { budget }),
        }).catch((error: unknown) => failed(error, 'test writer', signal));
        await hooks.onUsage(written.usage);
        if (budget !== null) budget = plus(budget, written.usage.cost_usd);
        redTests = written.redTests;
        testsWritten = {
          ...written.testsWritten,
          round: request.round,
          tests: written.testsWritten.tests.map((t) => ({ ...t, finding_ids: [...t.finding_ids] })),
        };
        await writeTestsRecord(request.repo_path, letter.plan, letter.letter_id, {
          tests_written: testsWritten,
          red_tests: redTests.map((t) => ({
            file: t.file,
            finding_ids: [...t.finding_ids],
            name: t.name,
            content: t.content,
          })),
        });
      }
      await hooks.onTestsWritten(testsWritten);
      if (signal.aborted) throw new AbortedError('the anthropic strategy');

      // (b) The implementer's tool loop.
      const during = budget === null ? null : budgetReached(budget, 'the implementer');
      if (during !== null) await stopForBudget(during);
      const fix = await implementFix({
        letter,
        failingTests: redTests,
        worktreeDir: dir,
        stepBudget: options.implementer.stepBudget,
        allowedCommands: [request.test_cmd, ...options.lintCommands],
        client: options.implementer.client,
        spec: options.implementer.spec,
        commandEnv: options.commandEnv,
        ...(options.commandLimits === undefined ? {} : { commandLimits: options.commandLimits }),
        commandTimeoutMs: options.commandTimeoutMs,
        signal,
        ...(budget === null ? {} : { budget }),
      }).catch((error: unknown) => failed(error, 'implementer', signal));
      await hooks.onUsage(fix.usage);
      if (signal.aborted) throw new AbortedError('the anthropic strategy');

      // (c) The verifier: deterministic, no model.
      const verdict = await verifyFix({
        worktreeDir: dir,
        baseCommit: request.base_commit,
        baselineFailing: request.baseline_failing,
        runTests: options.runTests,
        listWarnings: options.listWarnings,
        baselineWarnings,
        maxDiffLines: options.maxDiffLines,
        redTests,
        letter,
        signal,
      });
      const account = [
        `test writer: ${testsWritten.red.length} red test(s)${testsWritten.passed_at_once.length === 0 ? '' : `, ${testsWritten.passed_at_once.length} passed at once and were dropped`}${(testsWritten.not_clean ?? []).length === 0 ? '' : `, ${testsWritten.not_clean?.length ?? 0} left with warnings and dropped`}`,
        `implementer: ${fix.outcome} after ${fix.steps} step(s), ${fix.toolCalls} tool call(s), touched ${fix.filesTouched.join(', ') || 'nothing'}`,
        `verifier: ${verdict.accepted ? 'accepted' : 'refused'} (${verdict.testsResult.passed} passed, ${verdict.testsResult.failed} failed, ${verdict.warnings} warning(s) in the code, ${baselineWarnings.length} at the base)`,
      ];
      if (!verdict.accepted) {
        const reasons = verdict.reasons.map((r) => `${r.code}: ${r.detail}`).join('; ');
        throw new StrategyFailedError(redactSecrets(`the verifier refused the fix: ${reasons}`), {
          outputTail: redactSecrets(`${account.join('\n')}\n${fix.summary}`.trim()),
        });
      }
      return {
        changedFiles: [...new Set([...fix.filesTouched, ...redTests.map((t) => t.file)])].sort(),
        log: redactSecrets([...account, fix.summary].join('\n')),
      };
    },
  };
}
