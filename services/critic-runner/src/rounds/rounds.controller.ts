import { join } from 'node:path';
import { Controller, Inject, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { BUS_REQUESTER, EVENT_PUBLISHER, type EventPublisher, OnEvent, type Requester } from '@rloop/bus';
import { type EventOf, TransientError } from '@rloop/contracts';
import { type CriticDefinition, runCritic } from '@rloop/critics';
import { decisionEvent } from '@rloop/domain';
import { readOnlyCheckout } from '@rloop/git';
import { JournalClient } from '@rloop/journal-client';
import type { CriticRunnerConfig } from '../config.js';
import { CRITIC_RUNNER_CONFIG, HOSTED_CRITICS } from '../tokens.js';
import { reportData } from './report-events.js';

const PRODUCER = `critic-runner@${process.pid}`;

/**
 * Runs the round's built-in critics in parallel on a read-only checkout of the pinned commit, each
 * with its timeout, and reports each as soon as it is done: FindingsReported, or CriticFailed with
 * the reason. Critics hosted elsewhere (critic services) are left to their own runners.
 */
@Controller()
export class RoundsController implements OnApplicationShutdown {
  private readonly log = new Logger('CriticRunner');
  private readonly journal: JournalClient;
  private readonly abort = new AbortController();

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(BUS_REQUESTER) requester: Requester,
    @Inject(CRITIC_RUNNER_CONFIG) private readonly config: CriticRunnerConfig,
    @Inject(HOSTED_CRITICS) private readonly critics: ReadonlyMap<string, CriticDefinition>,
  ) {
    this.journal = new JournalClient(requester);
  }

  onApplicationShutdown(): void {
    this.abort.abort();
  }

  @OnEvent('RoundStarted', { name: 'critic-runner-rounds', ackWaitMs: 60_000 })
  async onRoundStarted(event: EventOf<'RoundStarted'>): Promise<void> {
    const round = event.data;
    const hosted = round.critics.filter((c) => this.critics.has(c.critic_id));
    if (hosted.length === 0) return;
    // A redelivered round (after a crash) runs only the critics that have not answered yet.
    const { state } = await this.journal.loopState(event.plan);
    const answered = state?.current?.round === round.round ? state.current.reports : {};
    const todo = hosted.filter((c) => answered[c.critic_id] === undefined);
    if (todo.length === 0) return;
    const meta = { plan: event.plan, run_id: event.correlation_id, causation_id: event.event_id, producer: PRODUCER, now: new Date().toISOString() };
    const checkout = await readOnlyCheckout(round.repo_path, round.commit, { workRoot: this.config.workRoot });
    this.log.log(`${event.plan} round ${round.round}: running ${todo.map((c) => c.critic_id).join(', ')} on ${round.commit.slice(0, 12)}`);
    await Promise.all(
      todo.map(async (dispatched) => {
        const critic = this.critics.get(dispatched.critic_id);
        if (critic === undefined) return;
        const result = await runCritic(
          critic,
          {
            repoDir: checkout.dir,
            commit: round.commit,
            files: round.files,
            phase: round.phase,
            signal: this.abort.signal,
            cacheDir: join(this.config.workRoot, 'cache', dispatched.critic_id.replace(/\//g, '__')),
            now: new Date(),
          },
          { timeoutMs: dispatched.timeout_ms },
        );
        // Stopped by a shutdown, not by the critic: report nothing, so the round is redelivered and redone.
        if (this.abort.signal.aborted) throw new TransientError('CRITIC_RUNNER.STOPPING', `stopped while ${dispatched.critic_id} ran`);
        const idParts = ['report', round.round, dispatched.critic_id];
        if (result.status === 'reported') {
          await this.publisher.publish(decisionEvent('FindingsReported', { ...meta, now: new Date().toISOString() }, idParts, reportData(round.round, dispatched.critic_id, round.commit, result.findings, result.duration_ms)));
        } else {
          this.log.warn(`${event.plan} round ${round.round}: ${dispatched.critic_id} ${result.reason}: ${result.message}`);
          await this.publisher.publish(
            decisionEvent('CriticFailed', { ...meta, now: new Date().toISOString() }, idParts, {
              round: round.round,
              critic_id: dispatched.critic_id,
              core: dispatched.core,
              reason: result.reason,
              message: result.message.slice(0, 4000),
              duration_ms: Math.round(result.duration_ms),
            }),
          );
        }
      }),
    );
  }
}
