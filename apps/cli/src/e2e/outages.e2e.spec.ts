import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import {
  type PrivateNatsServer,
  type PrivatePostgresServer,
  eventually,
  startPrivateNatsServer,
  startPrivatePostgresServer,
} from '@rloop/testing';
import { type TestFleet, loopStory, samplePlan, startTestFleet } from './fleet.test-helpers.js';

// The infrastructure goes down: kill -9 the NATS server, then the journal's PostgreSQL, in the
// middle of a round, and start each again on its data. Every service reconnects on its own and
// waits the outage out, and the loop ends as an undisturbed run of the same plan does. (Servers of
// this spec's own: the shared ones must never go down.)

let nats: PrivateNatsServer;
let postgres: PrivatePostgresServer;
let t: TestFleet;

beforeAll(async () => {
  [nats, postgres] = await Promise.all([startPrivateNatsServer(), startPrivatePostgresServer()]);
  // Messages that were in flight when a server died come back after 3 s instead of minutes.
  t = await startTestFleet({
    natsUrl: nats.url,
    database: { name: 'postgres', url: postgres.url, drop: () => Promise.resolve() },
    env: { RLOOP_ACK_WAIT_MS: '3000' },
  });
}, 120_000);

afterAll(async () => {
  await nats?.restart().catch(() => undefined);
  await postgres?.restart().catch(() => undefined);
  await t?.stop();
  await Promise.all([nats?.stop(), postgres?.stop()]);
}, 60_000);

async function submitted(slug: string): Promise<string> {
  const reply = await t.submit(samplePlan(slug, await t.sampleRepo('fixable', slug)));
  if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
  return reply.event_id;
}

async function roundStarted(plan: string, round: number): Promise<void> {
  await eventually(
    async () =>
      (await eventsOf(plan)).some((e) => e.type === 'RoundStarted' && e.data.round === round) ? true : undefined,
    {
      timeoutMs: 60_000,
      intervalMs: 20,
      description: `round ${round} of ${plan} to start`,
    },
  );
}

async function eventsOf(plan: string): Promise<JournaledEvent[]> {
  return (await t.bus.journal.events(plan)).entries.map((e) => e.event);
}

describe('outages: NATS and PostgreSQL killed mid-round', () => {
  let reference: string[];

  beforeAll(async () => {
    const runId = await submitted('o-reference');
    expect((await t.outcome('o-reference', runId, 60_000)).status).toBe('converged');
    reference = loopStory(await eventsOf('o-reference'));
  }, 90_000);

  /** Runs the sample plan, takes a server down for a while when round 2 starts, and checks the loop ends like the reference. */
  async function outage(
    slug: string,
    server: PrivateNatsServer | PrivatePostgresServer,
    downMs: number,
  ): Promise<void> {
    const runId = await submitted(slug);
    await roundStarted(slug, 2);
    await server.kill();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await server.restart();

    // Generous: on a loaded machine the services' reconnect backoff and the retried work add up.
    const outcome = await t.outcome(slug, runId, 180_000);
    const events = await eventsOf(slug);
    // The story first: when the loop did not converge, it says why.
    expect(loopStory(events)).toEqual(reference);
    expect(outcome.status).toBe('converged');
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  }

  it('NATS: every service reconnects when it is back, and the loop ends like an undisturbed run', async () => {
    const linesBefore = t.lines.length;
    // Down long enough for every service to notice and for in-flight work to fail its publishes.
    await outage('o-nats', nats, 2_000);
    // Each service lost the bus, and no message was given up on.
    const during = t.lines.slice(linesBefore);
    for (const service of ['journal', 'gate', 'panel', 'critic-runner', 'synthesizer', 'implementer']) {
      expect({
        service,
        disconnected: during.some((line) => line.includes(`${service}: disconnected from NATS`)),
      }).toEqual({ service, disconnected: true });
    }
    expect(during.filter((line) => line.includes(': dead-lettered '))).toEqual([]);
  }, 300_000);

  it('PostgreSQL: the journal waits the outage out (nothing dead-lettered), and the loop ends like an undisturbed run', async () => {
    const linesBefore = t.lines.length;
    // Longer than the delivery attempts' backoff (1 + 2 + 4 + 8 s) would have lasted.
    await outage('o-postgres', postgres, 20_000);
    const during = t.lines.slice(linesBefore);
    expect(during.some((line) => /journal.*waits \(transient failure \d+, not an attempt/.test(line))).toBe(true);
    expect(during.filter((line) => line.includes(': dead-lettered '))).toEqual([]);
  }, 300_000);
});
