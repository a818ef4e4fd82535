// The bus on a private three-node JetStream cluster: RLOOP_STREAM_REPLICAS brings every stream and
// KV bucket of a namespace to that many copies (new and existing ones), and a service given the
// whole server list starts and works with its first or its last server down.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Inject, type DynamicModule } from '@nestjs/common';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { type EventOf, subjectsFor } from '@rloop/contracts';
import {
  type PrivateNatsCluster,
  TEST_NATS_URL,
  eventually,
  startPrivateNatsCluster,
  uniqueNamespace,
} from '@rloop/testing';
import { CapturedLog, FAST_CONSUMER } from './__fixtures__/harness.js';
import { loopStopped } from './__fixtures__/events.js';
import {
  BusConfigError,
  DEFAULT_STREAM_LIMITS,
  EVENT_PUBLISHER,
  type EventPublisher,
  KvBucket,
  OnEvent,
  type RunningService,
  openCriticHealthBucket,
  provisionStreams,
  startService,
} from './index.js';

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

/** Every stream and bucket stream of a namespace that exists, with its replica count. */
async function replicasOf(jsm: JetStreamManager, namespace: string): Promise<Record<string, number>> {
  const subjects = subjectsFor(namespace);
  const names = [
    ...Object.values(subjects.streams),
    ...[subjects.deliveriesBucket, subjects.criticsBucket].map((bucket) => `KV_${bucket}`),
  ];
  const found: Record<string, number> = {};
  for (const name of names) found[name] = (await jsm.streams.info(name)).config.num_replicas;
  return found;
}

describe('the bus on a three-node JetStream cluster', () => {
  let cluster: PrivateNatsCluster;
  let admin: NatsConnection;
  let jsm: JetStreamManager;
  const services: RunningService[] = [];
  const log = new CapturedLog();

  async function start(
    namespace: string,
    servers: readonly string[],
    seen: string[],
    replicas: number | null,
  ): Promise<RunningService> {
    const service = await startService({
      name: 'replicated',
      module: recorder(seen),
      bus: {
        servers,
        namespace,
        consumer: FAST_CONSUMER,
        shutdownTimeoutMs: 2_000,
        connect: { timeoutMs: 15_000 },
        streams: { replicas },
      },
      logger: log.logger('replicated'),
      handleSignals: false,
      exitOnFailure: false,
    });
    services.push(service);
    return service;
  }

  async function publishAndSee(service: RunningService, seen: string[], note: string): Promise<void> {
    const publisher = service.app.get<EventPublisher>(EVENT_PUBLISHER);
    await eventually(() => publisher.publish(loopStopped('plan-a', note)).then(() => true), {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: `${note} to be published`,
    });
    await eventually(() => seen.includes(note), { timeoutMs: 30_000, description: `${note} to be handled` });
  }

  beforeAll(async () => {
    cluster = await startPrivateNatsCluster({ nodes: 3 });
    admin = await connect({ servers: [...cluster.urls], maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    jsm = await jetstreamManager(admin);
  }, 60_000);

  afterAll(async () => {
    for (const service of services) await service.stop();
    await admin?.close();
    await cluster?.stop();
  }, 60_000);

  it('creates one copy when not told, and brings existing streams and buckets to RLOOP_STREAM_REPLICAS when told', async () => {
    const namespace = uniqueNamespace('rep');
    const seen: string[] = [];
    const unset = await start(namespace, cluster.urls, seen, null);
    await openCriticHealthBucket(admin, namespace);
    await publishAndSee(unset, seen, 'one copy');
    expect(Object.values(await replicasOf(jsm, namespace))).toEqual([1, 1, 1, 1, 1, 1]);
    await unset.stop();

    // The same namespace started again with three copies: every stream and bucket is scaled up in place.
    const three = await start(namespace, cluster.urls, seen, 3);
    await openCriticHealthBucket(admin, namespace, undefined, 3);
    expect(Object.values(await replicasOf(jsm, namespace))).toEqual([3, 3, 3, 3, 3, 3]);
    await publishAndSee(three, seen, 'three copies');
    // A process that was not told leaves the operator's choice alone.
    await provisionStreams(jsm, subjectsFor(namespace), DEFAULT_STREAM_LIMITS);
    await KvBucket.open(admin, { bucket: subjectsFor(namespace).deliveriesBucket, maxAgeMs: 60_000 });
    expect(Object.values(await replicasOf(jsm, namespace))).toEqual([3, 3, 3, 3, 3, 3]);
    const events = await jsm.streams.info(subjectsFor(namespace).streams.events);
    expect(events.cluster?.replicas).toHaveLength(2);
  }, 120_000);

  it('starts and works with the first, or the last, server of its list down', async () => {
    const [first, , last] = cluster.nodes;
    if (first === undefined || last === undefined) throw new Error('three nodes expected');
    for (const down of [first, last]) {
      const namespace = uniqueNamespace('down');
      const seen: string[] = [];
      // The fleet's streams exist (a fleet was running); then a node goes down and a service starts.
      await provisionStreams(jsm, subjectsFor(namespace), { ...DEFAULT_STREAM_LIMITS, replicas: 3 });
      await KvBucket.open(admin, { bucket: subjectsFor(namespace).deliveriesBucket, maxAgeMs: 60_000, replicas: 3 });
      await down.kill();
      await cluster.waitForMetaLeader();
      const service = await start(namespace, cluster.urls, seen, 3);
      await publishAndSee(service, seen, `with ${down.name} down`);
      await service.stop();
      await down.restart();
      await cluster.waitForMetaLeader();
    }
  }, 180_000);

  it('refuses more copies than a single server can hold, saying what the setting needs', async () => {
    const single = await connect({ servers: TEST_NATS_URL });
    try {
      const refused = provisionStreams(await jetstreamManager(single), subjectsFor(uniqueNamespace('one')), {
        ...DEFAULT_STREAM_LIMITS,
        replicas: 3,
      });
      await expect(refused).rejects.toBeInstanceOf(BusConfigError);
      await expect(refused).rejects.toThrow(/RLOOP_STREAM_REPLICAS=3 needs a JetStream cluster of at least 3 nodes/);
    } finally {
      await single.close();
    }
  });
});
