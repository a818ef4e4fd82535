// The console's committed feed across a NATS outage: announcements reach the pages, and after the
// connection comes back the pages are told to read again from the journal (what was announced
// while it was down is not replayed by a plain subscription).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type LoggerService } from '@nestjs/common';
import { JetStreamClient } from '@rloop/bus';
import { type PrivateNatsServer, eventually, startPrivateNatsServer, uniqueNamespace } from '@rloop/testing';
import { CommittedFeed } from './committed-feed.js';

const quiet: LoggerService = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('CommittedFeed across a NATS restart', () => {
  let nats: PrivateNatsServer;
  let client: JetStreamClient;
  let feed: CommittedFeed;

  beforeAll(async () => {
    nats = await startPrivateNatsServer();
    client = new JetStreamClient(
      {
        service: 'console',
        servers: nats.url,
        namespace: uniqueNamespace('feed'),
        connect: { timeoutMs: 5_000, backoff: { initialMs: 50, maxMs: 200 } },
      },
      quiet,
    );
    feed = new CommittedFeed(client);
    await feed.onModuleInit();
  }, 30_000);

  afterAll(async () => {
    feed?.onApplicationShutdown();
    await client?.close();
    await nats?.stop();
  }, 30_000);

  it('tells its listeners to read again from the journal after every reconnect, and stops telling one that left', async () => {
    let resyncs = 0;
    let left = 0;
    feed.onResync(() => (resyncs += 1));
    const leave = feed.onResync(() => (left += 1));
    expect(resyncs).toBe(0);

    await nats.kill();
    await nats.restart();
    await eventually(() => resyncs === 1, { timeoutMs: 20_000, description: 'a resync after the first reconnect' });
    expect(left).toBe(1);

    leave();
    await nats.kill();
    await nats.restart();
    await eventually(() => resyncs === 2, { timeoutMs: 20_000, description: 'a resync after the second reconnect' });
    expect(left).toBe(1);
  }, 60_000);
});
