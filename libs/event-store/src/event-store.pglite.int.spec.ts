// The functional suite against embedded PGlite (in memory), plus what only the on-disk mode has.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore, type EventStoreClient } from './index.js';
import { describeFunctionalSuite, newEvent } from './__fixtures__/functional-suite.js';

describeFunctionalSuite('PGlite', async () => {
  const store = await createEventStore({ inMemory: true });
  return { store, close: () => store.close() };
});

describe('event store on PGlite on disk', () => {
  let dir: string;
  let pgliteDir: string;
  let reopened: EventStoreClient | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rloop-es-'));
    pgliteDir = join(dir, 'journal');
  });
  afterAll(async () => {
    await reopened?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps its events across a close and a reopen of the same directory', async () => {
    const first = await createEventStore({ pgliteDir });
    const appended = await first.append('plan-a', [newEvent('e-1'), newEvent('e-2')], { expectedVersion: 'no_stream' });
    await first.close();

    reopened = await createEventStore({ pgliteDir });
    const read = await reopened.readStream('plan-a');
    expect(read.map((e) => [e.eventId, e.globalPosition])).toEqual(appended.events.map((e) => [e.eventId, e.globalPosition]));
    await expect(reopened.append('plan-a', [newEvent('e-3')], { expectedVersion: 'no_stream' })).rejects.toMatchObject({ actualVersion: 2 });
  });

  // PGlite only: a fresh PGlite database starts its transaction ids in the hundreds, so reaching
  // 1000 costs a few hundred empty transactions; on the shared PostgreSQL server the next power of
  // ten may be tens of thousands of transactions away.
  it('reads transaction ids across a power of ten (999 < 1000) in order', async () => {
    const store = reopened as EventStoreClient;
    const currentXid = async (): Promise<bigint> => {
      const { rows } = await sql<{ xid: string }>`SELECT pg_current_xact_id()::text AS xid`.execute(store.db);
      return BigInt(rows[0]?.xid ?? '0');
    };
    let xid = await currentXid();
    const power = 10n ** BigInt(xid.toString().length);
    expect(power - xid).toBeLessThan(2000n);
    while (xid < power - 2n) xid = await currentXid();

    const before = await store.append('plan-b', [newEvent('x-1')], { expectedVersion: 'any' });
    const after = await store.append('plan-c', [newEvent('x-2')], { expectedVersion: 'any' });
    expect([before.events[0]?.transactionId, after.events[0]?.transactionId]).toEqual([String(power - 1n), String(power)]);

    const page = await store.readAll({ after: { transactionId: String(power - 2n), globalPosition: '0' }, limit: 2 });
    expect(page.events.map((e) => e.eventId)).toEqual(['x-1', 'x-2']);
  });
});
