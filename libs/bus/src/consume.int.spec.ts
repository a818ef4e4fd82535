import { afterAll, describe, expect, it } from '@jest/globals';
import { Controller, type DynamicModule, Inject, Module } from '@nestjs/common';
import { type EventOf, IllegalStateError, RloopError, TransientError } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { criticHeartbeat, loopStopped } from './__fixtures__/events.js';
import { type Scenario, deferred, openScenario } from './__fixtures__/harness.js';
import {
  EVENT_PUBLISHER,
  type EventContext,
  type EventPublisher,
  OnEvent,
  RetryLaterError,
  durableName,
} from './index.js';

/** What a test wants its handler to do; the controller below forwards every call here. */
interface Probe {
  calls: { readonly note: string; readonly plan: string; readonly deliveries: number; readonly at: number }[];
  behaviour: (event: EventOf<'LoopStopped'>, context: EventContext) => Promise<void>;
}

const PROBE = Symbol('probe');

@Controller()
class StoppedHandler {
  constructor(@Inject(PROBE) private readonly probe: Probe) {}

  @OnEvent('LoopStopped', { name: 'stopped' })
  async onStopped(event: EventOf<'LoopStopped'>, context: EventContext): Promise<void> {
    this.probe.calls.push({
      note: event.data.note ?? '',
      plan: event.plan,
      deliveries: context.deliveries,
      at: Date.now(),
    });
    await this.probe.behaviour(event, context);
  }
}

@Controller()
class HeartbeatHandler {
  constructor(@Inject(PROBE) private readonly probe: Probe) {}

  @OnEvent('CriticHeartbeat', { name: 'heartbeat' })
  onHeartbeat(event: EventOf<'CriticHeartbeat'>, context: EventContext): void {
    this.probe.calls.push({
      note: event.data.critic_id,
      plan: event.plan,
      deliveries: context.deliveries,
      at: Date.now(),
    });
  }
}

@Module({})
class ProbeModule {
  static with(probe: Probe, ...controllers: (typeof StoppedHandler | typeof HeartbeatHandler)[]): DynamicModule {
    return { module: ProbeModule, controllers, providers: [{ provide: PROBE, useValue: probe }] };
  }
}

function newProbe(behaviour: Probe['behaviour'] = () => Promise.resolve()): Probe {
  return { calls: [], behaviour };
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

const SERVICE = 'probe';
const CONSUMER = durableName(SERVICE, 'stopped');

async function ackedThrough(s: Scenario, seq: number): Promise<void> {
  await eventually(
    async () => {
      const info = await s.nats.consumerInfo(s.nats.subjects.streams.events, CONSUMER);
      return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 && info.num_pending === 0;
    },
    { description: `ack floor at ${seq}` },
  );
}

describe('JetStreamServer consuming through a Nest microservice', () => {
  it('redelivers after a handler crash and acks the second attempt', async () => {
    const s = await scenario();
    const probe = newProbe((_event, context) =>
      context.deliveries === 1 ? Promise.reject(new Error('boom')) : Promise.resolve(),
    );
    const service = await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler));
    const publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);
    const receipt = await publisher.publish(loopStopped('plan-a', 'crash-once'));

    await ackedThrough(s, receipt.seq);
    expect(probe.calls.map((c) => c.deliveries)).toEqual([1, 2]);
    expect(s.log.matching(/failed \(attempt 1 of 5\): BUS\.HANDLER_CRASHED: boom/, 'warn')).toHaveLength(1);
    expect(await s.nats.deadLetters()).toEqual([]);
  });

  it('drops a re-published event id on the server and calls the handler once', async () => {
    const s = await scenario();
    const probe = newProbe();
    const service = await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler));
    const publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);
    const event = loopStopped('plan-a', 'once');

    const first = await publisher.publish(event);
    const second = await publisher.publish(event);
    const sentinel = await publisher.publish(loopStopped('plan-a', 'sentinel'));

    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ stream: first.stream, seq: first.seq, duplicate: true });
    await ackedThrough(s, sentinel.seq);
    expect(probe.calls.map((c) => c.note)).toEqual(['once', 'sentinel']);
    expect((await s.nats.messages(s.nats.subjects.streams.events)).map((m) => m.seq)).toEqual([
      first.seq,
      sentinel.seq,
    ]);
  });

  it('dead-letters invalid payloads without calling the handler', async () => {
    const s = await scenario();
    const probe = newProbe();
    await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler));
    const subject = s.nats.subjects.event('LoopStopped', 'plan-a');
    const missingBy = { ...loopStopped('plan-a'), data: { note: 'no by' } };
    const elsewhere = loopStopped('plan-b');

    await s.nats.publishRaw(subject, '{"type": "LoopStopped", ');
    await s.nats.publishRaw(subject, JSON.stringify(missingBy));
    await s.nats.publishRaw(subject, JSON.stringify(elsewhere));
    const last = await s.nats.publishRaw(subject, new Uint8Array([0xff, 0xfe, 0x00]));

    const letters = await eventually(async () => {
      const found = await s.nats.deadLetters();
      return found.length === 4 ? found : undefined;
    });
    await ackedThrough(s, last.seq);
    expect(letters.map((l) => [l.stream_sequence, l.reason, l.code, l.consumer, l.deliveries])).toEqual([
      [1, 'invalid_payload', 'BUS.NOT_JSON', CONSUMER, 1],
      [2, 'invalid_payload', 'CONTRACT.INVALID', CONSUMER, 1],
      [3, 'invalid_payload', 'BUS.SUBJECT_MISMATCH', CONSUMER, 1],
      [4, 'invalid_payload', 'BUS.NOT_UTF8', CONSUMER, 1],
    ]);
    expect(letters[1]?.issues).toContainEqual({ path: 'data.by', message: expect.any(String) as unknown });
    expect(letters[0]?.payload).toBe('{"type": "LoopStopped", ');
    expect(letters[3]).toMatchObject({
      payload: Buffer.from([0xff, 0xfe, 0x00]).toString('base64'),
      payload_encoding: 'base64',
      subject,
    });
    expect(s.log.matching(/dead-lettered .* invalid_payload/, 'error')).toHaveLength(4);
    const info = await s.nats.consumerInfo(s.nats.subjects.streams.events, CONSUMER);
    expect(info.num_redelivered).toBe(0);
    expect(probe.calls).toEqual([]);
  });

  it('dead-letters a non-retryable rejection at once, and a retryable failure after maxDeliver attempts', async () => {
    const s = await scenario();
    const probe = newProbe((event) =>
      Promise.reject(
        event.data.note === 'illegal'
          ? new IllegalStateError('LOOP.ALREADY_ENDED', 'the loop already ended')
          : new RloopError('DEP.FLAKY', 'flaky handler', { retryable: true }),
      ),
    );
    const service = await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler), { maxDeliver: 3 });
    const publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);

    await publisher.publish(loopStopped('plan-a', 'illegal'));
    const flaky = await publisher.publish(loopStopped('plan-b', 'flaky'));

    const letters = await eventually(async () => {
      const found = await s.nats.deadLetters();
      return found.length === 2 ? found : undefined;
    });
    await ackedThrough(s, flaky.seq);
    const bySeq = new Map(letters.map((l) => [l.stream_sequence, l]));
    expect(bySeq.get(1)).toMatchObject({ reason: 'handler_rejected', code: 'LOOP.ALREADY_ENDED', deliveries: 1 });
    expect(bySeq.get(flaky.seq)).toMatchObject({ reason: 'max_deliver', code: 'DEP.FLAKY', deliveries: 3 });
    expect(probe.calls.filter((c) => c.note === 'illegal')).toHaveLength(1);
    expect(probe.calls.filter((c) => c.note === 'flaky').map((c) => c.deliveries)).toEqual([1, 2, 3]);
  });

  it('lets a message wait out a dependency outage (TransientError) past maxDeliver, and dead-letters it only when the outage outlasts maxOutageMs', async () => {
    const s = await scenario();
    const probe = newProbe((event, context) =>
      (event.data.note === 'outage' && context.deliveries <= 4) || event.data.note === 'forever'
        ? Promise.reject(new TransientError('DEP.DOWN', 'dependency down'))
        : Promise.resolve(),
    );
    const service = await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler), {
      maxDeliver: 2,
      backoff: { initialMs: 50, maxMs: 200 },
      maxOutageMs: 2_000,
    });
    const publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);

    await publisher.publish(loopStopped('plan-a', 'outage'));
    const forever = await publisher.publish(loopStopped('plan-b', 'forever'));

    const [letter] = await eventually(async () => {
      const found = await s.nats.deadLetters();
      return found.length === 1 ? found : undefined;
    });
    await ackedThrough(s, forever.seq);
    // The first outlived its outage (4 transient failures, twice maxDeliver) and was handled once it was over.
    expect(probe.calls.filter((c) => c.note === 'outage').map((c) => c.deliveries)).toEqual([1, 2, 3, 4, 5]);
    expect(letter).toMatchObject({
      reason: 'max_deliver',
      code: 'DEP.DOWN',
      stream_sequence: forever.seq,
      message: expect.stringMatching(/^still failing after \d+ transient failure\(s\) over 2 s/),
    });
    expect(probe.calls.filter((c) => c.note === 'forever').length).toBeGreaterThan(2);
    expect(s.log.matching(/waits \(transient failure 1, not an attempt/, 'warn').length).toBeGreaterThanOrEqual(2);
  });

  it('dead-letters on receipt a message delivered more than maxDeliver times (a handler that kills the process)', async () => {
    const s = await scenario();
    const probe = newProbe();
    const first = await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler), { maxDeliver: 2 });
    await first.stop();
    const receipt = await s.nats.publishRaw(
      s.nats.subjects.event('LoopStopped', 'plan-a'),
      JSON.stringify(loopStopped('plan-a', 'poison')),
    );
    // Two deliveries that were never settled, as if the process died in the handler each time.
    const consumer = await s.nats.js.consumers.get(s.nats.subjects.streams.events, CONSUMER);
    for (let i = 0; i < 2; i += 1) {
      const msg = await consumer.next({ expires: 2_000 });
      expect(msg?.info.streamSequence).toBe(receipt.seq);
      msg?.nak();
    }

    await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler), { maxDeliver: 2 });

    const [letter] = await eventually(async () => {
      const found = await s.nats.deadLetters();
      return found.length === 1 ? found : undefined;
    });
    expect(letter).toMatchObject({
      reason: 'max_deliver',
      code: 'BUS.MAX_DELIVER',
      deliveries: 3,
      stream_sequence: receipt.seq,
    });
    await ackedThrough(s, receipt.seq);
    expect(probe.calls).toEqual([]);
  });

  it('handles each plan in publish order while plans run concurrently', async () => {
    const s = await scenario();
    const running = new Map<string, number>();
    const finished: string[] = [];
    let concurrentPlans = 0;
    let maxConcurrentPlans = 0;
    let maxSamePlan = 0;
    const probe = newProbe(async (event) => {
      const now = (running.get(event.plan) ?? 0) + 1;
      running.set(event.plan, now);
      maxSamePlan = Math.max(maxSamePlan, now);
      if (now === 1) concurrentPlans += 1;
      maxConcurrentPlans = Math.max(maxConcurrentPlans, concurrentPlans);
      // Earlier events take more turns, so handling one plan in parallel would finish out of order.
      const turns = 20 - Number((event.data.note ?? '#0').split('#')[1]);
      for (let i = 0; i < turns; i += 1) await new Promise((resolve) => setImmediate(resolve));
      finished.push(event.data.note ?? '');
      running.set(event.plan, (running.get(event.plan) ?? 1) - 1);
      if (running.get(event.plan) === 0) concurrentPlans -= 1;
    });
    const plans = ['plan-a', 'plan-b', 'plan-c', 'plan-d'];
    const published = new Map(plans.map((p) => [p, [] as string[]]));
    // Published before the service starts, so the first pull hands over every plan at once.
    await s.provision();
    for (const plan of plans) {
      for (let i = 0; i < 15; i += 1) {
        const note = `${plan}#${i}`;
        await s.nats.publishRaw(s.nats.subjects.event('LoopStopped', plan), JSON.stringify(loopStopped(plan, note)));
        published.get(plan)?.push(note);
      }
    }
    await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler), { concurrency: 3 });

    await ackedThrough(s, plans.length * 15);
    for (const plan of plans) {
      expect(probe.calls.filter((c) => c.plan === plan).map((c) => c.note)).toEqual(published.get(plan));
      expect(finished.filter((note) => note.startsWith(`${plan}#`))).toEqual(published.get(plan));
    }
    expect(maxSamePlan).toBe(1);
    expect(maxConcurrentPlans).toBe(3);
  });

  it('holds no more than maxBuffered messages, so a second replica takes the work the first cannot run yet', async () => {
    const s = await scenario();
    const release = deferred();
    const first = newProbe(() => release.promise);
    const second = newProbe();
    const plans = ['plan-a', 'plan-b', 'plan-c', 'plan-d', 'plan-e', 'plan-f'];
    // Published before either replica starts: the first one's pull could take them all.
    await s.provision();
    for (const plan of plans)
      await s.nats.publishRaw(s.nats.subjects.event('LoopStopped', plan), JSON.stringify(loopStopped(plan, plan)));
    await s.start(SERVICE, ProbeModule.with(first, StoppedHandler), { concurrency: 1, maxBuffered: 1 });
    await eventually(() => (first.calls.length === 1 ? true : undefined), { description: 'the first replica busy' });
    await s.start(SERVICE, ProbeModule.with(second, StoppedHandler), { concurrency: 1, maxBuffered: 1 });

    // While the first replica's handler still runs, the second handles every other plan.
    await eventually(() => (second.calls.length === plans.length - 1 ? true : undefined), {
      description: 'the second replica taking the rest',
    });
    release.resolve();
    await ackedThrough(s, plans.length);
    expect(first.calls).toHaveLength(1);
    expect([...first.calls, ...second.calls].map((c) => c.plan).sort()).toEqual(plans);
  });

  it('redelivers after a RetryLaterError delay without counting it as an attempt or holding back the plan', async () => {
    const s = await scenario();
    const probe = newProbe((event, context) =>
      event.data.note === 'timer' && context.deliveries === 1
        ? Promise.reject(new RetryLaterError(600, 'round deadline'))
        : Promise.resolve(),
    );
    await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler), { maxDeliver: 1 });
    const subject = s.nats.subjects.event('LoopStopped', 'plan-a');
    await s.nats.publishRaw(subject, JSON.stringify(loopStopped('plan-a', 'timer')));
    const next = await s.nats.publishRaw(subject, JSON.stringify(loopStopped('plan-a', 'next')));

    await ackedThrough(s, next.seq);
    expect(probe.calls.map((c) => [c.note, c.deliveries])).toEqual([
      ['timer', 1],
      ['next', 1],
      ['timer', 2],
    ]);
    const [firstTry, , secondTry] = probe.calls;
    expect((secondTry?.at ?? 0) - (firstTry?.at ?? 0)).toBeGreaterThanOrEqual(550);
    expect((secondTry?.at ?? 0) - (firstTry?.at ?? 0)).toBeLessThan(5_000);
    expect(s.log.matching(/failed|dead-lettered/)).toEqual([]);
    expect(s.log.matching(/parked for 600 ms: round deadline/, 'debug')).toHaveLength(1);
  });

  it('keeps a plan in order across a retry: later events wait for the failed one', async () => {
    const s = await scenario();
    const probe = newProbe((event, context) =>
      event.data.note === 'first' && context.deliveries === 1
        ? Promise.reject(new TransientError('DEP.DOWN', 'try again'))
        : Promise.resolve(),
    );
    const subject = s.nats.subjects.event('LoopStopped', 'plan-a');
    await s.provision();
    await s.nats.publishRaw(subject, JSON.stringify(loopStopped('plan-a', 'first')));
    const last = await s.nats.publishRaw(subject, JSON.stringify(loopStopped('plan-a', 'second')));
    await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler));

    await ackedThrough(s, last.seq);
    expect(probe.calls.map((c) => [c.note, c.deliveries])).toEqual([
      ['first', 1],
      ['first', 2],
      ['second', 1],
    ]);
  });

  it('publishes and consumes critics-channel events on the critics stream, keyed by critic', async () => {
    const s = await scenario();
    const probe = newProbe();
    const service = await s.start(SERVICE, ProbeModule.with(probe, HeartbeatHandler));
    const publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);

    const receipt = await publisher.publish(criticHeartbeat('security/sast-scanner'));

    expect(receipt).toEqual({ stream: s.nats.subjects.streams.critics, seq: 1, duplicate: false });
    await eventually(() => probe.calls.length === 1);
    expect(probe.calls[0]).toMatchObject({ note: 'security/sast-scanner', plan: '_critics', deliveries: 1 });
    const [stored] = await s.nats.messages(s.nats.subjects.streams.critics);
    expect(stored?.subject).toBe(`${s.namespace}.v1.critics.critic_heartbeat.security_sast-scanner`);
  });

  it('sends in-progress heartbeats while a long handler runs, so it is not redelivered', async () => {
    const s = await scenario();
    const release = deferred();
    const started = deferred();
    const probe = newProbe(async () => {
      started.resolve();
      await release.promise;
    });
    await s.start(SERVICE, ProbeModule.with(probe, StoppedHandler), { ackWaitMs: 1_000 });
    const receipt = await s.nats.publishRaw(
      s.nats.subjects.event('LoopStopped', 'plan-a'),
      JSON.stringify(loopStopped('plan-a', 'slow')),
    );
    await started.promise;

    // Let more than two ack waits pass: without heartbeats the server would have redelivered by now.
    const startedAt = probe.calls[0]?.at ?? 0;
    await eventually(() => Date.now() - startedAt > 2_500, {
      timeoutMs: 5_000,
      intervalMs: 100,
      description: 'two ack waits',
    });
    expect((await s.nats.consumerInfo(s.nats.subjects.streams.events, CONSUMER)).num_ack_pending).toBe(1);
    release.resolve();

    await ackedThrough(s, receipt.seq);
    expect(probe.calls.map((c) => c.deliveries)).toEqual([1]);
    expect((await s.nats.consumerInfo(s.nats.subjects.streams.events, CONSUMER)).num_redelivered).toBe(0);
  });
});
