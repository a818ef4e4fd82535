import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { ValidationError } from '@rloop/contracts';
import { firstValueFrom } from 'rxjs';
import { loopStopped } from './__fixtures__/events.js';
import { type Scenario, openScenario } from './__fixtures__/harness.js';
import {
  DEFAULT_STREAM_LIMITS,
  EVENT_PUBLISHER,
  type EventPublisher,
  JetStreamClient,
  type PublishReceipt,
  provisionStreams,
} from './index.js';

@Module({})
class EmptyModule {}

describe('JetStreamClient publishing', () => {
  let s: Scenario;
  let publisher: EventPublisher;
  let client: JetStreamClient;

  beforeAll(async () => {
    s = await openScenario();
    const service = await s.start('publisher', EmptyModule);
    publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);
    client = service.app.get(JetStreamClient);
  });

  afterAll(async () => {
    await s.dispose();
  });

  it('rejects an event that breaks its contract with a ValidationError and sends nothing', async () => {
    const broken = { ...loopStopped('plan-a'), data: { note: 'no by' } } as unknown as Parameters<
      EventPublisher['publish']
    >[0];
    const before = (await s.nats.jsm.streams.info(s.nats.subjects.streams.events)).state.messages;

    const error = await publisher.publish(broken).then(
      () => null,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      code: 'CONTRACT.INVALID',
      issues: [{ path: 'data.by', message: expect.any(String) as unknown }],
    });
    expect((await s.nats.jsm.streams.info(s.nats.subjects.streams.events)).state.messages).toBe(before);
  });

  it('publishes on the event subject with Nats-Msg-Id = event_id and reports duplicates', async () => {
    const event = loopStopped('plan-b', 'dedupe');

    const first = await publisher.publish(event);
    const again = await publisher.publish(event);

    expect(first).toMatchObject({ stream: s.nats.subjects.streams.events, duplicate: false });
    expect(again).toEqual({ ...first, duplicate: true });
    const stored = await s.nats.messages(
      s.nats.subjects.streams.events,
      s.nats.subjects.event('LoopStopped', 'plan-b'),
    );
    expect(stored.map((m) => [m.seq, m.headers['Nats-Msg-Id']])).toEqual([[first.seq, [event.event_id]]]);
    expect(stored[0]?.json()).toEqual(event);
  });

  it("masks secrets in the data with the secrets detector's rules before anything is sent", async () => {
    const key = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');
    const event = loopStopped('plan-secret', `rotated ${key} after the leak`);

    await publisher.publish(event);

    const stored = await s.nats.messages(
      s.nats.subjects.streams.events,
      s.nats.subjects.event('LoopStopped', 'plan-secret'),
    );
    expect(stored.map((m) => m.json())).toEqual([
      { ...event, data: { ...event.data, note: 'rotated [REDACTED] after the leak' } },
    ]);
  });

  it('works through the Nest idiom emit(type, event)', async () => {
    const event = loopStopped('plan-c', 'emitted');

    const receipt = await firstValueFrom(client.emit<PublishReceipt>('LoopStopped', event));

    expect(receipt.duplicate).toBe(false);
    const mismatch = await firstValueFrom(client.emit('LoopGated', loopStopped('plan-c'))).then(
      () => null,
      (e: unknown) => e,
    );
    expect(mismatch).toMatchObject({ code: 'BUS.PATTERN_MISMATCH' });
  });

  it('provisions the four streams with their limits, and re-provisioning updates them in place', async () => {
    const events = await s.nats.jsm.streams.info(s.nats.subjects.streams.events);
    const critics = await s.nats.jsm.streams.info(s.nats.subjects.streams.critics);
    const deadLetters = await s.nats.jsm.streams.info(s.nats.subjects.streams.deadLetters);
    const commits = await s.nats.jsm.streams.info(s.nats.subjects.streams.commits);
    expect(events.config).toMatchObject({
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
      max_age: nanos(7 * 24 * 3_600_000),
      subjects: [`${s.namespace}.v1.events.>`],
    });
    expect(commits.config.max_age).toBe(nanos(24 * 3_600_000));
    expect(critics.config).toMatchObject({
      max_age: nanos(3_600_000),
      max_msgs_per_subject: DEFAULT_STREAM_LIMITS.criticsMaxMsgsPerSubject,
    });
    expect(deadLetters.config).toMatchObject({
      max_age: nanos(30 * 24 * 3_600_000),
      subjects: [`${s.namespace}.v1.dead_letters.>`],
    });

    await provisionStreams(s.nats.jsm, s.nats.subjects, { ...DEFAULT_STREAM_LIMITS, duplicateWindowMs: 60_000 });

    const updated = await s.nats.jsm.streams.info(s.nats.subjects.streams.events);
    expect(updated.config.duplicate_window).toBe(nanos(60_000));
    expect(updated.state.messages).toBe(events.state.messages);
  });

  it('leaves streams that already have the wanted limits alone (a client allowed only stream info gets through)', async () => {
    const limits = { ...DEFAULT_STREAM_LIMITS, duplicateWindowMs: 90_000 };
    await provisionStreams(s.nats.jsm, s.nats.subjects, limits);
    const updates: string[] = [];
    const watched = {
      ...s.nats.jsm,
      streams: Object.assign(Object.create(s.nats.jsm.streams) as typeof s.nats.jsm.streams, {
        update: (name: string) => Promise.reject(new Error(`update ${updates.push(name) > 0 ? name : ''} not allowed`)),
      }),
    };
    const infos = await provisionStreams(watched, s.nats.subjects, limits);
    expect(updates).toEqual([]);
    expect(infos.map((i) => i.config.duplicate_window)).toEqual([
      nanos(90_000),
      nanos(90_000),
      nanos(90_000),
      nanos(90_000),
    ]);
  });
});
