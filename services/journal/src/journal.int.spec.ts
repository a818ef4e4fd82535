import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { JetStreamClient } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import type { JournalClient } from '@rloop/journal-client';
import { TEST_NATS_URL, type TestDatabase, type TestNats, eventually, uniqueNamespace } from '@rloop/testing';
import { envelopeFactory } from './testing/envelopes.test-helpers.js';
import { type JournalHarness, runStart, startJournalHarness } from './testing/journal-harness.test-helpers.js';

let harness: JournalHarness;
let database: TestDatabase;
let client: JetStreamClient;
let journal: JournalClient;
let nats: TestNats;

const envelope = envelopeFactory({ idPrefix: '01JTEST', producer: 'journal-spec' });
const run = runStart(envelope, { files: ['a.ts'] });
const submitted = run.submitted;
/** The gate's decision, made on the run's first version (its PlanSubmitted). */
const gated = (plan: string, runId: string): EventOf<'LoopGated'> => run.gated(plan, runId, `d_gated_${runId}`);

beforeAll(async () => {
  harness = await startJournalHarness({ database: 'rloop_journal', namespace: 'j', producer: 'journal-spec' });
  ({ database, client, journal, nats } = harness);
}, 60_000);

afterAll(async () => {
  await harness?.stop();
}, 30_000);

describe('the journal service', () => {
  it('appends events from the bus per plan in order, folds the loop state, then announces the commit', async () => {
    const runId = '01JRUNA0000000000000000001';
    await client.publish(submitted('plan-a', runId));
    await client.publish(gated('plan-a', runId));
    const committed = await eventually(
      async () => {
        const messages = await nats.messages(
          nats.subjects.streams.commits,
          nats.subjects.event('JournalCommitted', 'plan-a'),
        );
        const last = messages.at(-1)?.json() as EventOf<'JournalCommitted'> | undefined;
        return last !== undefined && last.data.stream_version >= 2 ? last : undefined;
      },
      { description: 'the announcement of plan-a at version 2' },
    );
    expect(committed.data.events.map((e) => e.type)).toContain('LoopGated');
    const { version, state } = await journal.loopState('plan-a');
    expect(version).toBe(2);
    expect(state).toMatchObject({ plan: 'plan-a', run_id: runId, status: 'awaiting_baseline', verdict: 'run' });
    const { entries } = await journal.events('plan-a');
    expect(entries.map((e) => [e.position, e.event.type])).toEqual([
      [1, 'PlanSubmitted'],
      [2, 'LoopGated'],
    ]);
  });

  it('adds nothing for an event it already has, even when the bus delivers it again under another message id', async () => {
    const runId = '01JRUNB0000000000000000001';
    const event = submitted('plan-b', runId);
    await client.publish(event);
    await eventually(async () => (await journal.loopState('plan-b')).version === 1);
    await nats.publishRaw(nats.subjects.event('PlanSubmitted', 'plan-b'), JSON.stringify(event), {
      msgId: 'another-message-id',
    });
    await client.publish(gated('plan-b', runId));
    await eventually(async () => (await journal.loopState('plan-b')).version === 2);
    const { entries } = await journal.events('plan-b', { scope: 'all' });
    expect(entries.map((e) => e.event.type)).toEqual(['PlanSubmitted', 'LoopGated']);
  });

  it('dead-letters an event whose id is stored with other content, and journals the rest of its batch', async () => {
    const runId = '01JRUNC0000000000000000001';
    const original = submitted('plan-c', runId);
    await client.publish(original);
    await eventually(async () => (await journal.loopState('plan-c')).version === 1);
    const forged = { ...original, data: { ...original.data, plan: { ...original.data.plan, title: 'forged' } } };
    await nats.publishRaw(nats.subjects.event('PlanSubmitted', 'plan-c'), JSON.stringify(forged), {
      msgId: 'forged-copy',
    });
    await client.publish(gated('plan-c', runId));
    await eventually(async () => (await journal.loopState('plan-c')).version === 2, {
      description: 'the LoopGated after the forged copy',
    });
    const letter = await eventually(async () =>
      (await nats.deadLetters()).find((d) => d.subject === nats.subjects.event('PlanSubmitted', 'plan-c')),
    );
    expect(letter).toMatchObject({
      reason: 'handler_rejected',
      code: 'JOURNAL.EVENT_ID_CONFLICT',
      consumer: expect.stringContaining('journal-ingest'),
    });
    const { entries } = await journal.events('plan-c', { scope: 'all' });
    expect(entries.map((e) => (e.event.type === 'PlanSubmitted' ? e.event.data.plan.title : e.event.type))).toEqual([
      'T',
      'LoopGated',
    ]);
  });

  it('answers queries: status, a missing letter as a typed error, a malformed query as a validation error', async () => {
    const plans = await journal.status();
    expect(plans.map((p) => p.plan)).toEqual(expect.arrayContaining(['plan-a', 'plan-b', 'plan-c']));
    await expect(journal.letter('d_no_such_letter_000')).rejects.toMatchObject({ code: 'JOURNAL.NOT_FOUND' });
    await expect(client.request('journal.loop_state', { plan: 'Not A Slug' })).rejects.toMatchObject({
      code: 'JOURNAL.INVALID_QUERY',
    });
    expect(await journal.hasEvent('01JRUNA0000000000000000001')).toMatchObject({ found: true, plan: 'plan-a' });
  });

  it('rebuilds its projections from zero into the same state', async () => {
    const before = await Promise.all(['plan-a', 'plan-b', 'plan-c'].map((p) => journal.loopState(p)));
    const rebuilt = await journal.rebuild();
    expect(rebuilt[0]?.events).toBeGreaterThanOrEqual(6);
    const after = await Promise.all(['plan-a', 'plan-b', 'plan-c'].map((p) => journal.loopState(p)));
    expect(after).toEqual(before);
  });
});

describe('the journal process at start', () => {
  const entry = fileURLToPath(new URL('../dist/main.js', import.meta.url));

  function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [entry], {
        env: { ...process.env, RLOOP_NAMESPACE: uniqueNamespace('js'), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (code) => resolve({ code, output }));
    });
  }

  it('exits with one line naming host and database when DATABASE_URL cannot connect', async () => {
    const { code, output } = await run({
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: 'postgres://rloop:secret-password@127.0.0.1:5999/nowhere',
    });
    expect(code).toBe(1);
    expect(output).toMatch(/127\.0\.0\.1:5999/);
    expect(output).toContain('nowhere');
    expect(output).not.toContain('secret-password');
  }, 30_000);

  it('retries an unreachable NATS with a clear line per attempt, then exits non-zero', async () => {
    const { code, output } = await run({
      NATS_URL: 'nats://127.0.0.1:4299',
      DATABASE_URL: database.url,
      RLOOP_NATS_CONNECT_TIMEOUT_MS: '1500',
    });
    expect(code).toBe(1);
    expect(output).toMatch(/NATS at nats:\/\/127\.0\.0\.1:4299 unreachable/);
    expect(output).toMatch(/journal: failed to start: BUS\.CONNECT_FAILED/);
  }, 30_000);
});
