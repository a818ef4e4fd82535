// The private three-node cluster the failover tests stand on: it forms, holds an R3 stream, keeps
// taking writes through a surviving node when one is killed with -9, and takes the node back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { type PrivateNatsCluster, startPrivateNatsCluster } from './nats-server.js';
import { eventually } from './wait.js';

describe('startPrivateNatsCluster', () => {
  let cluster: PrivateNatsCluster;
  let connection: NatsConnection | undefined;

  beforeAll(async () => {
    cluster = await startPrivateNatsCluster({ nodes: 3 });
  }, 60_000);

  afterAll(async () => {
    await connection?.close();
    await cluster?.stop();
  }, 30_000);

  it('forms one JetStream cluster whose R3 stream survives losing its leader', async () => {
    expect(cluster.urls).toHaveLength(3);
    expect(new Set(cluster.urls).size).toBe(3);
    expect(cluster.url).toBe(cluster.urls.join(','));
    connection = await connect({ servers: [...cluster.urls], reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    const jsm = await jetstreamManager(connection);
    const created = await jsm.streams.add({ name: 'CLUSTER_PROBE', subjects: ['probe.>'], num_replicas: 3 });
    expect(created.config.num_replicas).toBe(3);
    const js = jetstream(connection);
    await js.publish('probe.a', 'one');

    const info = await jsm.streams.info('CLUSTER_PROBE');
    const leaderName = info.cluster?.leader;
    expect(cluster.nodes.map((node) => node.name)).toContain(leaderName);
    expect(info.cluster?.replicas).toHaveLength(2);
    const leader = cluster.nodes.find((node) => node.name === leaderName);
    if (leader === undefined) throw new Error(`no node named ${String(leaderName)}`);

    await leader.kill();
    expect(leader.running).toBe(false);
    // The client fails over to a live node and the two survivors elect a new stream leader.
    await eventually(() => js.publish('probe.a', 'two', { msgID: 'two' }).then(() => true), {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'a write after the stream leader was killed',
    });
    const after = await jsm.streams.info('CLUSTER_PROBE');
    expect(after.state.messages).toBe(2);
    expect(after.cluster?.leader).not.toBe(leaderName);

    await leader.restart();
    expect(leader.running).toBe(true);
    await cluster.waitForMetaLeader();
    await eventually(
      async () => {
        const replicas = (await jsm.streams.info('CLUSTER_PROBE')).cluster?.replicas ?? [];
        return replicas.length === 2 && replicas.every((replica) => replica.current) ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the restarted node to catch up as a current replica' },
    );
  }, 120_000);
});
