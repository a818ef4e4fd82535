// Several hosts on one machine: a private three-node JetStream cluster (R3 streams), two fleets
// with homes of their own (no shared disk: separate RLOOP_HOMEs, so separate repository caches and
// worktrees), and the plans' repositories served by `git daemon` on 127.0.0.1 and submitted by
// URL. Ten plans at once all end as they end alone, no step is decided twice, and a NATS node
// killed with -9 mid-round costs no round. `npm run test:multihost` (not part of `npm test`).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import type { JournaledEvent } from '@rloop/contracts';
import {
  type GitDaemon,
  type PrivateNatsCluster,
  type TestDatabase,
  createTestDatabase,
  eventually,
  startGitDaemon,
  startPrivateNatsCluster,
  uniqueNamespace,
} from '@rloop/testing';
import { type TestFleet, loopStory, samplePlan, startTestFleet } from './fleet.test-helpers.js';

const PLANS = 10;
/** The workers and deciders a second host runs; a namespace has one journal (it binds it) and one gate. */
const SECOND_HOST = ['panel', 'critic-runner', 'synthesizer', 'implementer'] as const;

let cluster: PrivateNatsCluster;
let database: TestDatabase;
let daemon: GitDaemon;
let served: string;
let hostA: TestFleet;
let hostB: TestFleet;

/** The gate takes repositories by URL from the git daemon on 127.0.0.1 (a hosting service here). */
const trustUrls = (trust: Record<string, unknown>): Record<string, unknown> => {
  const repositories = trust['repositories'] as Record<string, unknown>;
  return {
    ...trust,
    repositories: { ...repositories, url: { schemes: ['git'], hosts: ['127.0.0.1'], local_addresses: true } },
  };
};

/** A sample repository as a bare repository the daemon serves (a pushed-to repository has no checkout). */
async function servedRepo(name: string): Promise<string> {
  const work = await hostA.sampleRepo('fixable', name);
  execFileSync('git', ['clone', '-q', '--bare', work, join(served, `${name}.git`)]);
  // The working copy was on host A's disk only to make it; the fleet must never read it.
  await rm(work, { recursive: true, force: true });
  return daemon.urlOf(`${name}.git`);
}

const urlPlan = (slug: string, url: string): Record<string, unknown> => {
  const plan = samplePlan(slug, '/unused');
  return { ...plan, repo: { url, ref: 'main' } };
};

/** The decision ids of a run's events that appear more than once (a step decided twice). */
function duplicates(events: readonly JournaledEvent[]): string[] {
  const seen = new Map<string, number>();
  for (const e of events) seen.set(e.event_id, (seen.get(e.event_id) ?? 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  // The same step under two ids: two RoundStarted for one round, two fixes for one letter.
  const steps = events.flatMap((e) =>
    e.type === 'RoundStarted'
      ? [`round ${e.data.round}`]
      : e.type === 'FixApplied'
        ? [`fix ${e.data.letter_id}`]
        : e.type === 'LetterWritten'
          ? [`letter ${e.data.letter.round}`]
          : [],
  );
  return [...twice, ...steps.filter((step, i) => steps.indexOf(step) !== i)];
}

beforeAll(async () => {
  cluster = await startPrivateNatsCluster({ nodes: 3 });
  database = await createTestDatabase('rloop_e2e_multihost');
  served = await mkdtemp(join(tmpdir(), 'rloop-served-'));
  daemon = await startGitDaemon(served);
  const namespace = uniqueNamespace('mh');
  const env = { RLOOP_STREAM_REPLICAS: '3', RLOOP_ACK_WAIT_MS: '3000' };
  hostA = await startTestFleet({ natsUrl: cluster.url, database, namespace, env, trust: trustUrls });
  hostB = await startTestFleet({
    natsUrl: cluster.url,
    database,
    namespace,
    env,
    trust: trustUrls,
    services: [...SECOND_HOST],
  });
  expect(hostA.home).not.toBe(hostB.home);
}, 240_000);

afterAll(async () => {
  for (const node of cluster.nodes) if (!node.running) await node.restart().catch(() => undefined);
  // Host B first: its stop() leaves the namespace's streams and the database to host A's.
  await hostB.fleet.stop();
  await hostB.bus.close();
  await rm(hostB.home, { recursive: true, force: true });
  await hostA.stop();
  await daemon.stop();
  await cluster.stop();
  await rm(served, { recursive: true, force: true });
}, 240_000);

describe('two hosts without a shared disk, on a three-node NATS cluster', () => {
  it('takes ten plans given by URL at once to the end each reaches alone, pushes each result branch to its repository, and decides no step twice', async () => {
    const alone = await servedRepo('alone');
    const aloneReply = await hostA.submit(urlPlan('mh-alone', alone));
    if (aloneReply.status !== 'accepted') throw new Error(JSON.stringify(aloneReply));
    const reference = await hostA.outcome('mh-alone', aloneReply.event_id, 300_000);

    const slugs = Array.from({ length: PLANS }, (_, i) => `mh-plan-${i}`);
    const urls = await Promise.all(slugs.map((slug) => servedRepo(slug)));
    const replies = await Promise.all(slugs.map((slug, i) => hostA.submit(urlPlan(slug, urls[i] ?? ''))));
    const states = await Promise.all(
      replies.map((reply, i) => {
        if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
        return hostA.outcome(slugs[i] ?? '', reply.event_id, 600_000);
      }),
    );
    expect(states.map((s) => s.status)).toEqual(slugs.map(() => reference.status));
    for (const [i, slug] of slugs.entries()) {
      const events = (await hostA.bus.journal.events(slug)).entries.map((e) => e.event);
      expect({ slug, twice: duplicates(events) }).toEqual({ slug, twice: [] });
      // The result is on the plan's repository, where any host (and the user) finds it.
      const head = execFileSync('git', ['-C', join(served, `${slug}.git`), 'rev-parse', `refs/heads/rloop/${slug}`], {
        encoding: 'utf8',
      }).trim();
      expect({ slug, head }).toEqual({ slug, head: states[i]?.head });
    }
    // Both hosts did the work: each implementer's own cache holds copies of plans' repositories.
    const cached = (home: string): number =>
      Number(
        execFileSync('sh', ['-c', `ls -d ${join(home, 'implementer', 'repos')}/*.git 2>/dev/null | wc -l`], {
          encoding: 'utf8',
        }).trim(),
      );
    expect(cached(hostA.home) + cached(hostB.home)).toBeGreaterThan(0);
  }, 900_000);

  it('keeps loops going when a NATS node is killed with -9 mid-round, and loses no round', async () => {
    const url = await servedRepo('killed');
    const reply = await hostA.submit(urlPlan('mh-killed', url));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const events = async (): Promise<JournaledEvent[]> =>
      (await hostA.bus.journal.events('mh-killed')).entries.map((e) => e.event);
    await eventually(
      async () => ((await events()).some((e) => e.type === 'RoundStarted' && e.data.round === 2) ? true : undefined),
      { timeoutMs: 180_000, intervalMs: 20, description: 'round 2 of mh-killed' },
    );
    const jsm = await jetstreamManager(hostA.bus.connection);
    const leader = (await jsm.streams.info(hostA.bus.subjects.streams.events)).cluster?.leader;
    const node = cluster.nodes.find((n) => n.name === leader);
    if (node === undefined) throw new Error(`no node leads the events stream (${String(leader)})`);
    const killedAt = Date.now();
    await node.kill();
    // The loop goes on without the node: an event produced after the kill is journaled within 30 s.
    await eventually(
      async () =>
        (await events().catch(() => [])).some((e) => Date.parse(e.occurred_at) > killedAt) ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 100, description: 'an event of mh-killed produced after the kill' },
    );
    await node.restart();
    const state = await hostA.outcome('mh-killed', reply.event_id, 600_000);
    const all = await events();
    expect({ status: state.status, story: loopStory(all) }).toMatchObject({ status: 'converged' });
    // No round lost: no critic of any round timed out, and no round was decided twice.
    expect(
      all.filter((e) => e.type === 'CriticFailed' && e.data.reason === 'timed_out').map((e) => loopStory([e])),
    ).toEqual([]);
    expect(duplicates(all)).toEqual([]);
  }, 900_000);
});
