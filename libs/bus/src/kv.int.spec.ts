import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EventOf, subjectsFor } from '@rloop/contracts';
import { type TestNats, connectTestNats, eventually, uniqueNamespace } from '@rloop/testing';
import { ulid } from 'ulid';
import {
  KvBucket,
  criticHealthKey,
  encodeCriticHealthEntry,
  openCriticHealthBucket,
  readCriticRegistry,
} from './index.js';

function entry(
  criticId: string,
  instanceId: string,
  heartbeatMs: number,
): { registration: EventOf<'CriticRegistered'>; heartbeat: EventOf<'CriticHeartbeat'> } {
  const id = ulid();
  const envelope = {
    schema_version: 1,
    plan: '_critics',
    correlation_id: id,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    producer: 'kv-spec',
  } as const;
  return {
    registration: {
      ...envelope,
      event_id: id,
      type: 'CriticRegistered',
      data: {
        critic_id: criticId,
        instance_id: instanceId,
        evidence: 'pattern',
        description: '',
        triggers: [],
        phases: ['critical'],
        timeout_ms: 1000,
        heartbeat_interval_ms: heartbeatMs,
        version: '1',
      },
    },
    heartbeat: {
      ...envelope,
      event_id: ulid(),
      type: 'CriticHeartbeat',
      data: { critic_id: criticId, instance_id: instanceId, status: 'healthy', in_flight: 0, uptime_ms: 5 },
    },
  };
}

describe('KvBucket on the real NATS server', () => {
  let nats: TestNats;
  const namespace = uniqueNamespace('kv');
  const buckets: string[] = [];

  beforeAll(async () => {
    nats = await connectTestNats(namespace);
  });

  afterAll(async () => {
    for (const bucket of buckets) await nats.jsm.streams.delete(`KV_${bucket}`);
    await nats.cleanup();
  });

  it('stores one value per key, hides deleted keys and keeps the first creator’s max age', async () => {
    const bucket = `${namespace}_plain`;
    buckets.push(bucket);
    const kv = await KvBucket.open(nats.connection, { bucket, maxAgeMs: 60_000 });
    await kv.put('a.one', new TextEncoder().encode('1'));
    await kv.put('a.one', new TextEncoder().encode('2'));
    await kv.put('b.two', new TextEncoder().encode('3'));
    await kv.delete('b.two');

    const entries = await kv.entries();
    const again = await KvBucket.open(nats.connection, { bucket, maxAgeMs: 5_000 });

    expect(entries.map((e) => [e.key, new TextDecoder().decode(e.value)])).toEqual([['a.one', '2']]);
    expect(entries[0]?.storedAt).toBeInstanceOf(Date);
    expect(again.maxAgeMs).toBe(60_000);
    expect((await nats.jsm.streams.info(`KV_${bucket}`)).config.subjects).toEqual([`$KV.${bucket}.>`]);
  });

  it('creates a bucket that vanished (a NATS server started again without it) when it is next read or written', async () => {
    const bucket = `${namespace}_vanish`;
    buckets.push(bucket);
    const reader = await KvBucket.open(nats.connection, { bucket, maxAgeMs: 60_000 });
    const writer = await KvBucket.open(nats.connection, { bucket, maxAgeMs: 60_000 });
    await writer.put('k', new Uint8Array([1]));
    expect((await nats.jsm.streams.info(`KV_${bucket}`)).config.storage).toBe('file');

    await nats.jsm.streams.delete(`KV_${bucket}`);
    expect(await reader.entries()).toEqual([]);
    await nats.jsm.streams.delete(`KV_${bucket}`);
    await writer.put('k', new Uint8Array([2]));
    expect((await reader.entries()).map((e) => [e.key, [...e.value]])).toEqual([['k', [2]]]);
  });

  it('lets a value expire when it is not written again within the max age', async () => {
    const bucket = `${namespace}_ttl`;
    buckets.push(bucket);
    const kv = await KvBucket.open(nats.connection, { bucket, maxAgeMs: 500 });
    await kv.put('k', new Uint8Array([1]));
    expect(await kv.entries()).toHaveLength(1);

    await eventually(async () => (await kv.entries()).length === 0, {
      timeoutMs: 5_000,
      description: 'the entry to expire',
    });
  });

  it('finds an existing bucket for readers, and never creates one', async () => {
    expect(await KvBucket.find(nats.connection, `${namespace}_absent`)).toBeNull();
    await expect(nats.jsm.streams.info(`KV_${namespace}_absent`)).rejects.toThrow();
    const bucket = `${namespace}_found`;
    buckets.push(bucket);
    await KvBucket.open(nats.connection, { bucket, maxAgeMs: 2_000 });
    expect((await KvBucket.find(nats.connection, bucket))?.maxAgeMs).toBe(2_000);
  });

  it('rejects keys NATS KV cannot hold', async () => {
    const bucket = `${namespace}_keys`;
    buckets.push(bucket);
    const kv = await KvBucket.open(nats.connection, { bucket, maxAgeMs: 1_000 });
    await expect(kv.put('has space', new Uint8Array())).rejects.toMatchObject({ code: 'BUS.INVALID_OPTIONS' });
  });

  it('reads the critic registry: instances grouped by critic, unreadable entries reported', async () => {
    buckets.push(subjectsFor(namespace).criticsBucket);
    const kv = await openCriticHealthBucket(nats.connection, namespace, 10_000);
    await kv.put(criticHealthKey('examples/a', 'i-1'), encodeCriticHealthEntry(entry('examples/a', 'i-1', 10_000)));
    await kv.put(criticHealthKey('examples/a', 'i-2'), encodeCriticHealthEntry(entry('examples/a', 'i-2', 10_000)));
    await kv.put('garbage.x', new TextEncoder().encode('{"registration":1}'));

    const snapshot = await readCriticRegistry(kv);

    expect(kv.maxAgeMs).toBe(30_000);
    expect(snapshot.critics).toHaveLength(1);
    expect(snapshot.critics[0]).toMatchObject({ critic_id: 'examples/a', health: 'alive', evidence: 'pattern' });
    expect(snapshot.critics[0]?.instances.map((i) => i.instance_id)).toEqual(['i-1', 'i-2']);
    expect(snapshot.invalid).toEqual([
      {
        key: 'garbage.x',
        issues: expect.arrayContaining([expect.objectContaining({ path: 'registration' })]) as unknown,
      },
    ]);
  });
});
