import { Controller, Inject, type OnApplicationShutdown } from '@nestjs/common';
import { EVENT_PUBLISHER, type EventPublisher, OnEvent } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { decisionEvent } from '@rloop/domain';
import type { ImplementerConfig } from '../config.js';
import { applyFix, builtInStrategies, type ImplementerEnv, recordBaseline, type StrategyResolver } from '../core.js';
import { IMPLEMENTER_CONFIG } from '../tokens.js';

const PRODUCER = `implementer@${process.pid}`;

/**
 * The implementer's two jobs: the baseline test run before round 1, and one fix per requested
 * letter, committed on `rloop/<slug>` in a worktree of its own. Both are idempotent (their
 * results are recorded in the repository), so a redelivered message yields the same event.
 */
@Controller()
export class ImplementerController implements OnApplicationShutdown {
  private readonly abort = new AbortController();
  private readonly env: ImplementerEnv;
  private readonly strategies: StrategyResolver;

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(IMPLEMENTER_CONFIG) config: ImplementerConfig,
  ) {
    this.env = { workRoot: config.home, env: process.env, testTimeoutMs: config.testTimeoutMs, signal: this.abort.signal };
    this.strategies = builtInStrategies({ commandTimeoutMs: config.commandTimeoutMs });
  }

  onApplicationShutdown(): void {
    this.abort.abort();
  }

  @OnEvent('LoopGated', { name: 'implementer-baseline', ackWaitMs: 120_000 })
  async onGated(event: EventOf<'LoopGated'>): Promise<void> {
    if (event.data.verdict !== 'run') return;
    const data = await recordBaseline({ slug: event.plan, runId: event.correlation_id, repoPath: event.data.repo_path, commit: event.data.commit, testCmd: event.data.test_cmd }, this.env);
    const meta = { plan: event.plan, run_id: event.correlation_id, causation_id: event.event_id, producer: PRODUCER, now: new Date().toISOString() };
    await this.publisher.publish(decisionEvent('BaselineRecorded', meta, ['baseline'], data));
  }

  @OnEvent('FixRequested', { name: 'implementer-fix', ackWaitMs: 120_000 })
  async onFixRequested(event: EventOf<'FixRequested'>): Promise<void> {
    const data = await applyFix(event.data, { ...this.env, strategyFor: this.strategies });
    const meta = { plan: event.plan, run_id: event.correlation_id, causation_id: event.event_id, producer: PRODUCER, now: new Date().toISOString() };
    await this.publisher.publish(decisionEvent('FixApplied', meta, ['fix-applied', event.data.round], data));
  }
}
