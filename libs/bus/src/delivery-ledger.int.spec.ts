import { afterAll, describe, expect, it } from '@jest/globals';
import { Controller, type DynamicModule, Inject, Module } from '@nestjs/common';
import { type EventOf, TransientError } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { loopStopped } from './__fixtures__/events.js';
import { type Scenario, openScenario } from './__fixtures__/harness.js';
import { type EventContext, OnEvent, RetryLaterError, durableName } from './index.js';

// A consumer's count of deliveries that were not attempts (parks, outages) lives in the
// namespace's delivery ledger, so a service restarted in the middle of a long park sequence
// neither dead-letters the message early nor lets it be retried forever.

interface Probe {
  calls: { readonly deliveries: number; readonly at: number }[];
  /** Called with the number of this call (1-based): the server's delivery count is not what the tests count on. */
  behaviour: (call: number) => Promise<void>;
}

const PROBE = Symbol('probe');

@Controller()
class ParkingHandler {
  constructor(@Inject(PROBE) private readonly probe: Probe) {}

  @OnEvent('LoopStopped', { name: 'parking' })
  async onStopped(_event: EventOf<'LoopStopped'>, context: EventContext): Promise<void> {
    this.probe.calls.push({ deliveries: context.deliveries, at: Date.now() });
    await this.probe.behaviour(this.probe.calls.length);
  }
}

@Module({})
class ProbeModule {
  static with(probe: Probe): DynamicModule {
    return { module: ProbeModule, controllers: [ParkingHandler], providers: [{ provide: PROBE, useValue: probe }] };
  }
}

const SERVICE = 'ledger-probe';
const CONSUMER = durableName(SERVICE, 'parking');
const scenarios: Scenario[] = [];

afterAll(async () => {
  await Promise.all(scenarios.map((s) => s.dispose()));
});

/** Waits until the consumer has acked (or terminated) the message. */
async function acked(s: Scenario, seq: number): Promise<void> {
  await eventually(
    async () => {
      const info = await s.nats.consumerInfo(s.nats.subjects.streams.events, CONSUMER);
      return info.ack_floor.stream_seq >= seq ? true : undefined;
    },
    { description: `seq ${seq} acked` },
  );
}

describe('delivery accounting across restarts', () => {
  it('handles a message parked more often than maxDeliver allows attempts, when the service restarts in the middle of its parks', async () => {
    const s = await openScenario();
    scenarios.push(s);
    // A timer that fires seven times before its work is due (maxDeliver is 3 attempts).
    const probe: Probe = {
      calls: [],
      behaviour: (call) => (call < 8 ? Promise.reject(new RetryLaterError(100, 'not yet')) : Promise.resolve()),
    };
    const first = await s.start(SERVICE, ProbeModule.with(probe), { maxDeliver: 3 });
    const { seq } = await s.nats.publishRaw(
      s.nats.subjects.event('LoopStopped', 'plan-a'),
      JSON.stringify(loopStopped('plan-a', 'timer')),
    );
    await eventually(() => (probe.calls.length >= 4 ? true : undefined), {
      description: 'four parks by the first process',
    });
    await first.stop();
    await s.start(SERVICE, ProbeModule.with(probe), { maxDeliver: 3 });
    await eventually(() => (probe.calls.length >= 8 ? true : undefined), { description: 'the eighth delivery' });
    await acked(s, seq);
    expect(probe.calls).toHaveLength(8);
    expect(await s.nats.deadLetters()).toEqual([]);
  });

  it('still dead-letters after maxDeliver real attempts, however its parks were split between processes', async () => {
    const s = await openScenario();
    scenarios.push(s);
    // Parked twice, then it fails for real on every delivery.
    const probe: Probe = {
      calls: [],
      behaviour: (call) => Promise.reject(call <= 2 ? new RetryLaterError(100, 'not yet') : new Error('boom')),
    };
    const first = await s.start(SERVICE, ProbeModule.with(probe), { maxDeliver: 3 });
    const { seq } = await s.nats.publishRaw(
      s.nats.subjects.event('LoopStopped', 'plan-a'),
      JSON.stringify(loopStopped('plan-a', 'poison')),
    );
    await eventually(() => (probe.calls.length >= 3 ? true : undefined), {
      description: 'two parks and a first attempt',
    });
    await first.stop();
    await s.start(SERVICE, ProbeModule.with(probe), { maxDeliver: 3 });
    const [letter] = await eventually(async () => {
      const found = await s.nats.deadLetters();
      return found.length > 0 ? found : undefined;
    });
    expect(letter).toMatchObject({ reason: 'max_deliver', consumer: CONSUMER, stream_sequence: seq });
    expect(letter?.message).toMatch(/^gave up after 3 attempt\(s\)/);
    // Two parks and three attempts: no attempt lost, none added.
    expect(probe.calls).toHaveLength(5);
  });

  it("keeps an outage's bound across a restart: the wait does not start again", async () => {
    const s = await openScenario();
    scenarios.push(s);
    const maxOutageMs = 3_000;
    const probe: Probe = {
      calls: [],
      behaviour: () => Promise.reject(new TransientError('TEST.DOWN', 'the database is down')),
    };
    const first = await s.start(SERVICE, ProbeModule.with(probe), { maxDeliver: 2, maxOutageMs });
    await s.nats.publishRaw(
      s.nats.subjects.event('LoopStopped', 'plan-a'),
      JSON.stringify(loopStopped('plan-a', 'outage')),
    );
    await eventually(
      () => ((probe.calls.at(-1)?.at ?? 0) - (probe.calls[0]?.at ?? Infinity) >= 2_000 ? true : undefined),
      { description: 'two seconds of outage' },
    );
    await first.stop();
    const restartedAt = Date.now();
    await s.start(SERVICE, ProbeModule.with(probe), { maxDeliver: 2, maxOutageMs });
    const [letter] = await eventually(async () => {
      const found = await s.nats.deadLetters();
      return found.length > 0 ? found : undefined;
    });
    expect(letter).toMatchObject({ reason: 'max_deliver', code: 'TEST.DOWN' });
    // The outage began before the restart: it ends at its bound from then, not a whole bound after the restart.
    expect(Date.parse(letter?.failed_at ?? '') - restartedAt).toBeLessThan(maxOutageMs);
    expect(Date.parse(letter?.failed_at ?? '') - (probe.calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(maxOutageMs);
  });
});
