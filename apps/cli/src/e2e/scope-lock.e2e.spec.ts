import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { JournaledEvent } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { type TestFleet, rloopCli, samplePlan, startTestFleet } from './fleet.test-helpers.js';

// Scope locking through the real fleet: two plans on one repository whose files overlap never run
// at once; the later one is queued by the gate and started by it, without a person, once the
// journal has committed the end of the first — also across a restart of the gate.

let t: TestFleet;

beforeAll(async () => {
  t = await startTestFleet();
}, 120_000);

afterAll(async () => {
  await t?.stop();
}, 60_000);

interface Positioned {
  readonly event: JournaledEvent;
  /** The journal's global position: a decision taken after a commit it reacted to always sorts after it. */
  readonly at: bigint;
}

async function runEvents(plan: string): Promise<Positioned[]> {
  const { entries } = await t.bus.journal.events(plan);
  return entries.map((e) => ({ event: e.event, at: BigInt(e.global_position) }));
}

function first(events: readonly Positioned[], type: JournaledEvent['type']): Positioned {
  const found = events.find((e) => e.event.type === type);
  if (found === undefined) throw new Error(`no ${type} in ${events.map((e) => e.event.type).join(', ')}`);
  return found;
}

async function accepted(plan: Record<string, unknown>): Promise<string> {
  const reply = await t.submit(plan);
  if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
  return reply.event_id;
}

/** Waits until the journal shows the plan's run queued, waiting for exactly these plans. */
async function queuedFor(plan: string, holders: readonly string[]): Promise<void> {
  await eventually(
    async () => {
      const [status] = await t.bus.journal.status(plan);
      return status?.status === 'queued' && JSON.stringify(status.waiting_for) === JSON.stringify(holders)
        ? true
        : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100, description: `${plan} queued for ${holders.join(', ')}` },
  );
}

const quick = (slug: string, repo: string, files: readonly string[]) =>
  samplePlan(slug, repo, { title: `Quick fix: ${slug}`, files });

describe('scope locking on the real fleet', () => {
  it('queues a plan whose files overlap a running loop, shows it in `rloop status`, starts it when that loop converges; a plan on other files runs at once', async () => {
    const repo = await t.sampleRepo('fixable', 'shared');
    const holderRun = await accepted(samplePlan('sl-holder', repo));
    const waiterRun = await accepted(quick('sl-waiter', repo, ['src/money.ts']));
    const asideRun = await accepted(quick('sl-aside', repo, ['test/**']));
    await queuedFor('sl-waiter', ['sl-holder']);
    const status = await rloopCli(t, ['status', 'sl-waiter']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/sl-waiter\s+queued/);
    expect(status.stdout).toContain('waits for sl-holder');

    // The plan on other files of the same repository was never queued: it started while the holder still ran.
    expect((await t.outcome('sl-aside', asideRun)).status).toBe('bypassed');
    expect((await t.outcome('sl-holder', holderRun, 240_000)).status).toBe('converged');
    expect((await t.outcome('sl-waiter', waiterRun)).status).toBe('bypassed');

    const holder = await runEvents('sl-holder');
    const waiter = await runEvents('sl-waiter');
    const aside = await runEvents('sl-aside');
    expect(aside.map((e) => e.event.type)).not.toContain('LoopQueued');
    expect(first(aside, 'LoopGated').at).toBeLessThan(first(holder, 'LoopConverged').at);
    const queued = first(waiter, 'LoopQueued').event;
    expect(queued.type === 'LoopQueued' && queued.data.waiting_for).toEqual([
      { plan: 'sl-holder', run_id: holderRun, files: ['src/money.ts'] },
    ]);
    // Started by the gate after the journal committed the holder's end, with the gating it was queued with.
    const gated = first(waiter, 'LoopGated');
    expect(gated.at).toBeGreaterThan(first(holder, 'LoopConverged').at);
    expect(gated.event.type === 'LoopGated' && gated.event.data).toEqual(
      queued.type === 'LoopQueued' ? (({ waiting_for: _holders, ...gating }) => gating)(queued.data) : null,
    );
  }, 400_000);

  it('never deadlocks on a cycle of overlaps (A∩B, B∩C, C∩A), and keeps the queue across a restart of the gate', async () => {
    const repo = await t.sampleRepo('fixable', 'cycle');
    const a = await accepted(
      samplePlan('sl-cycle-a', repo, { files: ['src/money.ts', 'src/tax.js', 'src/billing/**'] }),
    );
    const b = await accepted(quick('sl-cycle-b', repo, ['src/tax.js', 'src/index.ts']));
    const c = await accepted(quick('sl-cycle-c', repo, ['src/index.ts', 'src/money.ts']));
    await queuedFor('sl-cycle-b', ['sl-cycle-a']);
    await queuedFor('sl-cycle-c', ['sl-cycle-a', 'sl-cycle-b']);

    // The deciding service goes away while both wait; the holder ends meanwhile.
    await t.fleet.kill('gate');
    expect((await t.outcome('sl-cycle-a', a, 240_000)).status).toBe('converged');
    const [bWhileDown] = await t.bus.journal.status('sl-cycle-b');
    expect(bWhileDown?.status).toBe('queued');
    await t.fleet.restart('gate');

    // The restarted gate takes the holder's committed end from its durable consumer: B runs, then C.
    expect((await t.outcome('sl-cycle-b', b)).status).toBe('bypassed');
    expect((await t.outcome('sl-cycle-c', c)).status).toBe('bypassed');
    const [aEvents, bEvents, cEvents] = await Promise.all(['sl-cycle-a', 'sl-cycle-b', 'sl-cycle-c'].map(runEvents));
    if (aEvents === undefined || bEvents === undefined || cEvents === undefined) throw new Error('missing events');
    const waits = cEvents.flatMap((e) =>
      e.event.type === 'LoopQueued' ? [e.event.data.waiting_for.map((h) => h.plan)] : [],
    );
    expect(waits).toEqual([['sl-cycle-a', 'sl-cycle-b'], ['sl-cycle-b']]);
    expect(first(bEvents, 'LoopGated').at).toBeGreaterThan(first(aEvents, 'LoopConverged').at);
    expect(first(cEvents, 'LoopGated').at).toBeGreaterThan(first(bEvents, 'LoopBypassed').at);
  }, 400_000);

  it('rejects an overlapping plan instead when the operator says so (scope_lock.on_overlap: reject)', async () => {
    const path = join(t.home, 'config', 'trust.yaml');
    const trust = parseYaml(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, toYaml({ ...trust, scope_lock: { on_overlap: 'reject' } }));
    await t.fleet.kill('gate');
    await t.fleet.restart('gate');
    const repo = await t.sampleRepo('fixable', 'rejecting');
    const holderRun = await accepted(samplePlan('sl-reject-holder', repo));
    const laterRun = await accepted(quick('sl-rejected', repo, ['src/money.ts']));
    const later = await t.outcome('sl-rejected', laterRun);
    expect(later.status).toBe('rejected');
    const rejected = first(await runEvents('sl-rejected'), 'PlanRejected').event;
    expect(rejected.type === 'PlanRejected' && rejected.data.errors).toEqual([
      {
        path: 'files',
        message: expect.stringContaining(
          'overlap loops still running on the same repository: sl-reject-holder (src/money.ts)',
        ) as unknown,
      },
    ]);
    const [holder] = await t.bus.journal.status('sl-reject-holder');
    expect(holder?.run_id).toBe(holderRun);
    await rloopCli(t, ['stop', 'sl-reject-holder']);
  }, 240_000);
});
