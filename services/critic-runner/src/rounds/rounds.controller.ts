import { Controller, Inject, Logger, type OnApplicationShutdown } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventContext,
  type EventPublisher,
  OnEvent,
  SERVICE_IDENTITY,
  type ServiceIdentity,
} from '@rloop/bus';
import { type EventOf, TransientError, parseEvent } from '@rloop/contracts';
import { type DispatchOutcome, answerRound } from '@rloop/critic-sdk';
import type { CriticDefinition } from '@rloop/critics';
import { type LoopState, roundWork } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import type { CriticRunnerConfig } from '../config.js';
import type { LlmCriticHost } from '../llm/llm-critics.js';
import { CRITIC_RUNNER_CONFIG, HOSTED_CRITICS, LLM_CRITIC_HOST, RECORDED_COVERAGE } from '../tokens.js';
import type { RecordedCoverageStore } from './recorded-coverage.js';
import { type RunnerDeps, runnerRoundHost } from './runner-host.js';

/**
 * Runs the round's hosted critics in parallel on a read-only checkout of the pinned commit, each
 * with its timeout, and reports each as soon as it is done: FindingsReported, or CriticFailed with
 * the reason. Critics hosted elsewhere (critic services) are left to their own runners. A round is
 * answered as a critic service answers it (answerRound, @rloop/critic-sdk: expiry, dedupe, the
 * checkout, the answers); what this runner adds — budget, usage, recorded coverage — is its
 * RoundHost (runner-host.ts), and where a round's repository comes from is repository.ts.
 *
 * It acts only on rounds the journal has committed: the trigger is the journal's announcement of
 * a RoundStarted, the round and its critics are the journaled ones, and the repository, the base
 * commit and the files come from the run's journaled LoopGated — a RoundStarted published on the
 * bus by anyone else makes it check nothing out.
 */
@Controller()
export class RoundsController implements OnApplicationShutdown {
  private readonly log = new Logger('CriticRunner');
  private readonly abort = new AbortController();
  private readonly deps: RunnerDeps;

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(CRITIC_RUNNER_CONFIG) private readonly config: CriticRunnerConfig,
    @Inject(HOSTED_CRITICS) private readonly critics: ReadonlyMap<string, CriticDefinition>,
    @Inject(LLM_CRITIC_HOST) private readonly llm: LlmCriticHost | null,
    @Inject(RECORDED_COVERAGE) private readonly coverage: RecordedCoverageStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {
    this.deps = { publisher, journal, config, critics, llm, coverage, clock, identity, log: this.log };
  }

  onApplicationShutdown(): void {
    this.abort.abort();
  }

  /** The round an announcement commits, as the journal holds it (null when there is nothing to review: not a round start, or a round that is over). */
  private async committedRound(
    announcement: EventOf<'JournalCommitted'>,
    ctx: EventContext,
  ): Promise<{ readonly event: EventOf<'RoundStarted'>; readonly state: LoopState } | null> {
    const started = announcement.data.events.find((e) => e.type === 'RoundStarted');
    if (announcement.plan.startsWith('_') || started === undefined) return null;
    // A redelivery (after a crash) reads the state now: the critics that answered meanwhile are not run again.
    const { state } = await this.journal.loopStateAt(announcement, { fresh: ctx.deliveries > 1 });
    const work = state === null ? null : roundWork(state, started.event_id);
    if (state === null || work === null) return null;
    const stored = await this.journal.hasEvent(started.event_id);
    const parsed = stored.found && stored.event !== undefined ? parseEvent(stored.event) : null;
    if (
      parsed === null ||
      !parsed.ok ||
      parsed.event.type !== 'RoundStarted' ||
      parsed.event.correlation_id !== work.runId
    ) {
      throw new TransientError(
        'CRITIC_RUNNER.STATE_BEHIND',
        `the journal announced RoundStarted ${started.event_id} of ${announcement.plan} but does not return it`,
      );
    }
    // The repository, base commit and files are the run's (its LoopGated), whatever the round's event says.
    const event: EventOf<'RoundStarted'> = {
      ...parsed.event,
      data: {
        ...parsed.event.data,
        repo_path: work.repoPath,
        base_commit: work.baseCommit,
        files: [...work.files],
        commit: work.round.commit,
      },
    };
    return { event, state };
  }

  @OnEvent('JournalCommitted', { name: 'critic-runner-committed-rounds', ackWaitMs: 60_000 })
  async onCommitted(
    announcement: EventOf<'JournalCommitted'>,
    ctx: EventContext,
  ): Promise<ReadonlyMap<string, DispatchOutcome>> {
    if (this.critics.size === 0 || !announcement.data.events.some((e) => e.type === 'RoundStarted')) return new Map();
    const committed = await this.committedRound(announcement, ctx);
    if (committed === null) return new Map();
    const { event, state } = committed;
    const host = runnerRoundHost(this.deps, event, state, ctx.deliveries);
    // Logged with the SDK's context ('Dispatch'), as a critic service logs the same steps.
    return answerRound(
      host,
      { publisher: this.publisher, journal: this.journal, clock: this.clock, logger: Logger },
      event,
      { deliveries: ctx.deliveries, signal: this.abort.signal },
    );
  }
}
