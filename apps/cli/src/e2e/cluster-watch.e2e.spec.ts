// A fleet on a private three-node JetStream cluster with three copies of every stream: the node a
// `rloop submit --watch` is connected to is killed with -9 in the middle of the loop; the watch
// fails over to another node, goes on from where it was, and ends when the loop ends.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { type PrivateNatsCluster, type PrivateNatsNode, eventually, startPrivateNatsCluster } from '@rloop/testing';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

const RLOOP = fileURLToPath(new URL('../../bin/rloop.js', import.meta.url));

let cluster: PrivateNatsCluster;
let t: TestFleet;

beforeAll(async () => {
  cluster = await startPrivateNatsCluster({ nodes: 3 });
  t = await startTestFleet({ natsUrl: cluster.url, env: { RLOOP_STREAM_REPLICAS: '3', RLOOP_ACK_WAIT_MS: '3000' } });
}, 180_000);

afterAll(async () => {
  for (const node of cluster?.nodes ?? []) if (!node.running) await node.restart().catch(() => undefined);
  await t?.stop();
  await cluster?.stop();
}, 120_000);

/** The node whose clients include a subscription to `subject` (what the watch listens on). */
async function nodeSubscribedTo(subject: string): Promise<PrivateNatsNode | undefined> {
  for (const node of cluster.nodes.filter((n) => n.running)) {
    const response = await fetch(`${node.monitorUrl}/connz?subs=1`);
    const body = (await response.json()) as { connections?: { subscriptions_list?: string[] }[] };
    if ((body.connections ?? []).some((c) => (c.subscriptions_list ?? []).includes(subject))) return node;
  }
  return undefined;
}

describe('rloop submit --watch on a three-node cluster', () => {
  it('fails over when the node it is connected to is killed mid-loop, resumes from where it was and ends with the loop', async () => {
    const slug = 'cw-failover';
    const planFile = join(t.home, `${slug}.yaml`);
    await writeFile(planFile, toYaml(samplePlan(slug, await t.sampleRepo('fixable', slug))));
    let stdout = '';
    let stderr = '';
    const child = spawn(process.execPath, [RLOOP, 'submit', planFile, '--watch', '--json'], {
      env: { ...process.env, NATS_URL: cluster.url, RLOOP_NAMESPACE: t.namespace, RLOOP_HOME: t.home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    // Mid-loop: the first round has started, and the watch is listening on some node.
    await eventually(() => stdout.includes('"type":"RoundStarted"'), {
      timeoutMs: 60_000,
      description: 'the watch to print the first RoundStarted',
    });
    const watched = await eventually(() => nodeSubscribedTo(t.bus.subjects.event('JournalCommitted', slug)), {
      timeoutMs: 10_000,
      description: 'the node the watch listens on',
    });
    const printedBefore = stdout.split('\n').filter((line) => line.startsWith('{"event_id"')).length;
    await watched.kill();

    const code = await exited;
    const events = stdout
      .split('\n')
      .filter((line) => line.startsWith('{"event_id"'))
      .map((line) => JSON.parse(line) as { event_id: string; type: string });
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    expect(events.length).toBeGreaterThan(printedBefore);
    expect(events.at(-1)?.type).toBe('LoopConverged');
    // From where it was: every event once, none skipped (the journal's committed run, in order).
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    const journal = (await t.bus.journal.events(slug)).entries.map((e) => e.event.event_id);
    expect(events.map((e) => e.event_id)).toEqual(journal.slice(0, events.length));
    expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({ plan: slug, outcome: 'converged' });
  }, 300_000);
});
