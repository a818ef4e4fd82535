import type { Logger } from '@nestjs/common';
import type { Clock, EventPublisher, ServiceIdentity } from '@rloop/bus';
import {
  type CriticFailureReason,
  type DispatchedCritic,
  type EventOf,
  TransientError,
  describeError,
} from '@rloop/contracts';
import { type AnswerOptions, type CriticFor, type RoundHost, notRun } from '@rloop/critic-sdk';
import type { CriticDefinition, CriticRunResult } from '@rloop/critics';
import { type DecisionMeta, type LoopState, decisionEvent } from '@rloop/domain';
import type { JournalClient } from '@rloop/journal-client';
import {
  type BudgetReached,
  type BudgetState,
  LlmBudgetExceededError,
  LlmError,
  type LlmCriticReport,
  type UsageRecord,
  budgetEscalation,
  budgetReached,
  budgetReachedFrom,
  criticFailureReasonOf,
  describeBudgetReached,
  redactSecrets,
} from '@rloop/llm';
import type { CriticRunnerConfig } from '../config.js';
import type { LlmCriticHost } from '../llm/llm-critics.js';
import { type RecordedCoverageStore, recordedCoverageFor } from './recorded-coverage.js';
import { repositoryFor } from './repository.js';

const TEST_COVERAGE_CRITIC = 'quality/test-coverage';

/** What the critic-runner's rounds work with (the controller's injected ports and settings). */
export interface RunnerDeps {
  readonly publisher: EventPublisher;
  readonly journal: Pick<JournalClient, 'spend' | 'events'>;
  readonly config: CriticRunnerConfig;
  readonly critics: ReadonlyMap<string, CriticDefinition>;
  readonly llm: LlmCriticHost | null;
  readonly coverage: RecordedCoverageStore;
  readonly clock: Clock;
  readonly identity: ServiceIdentity;
  readonly log: Logger;
}

/** What the LLM critics of one round share: their definitions, or the budget that stops them. */
type LlmRound =
  | { readonly kind: 'run'; readonly critics: ReadonlyMap<string, CriticDefinition> }
  | { readonly kind: 'stopped'; readonly reached: BudgetReached };

/** LLM errors carry their own reasons (rate_limited, invalid_output, …); runCritic only knows the generic ones. */
function failureReason(result: Extract<CriticRunResult, { status: 'failed' }>): CriticFailureReason {
  return result.error instanceof LlmError ? criticFailureReasonOf(result.error) : result.reason;
}

const ANSWER_OPTIONS: AnswerOptions = { reasonOf: failureReason, redact: redactSecrets };

/**
 * How the critic-runner answers one delivery of a journaled round through answerRound
 * (@rloop/critic-sdk), which owns expiry, dedupe, the checkout and the answers. What it adds:
 * - before its LLM critics are dispatched, the round's budget is checked against what the journal
 *   says was spent; a used-up budget escalates the loop (EscalationRaised, reason budget) once and
 *   answers each LLM critic "not run";
 * - quality/test-coverage reads what the implementer recorded with the commit's test run;
 * - every dispatch's tokens and cost are published as UsageRecorded before the critic's answer,
 *   so the next round's budget check sees them.
 * `state` is the journal's loop state the round was read with; `attempt` the delivery's number.
 */
export function runnerRoundHost(
  deps: RunnerDeps,
  event: EventOf<'RoundStarted'>,
  state: LoopState,
  attempt: number,
): RoundHost {
  const stamp = (): DecisionMeta => ({
    plan: event.plan,
    run_id: event.correlation_id,
    causation_id: event.event_id,
    producer: deps.identity.producer,
    now: deps.clock.now().toISOString(),
  });
  const usage = new UsagePublisher(deps.publisher, deps.log, stamp, event.data.round, attempt);
  let escalated: Promise<void> | null = null;
  const escalateOnce = (reached: BudgetReached): Promise<void> => {
    escalated ??= escalate(deps, event, state, reached, stamp());
    return escalated;
  };
  const isLlm = (criticId: string): boolean => deps.llm?.ids.has(criticId) === true;
  return {
    producer: deps.identity.producer,
    workRoot: deps.config.workRoot,
    maxFileBytes: deps.config.maxFileBytes,
    repoPolicy: deps.config.repoPolicy,
    critic: (criticId) => deps.critics.get(criticId) ?? null,
    checkout: (round, workRoot) => repositoryFor(state, round, workRoot),
    answer: ANSWER_OPTIONS,
    async prepare(round, todo): Promise<CriticFor> {
      const llmRound = todo.some((c) => isLlm(c.critic_id)) ? await prepareLlmRound(deps, round, state, usage) : null;
      if (llmRound?.kind === 'stopped') await escalateOnce(llmRound.reached);
      if (todo.some((c) => c.critic_id === TEST_COVERAGE_CRITIC)) {
        // What the implementer recorded with the test run of this commit, from the journal.
        const { entries } = await deps.journal.events(round.plan, { scope: 'current_run' });
        deps.coverage.set(
          round.data.commit,
          recordedCoverageFor(
            entries.map((e) => e.event),
            round.data.commit,
          ),
        );
      }
      return (dispatched: DispatchedCritic) => {
        if (llmRound === null || !isLlm(dispatched.critic_id)) return null;
        if (llmRound.kind === 'stopped')
          return notRun(dispatched.critic_id, 'not_runnable', `not run: ${describeBudgetReached(llmRound.reached)}`);
        return llmRound.critics.get(dispatched.critic_id) ?? null;
      };
    },
    async settle(_round, dispatched, result): Promise<void> {
      // What the dispatch spent goes to the journal before its report, so the next round's budget check sees it.
      await usage.settled(dispatched.critic_id);
      if (result.status === 'failed' && result.error instanceof LlmBudgetExceededError)
        await escalateOnce(budgetReachedFrom(result.error, dispatched.critic_id));
    },
  };
}

/** The UTC day of a time, YYYY-MM-DD (the daily budget's day). */
function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

/** Reads the spend, checks the budget, and binds the round's LLM critics to it (null: no LLM critics configured here). */
async function prepareLlmRound(
  deps: RunnerDeps,
  event: EventOf<'RoundStarted'>,
  state: LoopState,
  usage: UsagePublisher,
): Promise<LlmRound | null> {
  const { llm } = deps;
  const settings = deps.config.anthropic;
  if (llm === null || settings === null) return null;
  const spend = await deps.journal.spend(event.plan, utcDay(deps.clock.now()), event.correlation_id);
  const budget: BudgetState = {
    limits: settings.budgets,
    spentOnPlanUsd: spend.run_usd ?? spend.plan_usd,
    spentTodayUsd: spend.day_usd,
  };
  const reached = budgetReached(budget, "the round's LLM critics");
  if (reached !== null) return { kind: 'stopped', reached };
  const spec = state.run_id === event.correlation_id ? state.spec : null;
  const critics = llm.forRound({
    subject: {
      plan: spec === null ? null : { title: spec.title, description: spec.description },
      baseCommit: event.data.base_commit,
      round: event.data.round,
    },
    budget,
    onUsage: (record) => usage.publish(record),
    onReport: (report) => logReport(deps.log, event, report),
  });
  return { kind: 'run', critics };
}

function logReport(log: Logger, event: EventOf<'RoundStarted'>, report: LlmCriticReport): void {
  const dropped =
    report.dropped.length === 0
      ? '0 dropped'
      : `${report.dropped.length} dropped for naming files or lines it was not given (${report.dropped
          .slice(0, 5)
          .map((d) => `${d.file}:${d.line_range.start}-${d.line_range.end}`)
          .join(', ')})`;
  log.log(
    `${event.plan} round ${event.data.round}: ${report.criticId}: ${report.findings} finding(s) kept, ${dropped}; ${report.attempts} attempt(s), ` +
      `${report.usage.input_tokens + report.usage.cache_creation_input_tokens + report.usage.cache_read_input_tokens} input tokens (${report.usage.cache_read_input_tokens} cached), ${usd(report.usage.cost_usd)}`,
  );
}

async function escalate(
  deps: RunnerDeps,
  event: EventOf<'RoundStarted'>,
  state: LoopState,
  reached: BudgetReached,
  meta: DecisionMeta,
): Promise<void> {
  deps.log.warn(`${event.plan} round ${event.data.round}: ${describeBudgetReached(reached)}; escalating`);
  if (state.run_id !== event.correlation_id) {
    throw new TransientError(
      'CRITIC_RUNNER.STATE_BEHIND',
      `the journal has no loop state for ${event.plan}'s run ${event.correlation_id} yet`,
    );
  }
  const escalation = budgetEscalation(state, reached, meta, event.data.round, 'critics');
  // A redelivered round finds its escalation already raised: the spend it read then stands.
  if (state.escalation?.escalation_id === escalation.data.escalation_id) return;
  await deps.publisher.publish(escalation);
}

/**
 * Publishes the round's UsageRecorded events as the dispatches report them. Ids are derived from
 * the round, the critic and the delivery attempt of RoundStarted: a replay of the same attempt is
 * dropped as a duplicate, while a redelivery that really dispatches again records its new spend.
 */
class UsagePublisher {
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly publisher: EventPublisher,
    private readonly log: Logger,
    private readonly meta: () => DecisionMeta,
    private readonly round: number,
    private readonly attempt: number,
  ) {}

  publish(record: UsageRecord): void {
    const event = decisionEvent('UsageRecorded', this.meta(), ['usage', this.round, record.dispatch, this.attempt], {
      ...record,
      round: this.round,
    });
    const next = this.publisher.publish(event).then(() => undefined);
    // Logged here too: a dispatch that outlived its deadline has nobody awaiting settled().
    next.catch((error: unknown) => {
      this.log.error(
        `UsageRecorded for ${record.dispatch} (round ${this.round}, ${record.cost_usd} USD) could not be published: ${redactSecrets(describeError(error))}`,
      );
    });
    this.pending.set(record.dispatch, next);
  }

  /** Resolves once the critic's usage (if any) is published; rejects when it could not be (the round is then redelivered). */
  async settled(dispatch: string): Promise<void> {
    await this.pending.get(dispatch);
  }
}
