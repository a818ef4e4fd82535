import { afterAll, describe, expect, it } from '@jest/globals';
import { Controller, type DynamicModule, Inject, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern } from '@nestjs/microservices';
import { type EventOf, type JournaledEvent } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { loopStopped } from './__fixtures__/events.js';
import { CapturedLog, type Scenario, deferred, openScenario } from './__fixtures__/harness.js';
import {
  ALL_JOURNALED_EVENTS,
  type BatchContext,
  BusConnectionError,
  type EventContext,
  JetStreamServer,
  OnEvent,
  OnEventBatch,
  durableName,
  startService,
} from './index.js';

const HOOKS = Symbol('hooks');

interface Hooks {
  readonly batches: string[][];
  readonly batchSeqs: number[][];
  onBatch: () => Promise<void>;
  onEvent: (event: EventOf<'LoopStopped'>, context: EventContext) => Promise<void>;
}

@Controller()
class JournalAppender {
  constructor(@Inject(HOOKS) private readonly hooks: Hooks) {}

  @OnEventBatch(ALL_JOURNALED_EVENTS, { max: 10, name: 'append' })
  async append(events: JournaledEvent[], context: BatchContext): Promise<void> {
    this.hooks.batchSeqs.push(context.deliveries.map((d) => d.streamSequence));
    this.hooks.batches.push(events.map((e) => e.event_id));
    await this.hooks.onBatch();
  }
}

@Controller()
class SlowHandler {
  constructor(@Inject(HOOKS) private readonly hooks: Hooks) {}

  @OnEvent('LoopStopped', { name: 'slow' })
  async handle(event: EventOf<'LoopStopped'>, context: EventContext): Promise<void> {
    await this.hooks.onEvent(event, context);
  }
}

@Module({})
class HooksModule {
  static with(hooks: Hooks, controller: typeof JournalAppender | typeof SlowHandler): DynamicModule {
    return { module: HooksModule, controllers: [controller], providers: [{ provide: HOOKS, useValue: hooks }] };
  }
}

function newHooks(): Hooks {
  return { batches: [], batchSeqs: [], onBatch: () => Promise.resolve(), onEvent: () => Promise.resolve() };
}

const scenarios: Scenario[] = [];
async function scenario(): Promise<Scenario> {
  const s = await openScenario();
  scenarios.push(s);
  return s;
}

afterAll(async () => {
  await Promise.all(scenarios.map((s) => s.dispose()));
});

describe('batches, shutdown and start-up', () => {
  it('hands a batch handler the events that arrived together and acks them after it resolves', async () => {
    const s = await scenario();
    await s.provision();
    const ids: string[] = [];
    for (let i = 0; i < 25; i += 1) {
      const event = loopStopped(`plan-${i % 3}`, `n${i}`);
      ids.push(event.event_id);
      await s.nats.publishRaw(s.nats.subjects.event('LoopStopped', event.plan), JSON.stringify(event));
    }
    const hooks = newHooks();
    const hold = deferred();
    hooks.onBatch = () => (hooks.batches.length === 1 ? hold.promise : Promise.resolve());
    const consumer = durableName('journal', 'append');

    await s.start('journal', HooksModule.with(hooks, JournalAppender));

    await eventually(() => hooks.batches.length === 1);
    expect(hooks.batches[0]).toHaveLength(10);
    expect((await s.nats.consumerInfo(s.nats.subjects.streams.events, consumer)).ack_floor.stream_seq).toBe(0);
    hold.resolve();
    await eventually(
      async () => (await s.nats.consumerInfo(s.nats.subjects.streams.events, consumer)).ack_floor.stream_seq === 25,
    );
    expect(hooks.batches.flat()).toEqual(ids);
    expect(hooks.batches.every((b) => b.length <= 10)).toBe(true);
    expect(hooks.batchSeqs.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('waits for an in-flight handler on close, acks its message, then drains', async () => {
    const s = await scenario();
    const hooks = newHooks();
    const started = deferred();
    const release = deferred();
    let finished = false;
    hooks.onEvent = async () => {
      started.resolve();
      await release.promise;
      finished = true;
    };
    const service = await s.start('slow', HooksModule.with(hooks, SlowHandler));
    const consumer = durableName('slow', 'slow');
    const receipt = await s.nats.publishRaw(
      s.nats.subjects.event('LoopStopped', 'plan-a'),
      JSON.stringify(loopStopped('plan-a')),
    );
    await started.promise;

    const closing = service.stop();
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    await eventually(
      () => s.log.matching(/slow: stopped pulling; waiting up to 5000 ms for 1 running handler/).length === 1,
    );
    expect(closed).toBe(false);
    release.resolve();
    await closing;

    expect(finished).toBe(true);
    const info = await s.nats.consumerInfo(s.nats.subjects.streams.events, consumer);
    expect(info.ack_floor.stream_seq).toBe(receipt.seq);
    expect(info.num_ack_pending).toBe(0);
    expect(s.log.matching(/slow: stopped$/)).toHaveLength(1);
  });

  it('prints one ready line naming the bound consumers', async () => {
    const s = await scenario();
    const service = await s.start('ready-check', HooksModule.with(newHooks(), SlowHandler));

    expect(service.consumers).toEqual([durableName('ready-check', 'slow')]);
    expect(s.log.matching(/^.* ready-check: ready \(1 consumers bound\)$/)).toHaveLength(1);
  });

  it('gives up on an unreachable NATS after bounded retries with a typed error, one log line per attempt', async () => {
    const log = new CapturedLog();

    const error = await startService({
      name: 'lonely',
      module: HooksModule.with(newHooks(), SlowHandler),
      bus: { servers: 'nats://127.0.0.1:4299', connect: { timeoutMs: 1_000, backoff: { initialMs: 100, maxMs: 400 } } },
      logger: log.logger('lonely'),
      handleSignals: false,
      exitOnFailure: false,
    }).then(
      () => null,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(BusConnectionError);
    expect(error).toMatchObject({ code: 'BUS.CONNECT_FAILED', servers: ['nats://127.0.0.1:4299'] });
    const attempts = (error as BusConnectionError).attempts;
    expect(attempts).toBeGreaterThan(1);
    expect(log.matching(/NATS at nats:\/\/127\.0\.0\.1:4299 unreachable \(attempt \d+\)/)).toHaveLength(attempts);
    expect(
      log.matching(
        /lonely: failed to start: BUS\.CONNECT_FAILED: could not connect to NATS at nats:\/\/127\.0\.0\.1:4299/,
        'error',
      ),
    ).toHaveLength(1);
  });

  it('refuses to start with a handler that is not declared through the bus decorators', async () => {
    const s = await scenario();

    @Controller()
    class PlainNest {
      @EventPattern('LoopStopped')
      handle(_event: unknown): void {
        // Never bound: the server refuses the start.
      }
    }

    const app = await NestFactory.createMicroservice(
      { controllers: [PlainNest] },
      {
        strategy: new JetStreamServer({ service: 'plain', servers: 'nats://127.0.0.1:4222', namespace: s.namespace }),
        logger: false,
        abortOnError: false,
      },
    );
    await expect(app.listen()).rejects.toMatchObject({ code: 'BUS.INVALID_HANDLER' });
    await app.close();
  });
});
