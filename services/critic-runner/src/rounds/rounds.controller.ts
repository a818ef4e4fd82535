import { Controller, Inject, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock, EVENT_PUBLISHER, type EventContext, type EventPublisher, OnEvent, SERVICE_IDENTITY, type ServiceIdentity } from '@rloop/bus';
import { type CriticFailureReason, type DispatchedCritic, type EventOf, type Finding, TransientError, describeError, parseEvent } from '@rloop/contracts';
import { type CriticDefinition, type CriticRunResult, type RepoRoundReview, listCheckoutFiles, prepareRepoReview, runCritic } from '@rloop/critics';
import { type DecisionMeta, type LoopState, decisionEvent, describeCoverage, isFirstAnswer, roundWork } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
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
import { checkoutRound } from '../repository-checkout.js';
import { CRITIC_RUNNER_CONFIG, HOSTED_CRITICS, LLM_CRITIC_HOST, RECORDED_COVERAGE } from '../tokens.js';
import { type RecordedCoverageStore, recordedCoverageFor } from './recorded-coverage.js';

import { type AnswerOptions, answerEvent, criticCacheDir, notRun } from '@rloop/critic-sdk';

const TEST_COVERAGE_CRITIC = 'quality/test-coverage';

/** The UTC day of a time, YYYY-MM-DD (the daily budget's day). */
function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

/** What the LLM critics of one round share: their definitions, or the budget that stops them. */
type LlmRound = { readonly kind: 'run'; readonly critics: ReadonlyMap<string, CriticDefinition> } | { readonly kind: 'stopped'; readonly reached: BudgetReached };

/**
 * Runs the round's hosted critics in parallel on a read-only checkout of the pinned commit, each
 * with its timeout, and reports each as soon as it is done: FindingsReported, or CriticFailed with
 * the reason. Critics hosted elsewhere (critic services) are left to their own runners.
 *
 * It acts only on rounds the journal has committed: the trigger is the journal's announcement of
 * a RoundStarted, the round and its critics are the journaled ones, and the repository, the base
 * commit and the files come from the run's journaled LoopGated — a RoundStarted published on the
 * bus by anyone else makes it check nothing out.
 *
 * LLM critics (with ANTHROPIC_API_KEY) see the plan, the diff from the plan's base commit and the
 * files; before they are dispatched the round's budget is checked against what the journal says
 * was spent, and a budget that is used up escalates the loop (EscalationRaised, reason budget)
 * instead. Every dispatch's tokens and cost are published as UsageRecorded.
 */
@Controller()
export class RoundsController implements OnApplicationShutdown {
  private readonly log = new Logger('CriticRunner');
  private readonly abort = new AbortController();

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(CRITIC_RUNNER_CONFIG) private readonly config: CriticRunnerConfig,
    @Inject(HOSTED_CRITICS) private readonly critics: ReadonlyMap<string, CriticDefinition>,
    @Inject(LLM_CRITIC_HOST) private readonly llm: LlmCriticHost | null,
    @Inject(RECORDED_COVERAGE) private readonly coverage: RecordedCoverageStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  onApplicationShutdown(): void {
    this.abort.abort();
  }

  /** The round an announcement commits, as the journal holds it (null when there is nothing to review: not a round start, or a round that is over). */
  private async committedRound(announcement: EventOf<'JournalCommitted'>, ctx: EventContext): Promise<{ readonly event: EventOf<'RoundStarted'>; readonly state: LoopState } | null> {
    const started = announcement.data.events.find((e) => e.type === 'RoundStarted');
    if (announcement.plan.startsWith('_') || started === undefined) return null;
    // A redelivery (after a crash) reads the state now: the critics that answered meanwhile are not run again.
    const { state } = await this.journal.loopStateAt(announcement, { fresh: ctx.deliveries > 1 });
    const work = state === null ? null : roundWork(state, started.event_id);
    if (state === null || work === null) return null;
    const stored = await this.journal.hasEvent(started.event_id);
    const parsed = stored.found && stored.event !== undefined ? parseEvent(stored.event) : null;
    if (parsed === null || !parsed.ok || parsed.event.type !== 'RoundStarted' || parsed.event.correlation_id !== work.runId) {
      throw new TransientError('CRITIC_RUNNER.STATE_BEHIND', `the journal announced RoundStarted ${started.event_id} of ${announcement.plan} but does not return it`);
    }
    // The repository, base commit and files are the run's (its LoopGated), whatever the round's event says.
    const event: EventOf<'RoundStarted'> = { ...parsed.event, data: { ...parsed.event.data, repo_path: work.repoPath, base_commit: work.baseCommit, files: [...work.files], commit: work.round.commit } };
    return { event, state };
  }

  @OnEvent('JournalCommitted', { name: 'critic-runner-committed-rounds', ackWaitMs: 60_000 })
  async onCommitted(announcement: EventOf<'JournalCommitted'>, ctx: EventContext): Promise<void> {
    if (this.critics.size === 0 || !announcement.data.events.some((e) => e.type === 'RoundStarted')) return;
    const committed = await this.committedRound(announcement, ctx);
    if (committed === null) return;
    const { event, state } = committed;
    const round = event.data;
    const hosted = round.critics.filter((c) => this.critics.has(c.critic_id));
    // Critics that already answered this round (a redelivery after a crash) are not run again: only a first answer would count.
    const answered = state.current?.reports ?? {};
    const todo = hosted.filter((c) => isFirstAnswer(round.round, (criticId) => answered[criticId] !== undefined, { round: round.round, critic_id: c.critic_id }));
    if (todo.length === 0) return;
    const meta: DecisionMeta = { plan: event.plan, run_id: event.correlation_id, causation_id: event.event_id, producer: this.identity.producer, now: this.clock.now().toISOString() };
    const stamp = (): DecisionMeta => ({ ...meta, now: this.clock.now().toISOString() });

    const usage = new UsagePublisher(this.publisher, this.log, stamp, round.round, ctx.deliveries);
    let escalated: Promise<void> | null = null;
    const escalateOnce = (reached: BudgetReached): Promise<void> => {
      escalated ??= this.escalate(event, state, reached, stamp());
      return escalated;
    };

    const llmTodo = todo.filter((c) => this.llm?.ids.has(c.critic_id) === true);
    const llmRound = llmTodo.length === 0 ? null : await this.prepareLlmRound(event, state, usage);
    if (llmRound?.kind === 'stopped') await escalateOnce(llmRound.reached);

    if (todo.some((c) => c.critic_id === TEST_COVERAGE_CRITIC)) {
      // What the implementer recorded with the test run of this commit, from the journal.
      const { entries } = await this.journal.events(event.plan, { scope: 'current_run' });
      this.coverage.set(round.commit, recordedCoverageFor(entries.map((e) => e.event), round.commit));
    }
    const checkout = await checkoutRound(state, round, this.config.workRoot);
    // Listed from the checkout itself, once for every critic of the round (never from a repository
    // that holds the fleet's home: it ignores the checkout, and the critics would see no files).
    const repoFiles = await listCheckoutFiles(checkout.dir, this.abort.signal);
    // The repository's own .rloop.yaml, .rloopignore and rloop-ignore comments at the pinned commit, within the operator's policy.
    // Files it excludes are not under review: the critics' coverage counts the rest, the report counts those excluded.
    const bound = this.config.maxFileBytes === null ? {} : { maxFileBytes: this.config.maxFileBytes };
    const repo = prepareRepoReview(checkout.dir, round.files, this.config.repoPolicy, new Set(round.critics.filter((c) => c.core).map((c) => c.critic_id)), bound);
    this.log.log(`${event.plan} round ${round.round}: running ${todo.map((c) => c.critic_id).join(', ')} on ${round.commit.slice(0, 12)}`);
    await Promise.all(
      todo.map(async (dispatched) => {
        const isLlm = llmTodo.includes(dispatched);
        if (isLlm && llmRound?.kind === 'stopped') {
          await this.publishAnswer(event, dispatched, notRun(dispatched.critic_id, 'not_runnable', `not run: ${describeBudgetReached(llmRound.reached)}`));
          return;
        }
        const critic = isLlm && llmRound?.kind === 'run' ? llmRound.critics.get(dispatched.critic_id) : this.critics.get(dispatched.critic_id);
        if (critic === undefined) return;
        if (repo.criticsOff.has(dispatched.critic_id)) {
          await this.publishAnswer(event, dispatched, notRun(dispatched.critic_id, 'not_runnable', "not run: switched off by the repository's .rloop.yaml (config/repo-policy.yaml allows it)"));
          return;
        }
        const result = await runCritic(
          critic,
          {
            repoDir: checkout.dir,
            commit: round.commit,
            files: repo.files,
            repoFiles,
            phase: round.phase,
            signal: this.abort.signal,
            cacheDir: criticCacheDir(this.config.workRoot, dispatched.critic_id),
            now: this.clock.now(),
          },
          { timeoutMs: dispatched.timeout_ms, core: dispatched.core, ...bound },
        );
        // Stopped by a shutdown, not by the critic: report nothing, so the round is redelivered and redone.
        if (this.abort.signal.aborted) throw new TransientError('CRITIC_RUNNER.STOPPING', `stopped while ${dispatched.critic_id} ran`);
        // What the dispatch spent goes to the journal before its report, so the next round's budget check sees it.
        await usage.settled(dispatched.critic_id);
        for (const note of result.notes) this.log.log(`${event.plan} round ${round.round}: ${dispatched.critic_id}: ${redactSecrets(note)}`);
        if (result.coverage !== null) this.log.log(`${event.plan} round ${round.round}: ${dispatched.critic_id}: ${describeCoverage(result.coverage)}`);
        if (result.status === 'failed' && result.error instanceof LlmBudgetExceededError) await escalateOnce(budgetReachedFrom(result.error, dispatched.critic_id));
        await this.publishAnswer(event, dispatched, result, (findings, day) => repo.apply(findings, day));
      }),
    );
  }

  /** Reads the spend, checks the budget, and binds the round's LLM critics to it. */
  private async prepareLlmRound(event: EventOf<'RoundStarted'>, state: LoopState | null, usage: UsagePublisher): Promise<LlmRound | null> {
    const llm = this.llm;
    const settings = this.config.anthropic;
    if (llm === null || settings === null) return null;
    const spend = await this.journal.spend(event.plan, utcDay(this.clock.now()), event.correlation_id);
    const budget: BudgetState = { limits: settings.budgets, spentOnPlanUsd: spend.run_usd ?? spend.plan_usd, spentTodayUsd: spend.day_usd };
    const reached = budgetReached(budget, "the round's LLM critics");
    if (reached !== null) return { kind: 'stopped', reached };
    const spec = state?.run_id === event.correlation_id ? state.spec : null;
    const critics = llm.forRound({
      subject: { plan: spec === null ? null : { title: spec.title, description: spec.description }, baseCommit: event.data.base_commit, round: event.data.round },
      budget,
      onUsage: (record) => usage.publish(record),
      onReport: (report) => this.logReport(event, report),
    });
    return { kind: 'run', critics };
  }

  private logReport(event: EventOf<'RoundStarted'>, report: LlmCriticReport): void {
    const dropped = report.dropped.length === 0 ? '0 dropped' : `${report.dropped.length} dropped for naming files or lines it was not given (${report.dropped.slice(0, 5).map((d) => `${d.file}:${d.line_range.start}-${d.line_range.end}`).join(', ')})`;
    this.log.log(
      `${event.plan} round ${event.data.round}: ${report.criticId}: ${report.findings} finding(s) kept, ${dropped}; ${report.attempts} attempt(s), ` +
        `${report.usage.input_tokens + report.usage.cache_creation_input_tokens + report.usage.cache_read_input_tokens} input tokens (${report.usage.cache_read_input_tokens} cached), ${usd(report.usage.cost_usd)}`,
    );
  }

  private async escalate(event: EventOf<'RoundStarted'>, state: LoopState | null, reached: BudgetReached, meta: DecisionMeta): Promise<void> {
    this.log.warn(`${event.plan} round ${event.data.round}: ${describeBudgetReached(reached)}; escalating`);
    if (state === null || state.run_id !== event.correlation_id) {
      throw new TransientError('CRITIC_RUNNER.STATE_BEHIND', `the journal has no loop state for ${event.plan}'s run ${event.correlation_id} yet`);
    }
    const escalation = budgetEscalation(state, reached, meta, event.data.round, 'critics');
    // A redelivered round finds its escalation already raised: the spend it read then stands.
    if (state.escalation?.escalation_id === escalation.data.escalation_id) return;
    await this.publisher.publish(escalation);
  }

  /** The critic's answer, made as every critic's is (answerEvent, @rloop/critic-sdk): LLM reasons kept, secrets masked. */
  private async publishAnswer(event: EventOf<'RoundStarted'>, dispatched: DispatchedCritic, result: CriticRunResult, applyRepo?: (findings: readonly Finding[], day: string) => ReturnType<RepoRoundReview['apply']>): Promise<void> {
    const now = this.clock.now().toISOString();
    const answer = answerEvent(event, dispatched, result, { producer: this.identity.producer, now }, (findings) => applyRepo?.(findings, now.slice(0, 10)) ?? null, ANSWER_OPTIONS);
    if (answer.type === 'CriticFailed') this.log.warn(`${event.plan} round ${event.data.round}: ${dispatched.critic_id} ${answer.data.reason}: ${answer.data.message}`);
    await this.publisher.publish(answer);
  }
}

/** LLM errors carry their own reasons (rate_limited, invalid_output, …); runCritic only knows the generic ones. */
function failureReason(result: Extract<CriticRunResult, { status: 'failed' }>): CriticFailureReason {
  return result.error instanceof LlmError ? criticFailureReasonOf(result.error) : result.reason;
}

const ANSWER_OPTIONS: AnswerOptions = { reasonOf: failureReason, redact: redactSecrets };

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
    const event = decisionEvent('UsageRecorded', this.meta(), ['usage', this.round, record.dispatch, this.attempt], { ...record, round: this.round });
    const next = this.publisher.publish(event).then(() => undefined);
    // Logged here too: a dispatch that outlived its deadline has nobody awaiting settled().
    next.catch((error: unknown) => {
      this.log.error(`UsageRecorded for ${record.dispatch} (round ${this.round}, ${record.cost_usd} USD) could not be published: ${redactSecrets(describeError(error))}`);
    });
    this.pending.set(record.dispatch, next);
  }

  /** Resolves once the critic's usage (if any) is published; rejects when it could not be (the round is then redelivered). */
  async settled(dispatch: string): Promise<void> {
    await this.pending.get(dispatch);
  }
}
