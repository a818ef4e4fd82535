// The functional suite against embedded PGlite (in memory), plus what only PGlite has: the
// on-disk mode and a fresh database's small transaction ids.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore, type EventStoreClient } from './index.js';
import { describeFunctionalSuite, newEvent } from './__fixtures__/functional-suite.js';
import { readAllEvents } from './store-sql.js';

describeFunctionalSuite('PGlite', async () => {
  const store = await createEventStore({ inMemory: true });
  return { store, close: () => store.close() };
});

describe('what only PGlite has', () => {
  let dir: string;
  const open: EventStoreClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rloop-es-'));
  });
  afterAll(async () => {
    await Promise.all(open.map((store) => store.close()));
    await rm(dir, { recursive: true, force: true });
  });

  // Two cold starts of the WebAssembly build plus an initdb on disk: about 3 s on an idle 2-core
  // machine, but past 30 s was seen in a full parallel run with end-to-end fleets on both cores.
  it('keeps its events across a close and a reopen of the same directory', async () => {
    const pgliteDir = join(dir, 'journal');
    const first = await createEventStore({ pgliteDir });
    const appended = await first.append('plan-a', [newEvent('e-1'), newEvent('e-2')], { expectedVersion: 'no_stream' });
    await first.close();

    const reopened = await createEventStore({ pgliteDir });
    open.push(reopened);
    const read = await reopened.readStream('plan-a');
    expect(read.map((e) => [e.eventId, e.globalPosition])).toEqual(
      appended.events.map((e) => [e.eventId, e.globalPosition]),
    );
    await expect(reopened.append('plan-a', [newEvent('e-3')], { expectedVersion: 'no_stream' })).rejects.toMatchObject({
      actualVersion: 2,
    });
  }, 120_000);

  // PGlite only: a fresh PGlite database starts its transaction ids in the hundreds, so reaching
  // 1000 costs a few hundred empty transactions; on the shared PostgreSQL server the next power of
  // ten may be tens of thousands of transactions away.
  it('reads transaction ids across a power of ten (999 < 1000) in order', async () => {
    const store = await createEventStore({ inMemory: true });
    open.push(store);
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
    expect([before.events[0]?.transactionId, after.events[0]?.transactionId]).toEqual([
      String(power - 1n),
      String(power),
    ]);

    const page = await readAllEvents(store.db, { transactionId: String(power - 2n), globalPosition: '0' }, 2);
    expect(page.events.map((e) => e.eventId)).toEqual(['x-1', 'x-2']);
  }, 120_000);
});
