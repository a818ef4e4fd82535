// A NATS server of the spec's own, killed and started again: with its store, and without it (a
// server run without a volume comes back with no streams and no consumers).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Inject, type DynamicModule } from '@nestjs/common';
import type { EventOf } from '@rloop/contracts';
import { type PrivateNatsServer, eventually, startPrivateNatsServer, uniqueNamespace } from '@rloop/testing';
import { CapturedLog, FAST_CONSUMER } from './__fixtures__/harness.js';
import { loopStopped } from './__fixtures__/events.js';
import { EVENT_PUBLISHER, type EventPublisher, OnEvent, type RunningService, startService } from './index.js';

const SEEN = Symbol('seen');

@Controller()
class StoppedRecorder {
  constructor(@Inject(SEEN) private readonly seen: string[]) {}

  @OnEvent('LoopStopped')
  onStopped(event: EventOf<'LoopStopped'>): Promise<void> {
    this.seen.push(event.data.note ?? '');
    return Promise.resolve();
  }
}

function recorder(seen: string[]): DynamicModule {
  return {
    module: class RecorderModule {},
    controllers: [StoppedRecorder],
    providers: [{ provide: SEEN, useValue: seen }],
  };
}

describe('a service across NATS server restarts', () => {
  let nats: PrivateNatsServer;
  let service: RunningService;
  const seen: string[] = [];
  const log = new CapturedLog();

  beforeAll(async () => {
    nats = await startPrivateNatsServer();
    service = await startService({
      name: 'outage',
      module: recorder(seen),
      bus: { servers: nats.url, namespace: uniqueNamespace('out'), consumer: FAST_CONSUMER, shutdownTimeoutMs: 2_000 },
      logger: log.logger('outage'),
      handleSignals: false,
      exitOnFailure: false,
    });
  }, 30_000);

  afterAll(async () => {
    await nats?.restart();
    await service?.stop();
    await nats?.stop();
  }, 30_000);

  /** Publishes until the server takes it (the client is reconnecting at first). */
  async function publishWhenBack(note: string): Promise<void> {
    const publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);
    await eventually(() => publisher.publish(loopStopped('plan-a', note)).then(() => true), {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: `${note} to be published`,
    });
  }

  it('handles events again after the server comes back on its store, and after it comes back empty', async () => {
    await publishWhenBack('before');
    await eventually(() => seen.includes('before'), { description: 'the first event' });

    await nats.kill();
    await nats.restart();
    await publishWhenBack('after a restart');
    await eventually(() => seen.includes('after a restart'), {
      timeoutMs: 20_000,
      description: 'the event after a restart',
    });

    await nats.kill();
    await nats.restart({ emptyStore: true });
    await publishWhenBack('after a restart without the store');
    await eventually(() => seen.includes('after a restart without the store'), {
      timeoutMs: 20_000,
      description: 'the event after a restart without the store',
    });
    // At least once: an ack the killed server had not yet written to its store is redelivered.
    expect([...new Set(seen)]).toEqual(['before', 'after a restart', 'after a restart without the store']);
  }, 60_000);
});
