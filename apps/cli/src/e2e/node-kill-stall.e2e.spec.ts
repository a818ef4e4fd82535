// Measures what killing a NATS node costs a loop, with one copy of every stream (R1) and with three
// (R3): on a private three-node cluster, the node that leads the events stream is killed with -9
// when round 2 starts and started again 30 s later; the stall is the time from the kill to the
// first event of the loop produced after it that the journal committed. Prints the figures (no
// timed assertion: they are a measurement; docs/scaling.md quotes them). `npm run bench:node-kill`.
import { afterEach, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import type { JournaledEvent } from '@rloop/contracts';
import { type PrivateNatsCluster, eventually, startPrivateNatsCluster } from '@rloop/testing';
import { type TestFleet, loopStory, samplePlan, startTestFleet } from './fleet.test-helpers.js';

const DOWN_MS = 30_000;
let cluster: PrivateNatsCluster | undefined;
let t: TestFleet | undefined;

afterEach(async () => {
  for (const node of cluster?.nodes ?? []) if (!node.running) await node.restart().catch(() => undefined);
  await t?.stop();
  await cluster?.stop();
  t = undefined;
  cluster = undefined;
}, 120_000);

async function measure(replicas: 1 | 3): Promise<{ stallMs: number; rounds: number; story: string[] }> {
  cluster = await startPrivateNatsCluster({ nodes: 3 });
  t = await startTestFleet({
    natsUrl: cluster.url,
    env: { RLOOP_STREAM_REPLICAS: String(replicas), RLOOP_ACK_WAIT_MS: '3000' },
  });
  const fleet = t;
  const slug = `stall-r${replicas}`;
  const reply = await fleet.submit(samplePlan(slug, await fleet.sampleRepo('fixable', slug)));
  if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
  const events = async (): Promise<JournaledEvent[]> =>
    (await fleet.bus.journal.events(slug)).entries.map((e) => e.event);
  await eventually(
    async () => ((await events()).some((e) => e.type === 'RoundStarted' && e.data.round === 2) ? true : undefined),
    { timeoutMs: 120_000, intervalMs: 20, description: 'round 2' },
  );
  const jsm = await jetstreamManager(fleet.bus.connection);
  const leader = (await jsm.streams.info(fleet.bus.subjects.streams.events)).cluster?.leader;
  const node = cluster.nodes.find((n) => n.name === leader);
  if (node === undefined) throw new Error(`no node leads the events stream (${String(leader)})`);
  const killedAt = Date.now();
  await node.kill();
  const restart = new Promise<void>((resolve, reject) =>
    setTimeout(() => void node.restart().then(resolve, reject), DOWN_MS),
  );
  const firstAfter = await eventually(
    async () => {
      const after = (await events().catch(() => [])).find((e) => Date.parse(e.occurred_at) > killedAt);
      return after === undefined ? undefined : Date.now();
    },
    { timeoutMs: 600_000, intervalMs: 50, description: 'an event produced after the kill' },
  );
  await restart;
  const outcome = await fleet.outcome(slug, reply.event_id, 600_000);
  expect(outcome.status).toBe('converged');
  const all = await events();
  return {
    stallMs: firstAfter - killedAt,
    rounds: all.filter((e) => e.type === 'RoundStarted').length,
    story: loopStory(all),
  };
}

describe('node-kill stall, R1 against R3', () => {
  const figures: Record<string, unknown> = {};

  it('R3: the loop goes on while the node is down', async () => {
    const r3 = await measure(3);
    figures['R3'] = { stall_s: r3.stallMs / 1000, rounds: r3.rounds };
    process.stdout.write(
      `node-kill stall R3: ${(r3.stallMs / 1000).toFixed(1)} s (rounds ${r3.rounds})\n${r3.story.join('\n')}\n`,
    );
  }, 900_000);

  it('R1: the loop waits for the node that held its streams', async () => {
    const r1 = await measure(1);
    figures['R1'] = { stall_s: r1.stallMs / 1000, rounds: r1.rounds, node_down_s: DOWN_MS / 1000 };
    process.stdout.write(
      `node-kill stall R1: ${(r1.stallMs / 1000).toFixed(1)} s with the node down ${DOWN_MS / 1000} s (rounds ${r1.rounds})\n${r1.story.join('\n')}\n`,
    );
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  }, 900_000);
});
