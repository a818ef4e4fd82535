import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { JetStreamClient } from '@rloop/bus';
import type { JournaledEvent } from '@rloop/contracts';
import type { JournalClient } from '@rloop/journal-client';
import { type TestDatabase, eventually } from '@rloop/testing';
import { envelopeFactory } from '../testing/envelopes.test-helpers.js';
import { type JournalHarness, gating, runStart, startJournalHarness } from '../testing/journal-harness.test-helpers.js';

// journal.open_runs, the gate's input for scope locking, on the real journal (NATS + PostgreSQL):
// the runs that hold or wait for files, in the order their PlanSubmitted were journaled, with the
// scope of their LoopGated or LoopQueued, and whether a run submitted before one may still appear.

const envelope = envelopeFactory({ idPrefix: '01JSCOPE', producer: 'open-runs-spec' });
const { submitted } = runStart(envelope, { files: ['src/**'] });

let harness: JournalHarness;
let database: TestDatabase;
let client: JetStreamClient;
let journal: JournalClient;

const run = (n: number) => `01JSCOPERUN${String(n).padStart(15, '0')}`;

async function publishAll(events: readonly JournaledEvent[]): Promise<void> {
  for (const event of events) await client.publish(event);
}

async function openPlans(): Promise<string[]> {
  return (await journal.openRuns()).map((r) => r.plan);
}

beforeAll(async () => {
  harness = await startJournalHarness({ database: 'rloop_open_runs', namespace: 'jo', producer: 'open-runs-spec' });
  ({ database, client, journal } = harness);
}, 60_000);

afterAll(async () => {
  await harness?.stop();
}, 30_000);

describe('journal.open_runs: the scope lock as the journal has committed it', () => {
  it('lists the runs that hold or wait for files in admission order with their scope, and leaves out the ones that ended or wait for people', async () => {
    await publishAll([submitted('o-holder', run(1))]);
    await eventually(async () => ((await openPlans()).includes('o-holder') ? true : undefined), {
      description: 'o-holder journaled',
    });
    await publishAll([submitted('o-waiter', run(2))]);
    await eventually(async () => ((await openPlans()).includes('o-waiter') ? true : undefined), {
      description: 'o-waiter journaled',
    });
    await publishAll([submitted('o-ungated', run(3)), submitted('o-stopped', run(4))]);
    await publishAll([
      {
        ...envelope('LoopGated', 'o-holder', run(1), gating(['src/a.ts'])),
        decision: { expected_version: 1, id: 'd_scope_holder_01' },
      },
      {
        ...envelope('LoopQueued', 'o-waiter', run(2), {
          ...gating(['src/a.ts', 'src/b.ts']),
          waiting_for: [{ plan: 'o-holder', run_id: run(1), files: ['src/a.ts'] }],
        }),
        decision: { expected_version: 1, id: 'd_scope_waiter_01' },
      },
      envelope('LoopStopped', 'o-stopped', run(4), { by: 'spec' }),
    ]);
    const runs = await eventually(
      async () => {
        const listed = await journal.openRuns();
        return listed.length === 3 && listed.every((r) => r.settled) && listed[1]?.status === 'queued'
          ? listed
          : undefined;
      },
      { description: 'three settled open runs' },
    );
    expect(runs).toEqual([
      {
        plan: 'o-holder',
        run_id: run(1),
        status: 'awaiting_baseline',
        scope: { repo_path: '/r', files: ['src/a.ts'] },
        settled: true,
      },
      {
        plan: 'o-waiter',
        run_id: run(2),
        status: 'queued',
        scope: { repo_path: '/r', files: ['src/a.ts', 'src/b.ts'] },
        settled: true,
      },
      { plan: 'o-ungated', run_id: run(3), status: 'submitted', scope: null, settled: true },
    ]);
    expect((await journal.status('o-waiter'))[0]).toMatchObject({ status: 'queued', waiting_for: ['o-holder'] });
    // The holder ends: it no longer holds anything; the waiter is gated with the gating it was queued with.
    await publishAll([
      envelope('LoopStopped', 'o-holder', run(1), { by: 'spec' }),
      {
        ...envelope('LoopGated', 'o-waiter', run(2), gating(['src/a.ts', 'src/b.ts'])),
        decision: { expected_version: 2, id: 'd_scope_waiter_02' },
      },
    ]);
    await eventually(async () => ((await openPlans()).join() === 'o-waiter,o-ungated' ? true : undefined), {
      description: 'the holder released',
    });
    // The waiter's LoopGated may land in a later batch than the holder's stop.
    const waiter = await eventually(async () => (await journal.status('o-waiter')).find((s) => s.status !== 'queued'), {
      description: 'o-waiter gated',
    });
    expect(waiter).toMatchObject({ status: 'awaiting_baseline', waiting_for: [] });
  }, 60_000);

  it('says a run is not settled while a transaction older than its submission may still commit a run before it', async () => {
    // A transaction that began (and took an id) before the submission holds the read horizon back, as a journal batch still committing would.
    const older = new pg.Client({ connectionString: database.url });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      await publishAll([submitted('o-late', run(5))]);
      const pending = await eventually(async () => (await journal.openRuns()).find((r) => r.plan === 'o-late'), {
        description: 'o-late journaled',
      });
      expect(pending.settled).toBe(false);
      await older.query('COMMIT');
    } finally {
      await older.end();
    }
    await eventually(
      async () => ((await journal.openRuns()).find((r) => r.plan === 'o-late')?.settled === true ? true : undefined),
      { description: 'o-late settled' },
    );
  }, 60_000);
});
