import { join } from 'node:path';
import { Controller, Inject, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventContext,
  type EventPublisher,
  OnEvent,
  RetryLaterError,
  SERVICE_IDENTITY,
  type ServiceIdentity,
} from '@rloop/bus';
import { type DataOf, type EventOf, TransientError, describeError } from '@rloop/contracts';
import {
  type DecisionMeta,
  type LoopState,
  baselineWork,
  decideUnservedFix,
  decisionEvent,
  fixWork,
} from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import { type BudgetState, budgetEscalation, describeBudgetReached, redactSecrets } from '@rloop/llm';
import { ANTHROPIC_CLIENTS, type AnthropicClients } from '../anthropic/clients.js';
import { createAnthropicStrategy } from '../anthropic/strategy.js';
import { createPlanTestRunner } from '../anthropic/test-runner.js';
import { createWarningLister } from '../anthropic/warnings.js';
import type { ImplementerConfig } from '../config.js';
import {
  AbortedError,
  applyFix,
  builtInStrategies,
  type ImplementerEnv,
  recordBaseline,
  type StrategyResolver,
} from '../core.js';
import { OWNER_TAG, OWNER_VARIABLE, reapOrphans } from '../shell/orphans.js';
import { checkBubblewrap } from '../shell/sandbox.js';
import { localRepoPath } from '../git/remote.js';
import { IMPLEMENTER_CONFIG } from '../tokens.js';
import { LONG_WORK } from './long-work.js';

/** The UTC day of a time, YYYY-MM-DD (the daily budget's day). */
function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** A fix the journal has committed: its request (rebuilt from the run's state) and the FixRequested it answers. */
interface CommittedFix {
  readonly request: DataOf<'FixRequested'>;
  readonly requestEventId: string;
  readonly runId: string;
}

/**
 * The implementer's two jobs: the baseline test run before round 1, and one fix per requested
 * letter, committed on `rloop/<slug>` in a worktree of its own. Both are idempotent (their
 * results are recorded in the repository), so a redelivered message yields the same event.
 *
 * It works only on what the journal has committed: the triggers are the journal's announcements
 * of a LoopGated and of a FixRequested, and what it runs — the repository, the commits, the test
 * command, the implementer strategy and its command — comes from the run's journaled
 * PlanSubmitted, LoopGated and baseline, and the letter from the journal; a FixRequested on the
 * bus for a plan the journal does not hold makes it run nothing.
 *
 * The `anthropic` strategy (with ANTHROPIC_API_KEY) publishes what it does on the way: TestsWritten
 * once the red tests are confirmed, UsageRecorded for each dispatch, and EscalationRaised (reason
 * budget) when a budget stops it.
 *
 * Every plan command (baseline, tests, a `command` implementer, the anthropic strategy's test and
 * lint runs) runs only if the operator's allowlist names it, with the allowlisted environment
 * (never the service's secrets), in a process group of its own under the output and memory limits
 * of config/trust.yaml — the `command` implementer in the bubblewrap sandbox when configured.
 */
@Controller()
export class ImplementerController implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('Implementer');
  private readonly abort = new AbortController();
  private readonly env: ImplementerEnv;
  private readonly strategies: StrategyResolver;
  /** The environment of every plan command: the allowlisted variables, and our tag. */
  private readonly commandEnv: Readonly<Record<string, string>>;

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(IMPLEMENTER_CONFIG) private readonly config: ImplementerConfig,
    @Inject(ANTHROPIC_CLIENTS) private readonly anthropic: AnthropicClients | null,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {
    // Every command started here carries our tag, so an implementer starting after a crash of this one can find what it left running.
    this.commandEnv = { ...config.commands.env, [OWNER_VARIABLE]: OWNER_TAG };
    const { allow, agents, agentPolicies, limits, sandbox, trustFile } = config.commands;
    this.env = {
      workRoot: config.home,
      env: this.commandEnv,
      commands: { allow, agents, limits, trustFile },
      testTimeoutMs: config.testTimeoutMs,
      signal: this.abort.signal,
      recordCoverage: config.commands.recordCoverage,
    };
    this.strategies = builtInStrategies({
      commandTimeoutMs: config.commandTimeoutMs,
      limits,
      sandbox,
      agents: agentPolicies,
      repositoryEslintConfig: config.repositoryEslintConfig,
    });
  }

  /**
   * Runs before the consumers start: a sandbox the operator asked for must work here (never
   * silently skipped), and nothing a dead implementer left running may touch a worktree we are
   * about to reset.
   */
  async onModuleInit(): Promise<void> {
    if (this.config.commands.sandbox !== null) await checkBubblewrap();
    const reaped = await reapOrphans();
    if (reaped === null) {
      this.log.warn('no /proc here: commands an implementer killed earlier may have left running are not looked for');
      return;
    }
    for (const orphan of reaped)
      this.log.warn(
        `killed \`${orphan.command}\` (pid ${orphan.pid}), left running by implementer pid ${orphan.ownerPid}, which is gone`,
      );
  }

  onApplicationShutdown(): void {
    this.abort.abort();
  }

  /** The run's state as of an announcement of it (asked for again on a redelivery), or null for another run's announcement. */
  private async runState(announcement: EventOf<'JournalCommitted'>, ctx: EventContext): Promise<LoopState | null> {
    const { state } = await this.journal.loopStateAt(announcement, { fresh: ctx.deliveries > 1 });
    if (
      state === null ||
      state.run_id === null ||
      (announcement.data.run_id !== null && announcement.data.run_id !== state.run_id)
    )
      return null;
    return state;
  }

  @OnEvent('JournalCommitted', { name: 'implementer-committed-baselines', ...LONG_WORK })
  async onGated(announcement: EventOf<'JournalCommitted'>, ctx: EventContext): Promise<void> {
    if (announcement.plan.startsWith('_') || !announcement.data.events.some((e) => e.type === 'LoopGated')) return;
    const state = await this.runState(announcement, ctx);
    const work = state === null ? null : baselineWork(state);
    if (work === null) return;
    const data = await recordBaseline(
      {
        slug: work.slug,
        runId: work.runId,
        repoPath: work.repoPath,
        ...(work.repoUrl === undefined ? {} : { repoUrl: work.repoUrl }),
        commit: work.commit,
        testCmd: work.testCmd,
      },
      this.env,
    );
    const meta = {
      plan: work.slug,
      run_id: work.runId,
      causation_id: work.gatedEventId,
      producer: this.identity.producer,
      now: this.clock.now().toISOString(),
    };
    await this.publisher.publish(decisionEvent('BaselineRecorded', meta, ['baseline'], data));
  }

  /** The fix an announcement commits, rebuilt from the run's journaled state and letter (null when the run does not wait for one). */
  private async committedFix(
    announcement: EventOf<'JournalCommitted'>,
    ctx: EventContext,
  ): Promise<CommittedFix | null> {
    const requested = announcement.data.events.find((e) => e.type === 'FixRequested');
    if (announcement.plan.startsWith('_') || requested === undefined) return null;
    const state = await this.runState(announcement, ctx);
    const letterId = state?.current?.letter?.letter_id;
    if (state === null || state.run_id === null || letterId === undefined) return null;
    const request = fixWork(state, await this.journal.letterAt(announcement, letterId));
    return request === null ? null : { request, requestEventId: requested.event_id, runId: state.run_id };
  }

  @OnEvent('JournalCommitted', { name: 'implementer-committed-fixes', ...LONG_WORK })
  async onFixRequested(announcement: EventOf<'JournalCommitted'>, ctx: EventContext): Promise<void> {
    if (!announcement.data.events.some((e) => e.type === 'FixRequested')) return;
    const fix = await this.committedFix(announcement, ctx);
    if (fix === null) return;
    const { request } = fix;
    const plan = announcement.plan;
    const meta = (): DecisionMeta => ({
      plan,
      run_id: fix.runId,
      causation_id: fix.requestEventId,
      producer: this.identity.producer,
      now: this.clock.now().toISOString(),
    });
    const wiring = request.implementer.strategy === 'anthropic' ? this.anthropic : null;
    let data: DataOf<'FixApplied'>;
    try {
      data =
        wiring === null
          ? await applyFix(request, { ...this.env, strategyFor: this.strategies })
          : await applyFix(request, {
              ...this.env,
              strategyFor: await this.anthropicStrategies(plan, fix, ctx, wiring, meta),
            });
    } catch (error) {
      // A shutdown leaves the message for the next implementer; anything else is a fix this one could not serve.
      if (error instanceof AbortedError || this.abort.signal.aborted) throw error;
      await this.unservedFix(fix, ctx, error, meta());
      return;
    }
    if (data.outcome === 'failed' && data.reason !== undefined)
      this.log.warn(`${plan} round ${request.round}: the ${data.strategy} fix failed: ${redactSecrets(data.reason)}`);
    await this.publisher.publish(
      decisionEvent('FixApplied', meta(), ['fix-applied', request.round], {
        ...data,
        ...(data.reason === undefined ? {} : { reason: redactSecrets(data.reason) }),
      }),
    );
  }

  /**
   * A fix this implementer could not make (the plan's repository unreachable, its branch moved or
   * held elsewhere, a git failure): retried with backoff (the message parked, so any implementer
   * may take it), and past RLOOP_FIX_DEADLINE_MS escalated with reason implementer_failed — never
   * dead-lettered with the plan left in "fixing". Decided on the run's state as the journal has it now.
   */
  private async unservedFix(fix: CommittedFix, ctx: EventContext, error: unknown, meta: DecisionMeta): Promise<void> {
    const failure = redactSecrets(describeError(error));
    const { state } = await this.journal.loopState(meta.plan);
    if (state === null || state.run_id !== fix.runId) return;
    const decision = decideUnservedFix(
      state,
      { now_ms: this.clock.now().getTime(), attempts: ctx.deliveries, failure },
      this.config.fixDeadline,
      meta,
    );
    if (decision.kind === 'served') return;
    if (decision.kind === 'retry') {
      this.log.warn(
        `${meta.plan} round ${fix.request.round}: the fix could not be made (${failure}); trying again in ${decision.after_ms} ms`,
      );
      throw new RetryLaterError(decision.after_ms, `${meta.plan} round ${fix.request.round}: ${failure}`);
    }
    this.log.error(
      `${meta.plan} round ${fix.request.round}: no fix within ${this.config.fixDeadline.deadline_ms} ms; escalating (${failure})`,
    );
    await this.publisher.publish(decision.event);
  }

  /** The strategy resolver for one anthropic fix: the strategy bound to this request, its budget and its events. */
  private async anthropicStrategies(
    plan: string,
    fix: CommittedFix,
    ctx: EventContext,
    wiring: AnthropicClients,
    meta: () => DecisionMeta,
  ): Promise<StrategyResolver> {
    const { settings } = wiring;
    const { request } = fix;
    const spend = await this.journal.spend(plan, utcDay(this.clock.now()), fix.runId);
    const budget: BudgetState = {
      limits: settings.budgets,
      spentOnPlanUsd: spend.run_usd ?? spend.plan_usd,
      spentTodayUsd: spend.day_usd,
    };
    const runTests = createPlanTestRunner({
      command: request.test_cmd,
      timeoutMs: this.config.testTimeoutMs,
      env: this.commandEnv,
      limits: this.config.commands.limits,
    });
    const strategy = createAnthropicStrategy({
      // Its records are kept beside the fix's: in this implementer's copy of a plan given by URL.
      request: { ...request, repo_path: await localRepoPath(request, this.config.home, request.base_commit) },
      testWriter: { client: wiring.testWriter, spec: settings.testWriter, stepBudget: settings.testWriterSteps },
      implementer: { client: wiring.implementer, spec: settings.implementer, stepBudget: settings.implementerSteps },
      budget,
      runTests,
      listWarnings: createWarningLister({
        cacheDir: join(this.config.home, 'implementer', 'cache', 'compiler-linter', plan),
        signal: this.abort.signal,
      }),
      lintCommands: settings.lintCommands,
      commandEnv: this.commandEnv,
      commandLimits: this.config.commands.limits,
      commandTimeoutMs: this.config.testTimeoutMs,
      maxDiffLines: settings.maxDiffLines,
      hooks: {
        onTestsWritten: async (data) => {
          this.log.log(
            `${plan} round ${request.round}: ${data.red.length} red test(s) written for letter ${request.letter.letter_id}`,
          );
          await this.publisher.publish(decisionEvent('TestsWritten', meta(), ['tests-written', request.round], data));
        },
        onUsage: async (usage) => {
          // The delivery attempt is part of the id: a redelivery that dispatches again has really spent again.
          await this.publisher.publish(
            decisionEvent('UsageRecorded', meta(), ['usage', request.round, usage.dispatch, ctx.deliveries], {
              ...usage,
              round: request.round,
            }),
          );
        },
        onBudgetReached: async (reached) => {
          this.log.warn(`${plan} round ${request.round}: ${describeBudgetReached(reached)}; escalating`);
          const { state } = await this.journal.loopState(plan);
          if (state === null || state.run_id !== fix.runId)
            throw new TransientError(
              'IMPLEMENTER.STATE_BEHIND',
              `the journal has no loop state for ${plan}'s run ${fix.runId} yet`,
            );
          const escalation = budgetEscalation(state, reached, meta(), request.round, 'implementer');
          // A redelivered request finds its escalation already raised: the spend it read then stands.
          if (state.escalation?.escalation_id !== escalation.data.escalation_id)
            await this.publisher.publish(escalation);
        },
      },
    });
    const { limits, sandbox, agentPolicies } = this.config.commands;
    return builtInStrategies({
      commandTimeoutMs: this.config.commandTimeoutMs,
      limits,
      sandbox,
      agents: agentPolicies,
      repositoryEslintConfig: this.config.repositoryEslintConfig,
      extra: { anthropic: strategy },
    });
  }
}
