// The store's functional behaviour, run against both backends (PostgreSQL and PGlite) by the two
// *.int.spec.ts files that import it. Tests needing several connections at once live in
// concurrency.int.spec.ts (PostgreSQL only).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConflictError, ValidationError } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { sql } from 'kysely';
import {
  EventIdConflictError,
  VersionConflictError,
  migrateEventStore,
  type EventStoreClient,
  type EventStoreTransaction,
  type NewEvent,
  type StoredEvent,
} from '../index.js';
import { readAllEvents } from '../store-sql.js';

export interface OpenedStore {
  readonly store: EventStoreClient;
  close(): Promise<void>;
}

let counter = 0;
/** A stream or event id unique within the run. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function newEvent(eventId: string, data: unknown = { n: eventId }, type = 'Tested'): NewEvent {
  return {
    eventId,
    type,
    schemaVersion: 1,
    data,
    metadata: { occurred_at: '2026-01-01T00:00:00.000Z', producer: 'spec' },
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** A projection used by the subscription tests: per stream, how many events and the ids in order. */
async function createProjection(store: EventStoreClient, table: string): Promise<void> {
  await sql`CREATE TABLE ${sql.table(table)} (stream_id text PRIMARY KEY, events integer NOT NULL, ids text NOT NULL)`.execute(
    store.db,
  );
}

function projectInto(table: string) {
  return async (tx: EventStoreTransaction, events: readonly StoredEvent[]): Promise<void> => {
    for (const event of events) {
      await sql`
        INSERT INTO ${sql.table(table)} (stream_id, events, ids) VALUES (${event.streamId}, 1, ${event.eventId})
        ON CONFLICT (stream_id) DO UPDATE SET events = ${sql.table(table)}.events + 1, ids = ${sql.table(table)}.ids || ',' || EXCLUDED.ids`.execute(
        tx.db,
      );
    }
  };
}

async function projectionState(store: EventStoreClient, table: string): Promise<unknown[]> {
  const { rows } = await sql`SELECT stream_id, events, ids FROM ${sql.table(table)} ORDER BY stream_id`.execute(
    store.db,
  );
  return rows;
}

async function countEvents(store: EventStoreClient): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM events`.execute(store.db);
  return Number(rows[0]?.n);
}

/**
 * Waits until every committed event is below the visibility horizon. On the shared PostgreSQL
 * server any transaction with an id (another spec's, another database's) holds the horizon back
 * for a while; tests that compare what a reader saw with what is stored wait for this first.
 * Once visible, an event stays visible.
 */
export async function allVisible(store: EventStoreClient): Promise<void> {
  await eventually(
    async () => {
      const { rows } = await sql<{ hidden: string }>`
        SELECT count(*) FILTER (WHERE transaction_id >= pg_snapshot_xmin(pg_current_snapshot()))::text AS hidden FROM events`.execute(
        store.db,
      );
      return rows[0]?.hidden === '0';
    },
    { description: 'every committed event to be visible' },
  );
}

/** Reads the whole global order from the start, page by page. */
async function readEverything(store: EventStoreClient, limit = 3): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  let after = null;
  for (;;) {
    const page = await readAllEvents(store.db, after, limit);
    all.push(...page.events);
    if (page.events.length === 0) return all;
    after = page.checkpoint;
  }
}

export function describeFunctionalSuite(backend: string, open: () => Promise<OpenedStore>): void {
  describe(`event store on ${backend}`, () => {
    let opened: OpenedStore;
    let store: EventStoreClient;

    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    });
    afterAll(async () => {
      await opened.close();
    });

    describe('append and read', () => {
      it('appends to a new stream and reads it back with positions, data and metadata', async () => {
        const stream = uid('s');
        const result = await store.append(
          stream,
          [newEvent(`${stream}-a`, { x: 1 }), newEvent(`${stream}-b`, { y: [1, 2] })],
          { expectedVersion: 'no_stream' },
        );

        expect(result.streamId).toBe(stream);
        expect(result.version).toBe(2);
        expect(result.events.map((e) => [e.eventId, e.streamPosition, e.duplicate])).toEqual([
          [`${stream}-a`, 1, false],
          [`${stream}-b`, 2, false],
        ]);
        const [first, second] = result.events;
        expect(first?.globalPosition).toMatch(/^[1-9][0-9]*$/);
        expect(BigInt(second?.globalPosition ?? '0')).toBe(BigInt(first?.globalPosition ?? '0') + 1n);
        expect(first?.transactionId).toBe(second?.transactionId);

        const read = await store.readStream(stream);
        expect(read.map((e) => [e.eventId, e.streamPosition, e.type, e.schemaVersion, e.data])).toEqual([
          [`${stream}-a`, 1, 'Tested', 1, { x: 1 }],
          [`${stream}-b`, 2, 'Tested', 1, { y: [1, 2] }],
        ]);
        expect(read[0]?.metadata).toEqual({ occurred_at: '2026-01-01T00:00:00.000Z', producer: 'spec' });
        expect(read[0]?.globalPosition).toBe(first?.globalPosition);
        expect(Number.isNaN(Date.parse(read[0]?.recordedAt ?? ''))).toBe(false);
        expect(await store.streamVersion(stream)).toBe(2);
      });

      it('reads a stream from a position with a maximum count, and an unknown stream as empty at version 0', async () => {
        const stream = uid('s');
        await store.append(
          stream,
          ['1', '2', '3', '4'].map((n) => newEvent(`${stream}-${n}`)),
          { expectedVersion: 'any' },
        );

        const page = await store.readStream(stream, { fromPosition: 2, maxCount: 2 });
        expect(page.map((e) => e.streamPosition)).toEqual([2, 3]);
        expect(await store.readStream(uid('missing'))).toEqual([]);
        expect(await store.streamVersion(uid('missing'))).toBe(0);
      });

      it('refuses invalid input with a ValidationError naming every problem', async () => {
        const stream = uid('s');
        const error = await rejection(
          store.appendMany([
            { streamId: '', events: [], expectedVersion: 'any' },
            { streamId: stream, events: [newEvent('dup'), newEvent('dup')], expectedVersion: -1 },
            {
              streamId: uid('s'),
              events: [{ eventId: 'x', type: 'T', schemaVersion: 0, data: undefined }],
              expectedVersion: 'sometimes' as 'any',
            },
          ]),
        );
        expect(error).toBeInstanceOf(ValidationError);
        const issues = (error as ValidationError).issues.map((issue) => issue.path);
        expect((error as ValidationError).code).toBe('JOURNAL.INVALID_APPEND');
        expect(issues).toEqual(
          expect.arrayContaining([
            '[0]streamId',
            '[1]expectedVersion',
            '[1]events[1].eventId',
            '[2]expectedVersion',
            '[2]events[0].schemaVersion',
            '[2]events[0].data',
          ]),
        );
        expect(await store.streamVersion(stream)).toBe(0);
      });
    });

    describe('expected versions', () => {
      it('checks an exact version and reports stream, expected and actual on a conflict, writing nothing', async () => {
        const stream = uid('s');
        await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 0 });
        const ok = await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 1 });
        expect(ok.version).toBe(2);

        const error = await rejection(store.append(stream, [newEvent(uid('e'))], { expectedVersion: 1 }));
        expect(error).toBeInstanceOf(VersionConflictError);
        expect(error).toBeInstanceOf(ConflictError);
        expect(error).toMatchObject({
          code: 'JOURNAL.VERSION_CONFLICT',
          retryable: true,
          streamId: stream,
          expectedVersion: 1,
          actualVersion: 2,
        });
        expect((error as Error).message).toContain(stream);
        expect(await store.streamVersion(stream)).toBe(2);
      });

      it("treats 'no_stream', 'stream_exists' and 'any' as their names say", async () => {
        const stream = uid('s');
        await expect(
          store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'stream_exists' }),
        ).rejects.toMatchObject({ actualVersion: 0, expectedVersion: 'stream_exists' });
        await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'no_stream' });
        await expect(
          store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'no_stream' }),
        ).rejects.toMatchObject({ actualVersion: 1, code: 'JOURNAL.VERSION_CONFLICT' });
        await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'stream_exists' });
        const any = await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'any' });
        expect(any.version).toBe(3);
        const fresh = await store.append(uid('s'), [newEvent(uid('e'))], { expectedVersion: 'any' });
        expect(fresh.version).toBe(1);
      });

      it('checks an empty append like any other and writes nothing', async () => {
        const stream = uid('s');
        const empty = await store.append(stream, [], { expectedVersion: 'no_stream' });
        expect(empty).toEqual({ streamId: stream, version: 0, events: [] });
        await expect(store.append(stream, [], { expectedVersion: 3 })).rejects.toBeInstanceOf(VersionConflictError);
        expect(await store.streamVersion(stream)).toBe(0);
      });
    });

    describe('idempotency by event id', () => {
      it('returns the original positions for a retried committed batch and adds no rows, even with its stale expected version', async () => {
        const stream = uid('s');
        const batch = [newEvent(uid('e')), newEvent(uid('e'))];
        const first = await store.append(stream, batch, { expectedVersion: 'no_stream' });
        await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 2 });
        const rows = await countEvents(store);

        const retry = await store.append(stream, batch, { expectedVersion: 'no_stream' });

        expect(retry.events.map((e) => [e.eventId, e.streamPosition, e.globalPosition, e.transactionId])).toEqual(
          first.events.map((e) => [e.eventId, e.streamPosition, e.globalPosition, e.transactionId]),
        );
        expect(retry.events.every((e) => e.duplicate)).toBe(true);
        expect(retry.version).toBe(3);
        expect(await countEvents(store)).toBe(rows);
      });

      it('ignores metadata and key order when comparing content', async () => {
        const stream = uid('s');
        const id = uid('e');
        const original = await store.append(
          stream,
          [
            {
              eventId: id,
              type: 'T',
              schemaVersion: 2,
              data: { a: 1, b: { c: [1, 'x'] } },
              metadata: { producer: 'one' },
            },
          ],
          {
            expectedVersion: 'any',
          },
        );
        const again = await store.append(
          stream,
          [
            {
              eventId: id,
              type: 'T',
              schemaVersion: 2,
              data: { b: { c: [1, 'x'] }, a: 1 },
              metadata: { producer: 'two' },
            },
          ],
          {
            expectedVersion: 'any',
          },
        );
        expect(again.events[0]).toMatchObject({ duplicate: true, globalPosition: original.events[0]?.globalPosition });
      });

      it('refuses the same id with different content (type, schema version or data) as an EventIdConflictError', async () => {
        const stream = uid('s');
        const id = uid('e');
        await store.append(stream, [{ eventId: id, type: 'T', schemaVersion: 1, data: { a: 1 } }], {
          expectedVersion: 'any',
        });
        const variants: NewEvent[] = [
          { eventId: id, type: 'T', schemaVersion: 1, data: { a: 2 } },
          { eventId: id, type: 'U', schemaVersion: 1, data: { a: 1 } },
          { eventId: id, type: 'T', schemaVersion: 2, data: { a: 1 } },
        ];
        for (const variant of variants) {
          const error = await rejection(store.append(stream, [variant], { expectedVersion: 'any' }));
          expect(error).toBeInstanceOf(EventIdConflictError);
          expect(error).toBeInstanceOf(ConflictError);
          expect(error).toMatchObject({
            code: 'JOURNAL.EVENT_ID_CONFLICT',
            retryable: false,
            eventId: id,
            reason: 'content_differs',
            stored: { streamId: stream, streamPosition: 1 },
          });
        }
        expect(await store.streamVersion(stream)).toBe(1);
      });

      it('refuses an id already stored in another stream', async () => {
        const id = uid('e');
        const home = uid('s');
        await store.append(home, [newEvent(id)], { expectedVersion: 'any' });
        await expect(store.append(uid('s'), [newEvent(id)], { expectedVersion: 'any' })).rejects.toMatchObject({
          reason: 'other_stream',
          stored: { streamId: home },
        });
      });

      it("appends only the new events of a batch that mixes stored and new ones under 'any'", async () => {
        const stream = uid('s');
        const [a, b, c] = [newEvent(uid('e')), newEvent(uid('e')), newEvent(uid('e'))];
        await store.append(stream, [a], { expectedVersion: 'any' });
        const mixed = await store.append(stream, [a, b, c], { expectedVersion: 'any' });
        expect(mixed.events.map((e) => [e.streamPosition, e.duplicate])).toEqual([
          [1, true],
          [2, false],
          [3, false],
        ]);
        expect((await store.readStream(stream)).map((e) => e.eventId)).toEqual([a.eventId, b.eventId, c.eventId]);
      });
    });

    describe('appendMany', () => {
      it('appends to several streams in one transaction, results and global order following the input', async () => {
        const [s1, s2] = [uid('s'), uid('s')];
        const results = await store.appendMany([
          { streamId: s2, events: [newEvent(uid('e')), newEvent(uid('e'))], expectedVersion: 'no_stream' },
          { streamId: s1, events: [newEvent(uid('e'))], expectedVersion: 'any' },
        ]);
        expect(results.map((r) => [r.streamId, r.version])).toEqual([
          [s2, 2],
          [s1, 1],
        ]);
        const positions = results.flatMap((r) => r.events.map((e) => BigInt(e.globalPosition)));
        expect(positions).toEqual([...positions].sort((x, y) => (x < y ? -1 : 1)));
        expect(new Set(results.flatMap((r) => r.events.map((e) => e.transactionId))).size).toBe(1);
      });

      it('writes nothing when one stream of the batch conflicts', async () => {
        const [s1, s2] = [uid('s'), uid('s')];
        await store.append(s2, [newEvent(uid('e'))], { expectedVersion: 'any' });
        const rows = await countEvents(store);
        const error = await rejection(
          store.appendMany([
            { streamId: s1, events: [newEvent(uid('e'))], expectedVersion: 'no_stream' },
            { streamId: s2, events: [newEvent(uid('e'))], expectedVersion: 'no_stream' },
          ]),
        );
        expect(error).toMatchObject({ streamId: s2, actualVersion: 1 });
        expect(await countEvents(store)).toBe(rows);
        expect(await store.streamVersion(s1)).toBe(0);
      });

      it('refuses the same stream twice in one batch', async () => {
        const stream = uid('s');
        await expect(
          store.appendMany([
            { streamId: stream, events: [newEvent(uid('e'))], expectedVersion: 'any' },
            { streamId: stream, events: [newEvent(uid('e'))], expectedVersion: 'any' },
          ]),
        ).rejects.toMatchObject({ code: 'JOURNAL.INVALID_APPEND' });
      });
    });

    describe('transactions', () => {
      it("commits the caller's writes with the append, and rolls both back together", async () => {
        await sql`CREATE TABLE tx_side_effects (event_id text PRIMARY KEY)`.execute(store.db);
        const stream = uid('s');
        const id = uid('e');
        await store.transaction(async (tx) => {
          await tx.append(stream, [newEvent(id)], { expectedVersion: 'no_stream' });
          await sql`INSERT INTO tx_side_effects VALUES (${id})`.execute(tx.db);
          expect(await tx.streamVersion(stream)).toBe(1);
        });
        const failed = uid('e');
        await expect(
          store.transaction(async (tx) => {
            await tx.append(stream, [newEvent(failed)], { expectedVersion: 1 });
            await sql`INSERT INTO tx_side_effects VALUES (${failed})`.execute(tx.db);
            throw new Error('changed my mind');
          }),
        ).rejects.toThrow('changed my mind');
        const { rows } = await sql<{
          event_id: string;
        }>`SELECT event_id FROM tx_side_effects ORDER BY event_id`.execute(store.db);
        expect(rows.map((r) => r.event_id)).toEqual([id]);
        expect(await store.streamVersion(stream)).toBe(1);
      });
    });

    describe('the database refuses changes to history, even from the table owner', () => {
      it('refuses UPDATE, DELETE and TRUNCATE on events', async () => {
        const stream = uid('s');
        await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'any' });
        for (const statement of [
          sql`UPDATE events SET data = '{}'::jsonb WHERE stream_id = ${stream}`,
          sql`DELETE FROM events WHERE stream_id = ${stream}`,
          sql`DELETE FROM events WHERE false`,
          sql`TRUNCATE events`,
          sql`TRUNCATE streams CASCADE`,
        ]) {
          const error = await rejection(statement.execute(store.db));
          expect(error).toMatchObject({ code: '42501' });
          expect((error as Error).message).toMatch(/append-only/);
        }
        expect((await store.readStream(stream)).length).toBe(1);
      });

      it('refuses to delete a stream or move its version backwards', async () => {
        const stream = uid('s');
        await store.append(stream, [newEvent(uid('e')), newEvent(uid('e'))], { expectedVersion: 'any' });
        await expect(sql`DELETE FROM streams WHERE stream_id = ${stream}`.execute(store.db)).rejects.toMatchObject({
          code: '42501',
        });
        await expect(
          sql`UPDATE streams SET version = 1 WHERE stream_id = ${stream}`.execute(store.db),
        ).rejects.toMatchObject({ code: '42501' });
        expect(await store.streamVersion(stream)).toBe(2);
      });

      it('stamps the real transaction id on every row, whatever the writer supplies', async () => {
        const stream = uid('s');
        await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'any' });
        await sql`
          INSERT INTO events (stream_id, stream_position, event_id, type, schema_version, data, transaction_id)
          VALUES (${stream}, 2, ${uid('forged')}, 'T', 1, '{}'::jsonb, '1'::xid8)`.execute(store.db);
        const { rows } = await sql<{
          forged: boolean;
        }>`SELECT bool_or(transaction_id = '1'::xid8) AS forged FROM events WHERE stream_id = ${stream}`.execute(
          store.db,
        );
        expect(rows[0]?.forged).toBe(false);
      });
    });

    describe('the global read order', () => {
      it('pages through every event once, in order, with checkpoints as decimal strings', async () => {
        const stream = uid('s');
        await store.append(stream, [newEvent(uid('e')), newEvent(uid('e')), newEvent(uid('e'))], {
          expectedVersion: 'any',
        });
        await allVisible(store);
        const all = await readEverything(store, 4);
        expect(all.length).toBe(await countEvents(store));
        expect(new Set(all.map((e) => e.eventId)).size).toBe(all.length);
        const keys = all.map((e) => [BigInt(e.transactionId), BigInt(e.globalPosition)] as const);
        for (let i = 1; i < keys.length; i += 1) {
          const [prev, next] = [keys[i - 1], keys[i]] as [readonly [bigint, bigint], readonly [bigint, bigint]];
          expect(prev[0] < next[0] || (prev[0] === next[0] && prev[1] < next[1])).toBe(true);
        }
        const ofStream = all.filter((e) => e.streamId === stream).map((e) => e.streamPosition);
        expect(ofStream).toEqual([1, 2, 3]);

        const end = await readAllEvents(
          store.db,
          { transactionId: all.at(-1)?.transactionId ?? '0', globalPosition: all.at(-1)?.globalPosition ?? '0' },
          500,
        );
        expect(end.events).toEqual([]);
        expect(end.checkpoint).toEqual({
          transactionId: all.at(-1)?.transactionId,
          globalPosition: all.at(-1)?.globalPosition,
        });
      });
    });

    describe('numeric order, never text order', () => {
      it('reads stream positions past 9 in order', async () => {
        const stream = uid('s');
        await store.append(
          stream,
          Array.from({ length: 12 }, () => newEvent(uid('e'))),
          { expectedVersion: 'no_stream' },
        );
        expect((await store.readStream(stream)).map((e) => e.streamPosition)).toEqual([
          1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
        ]);
        expect((await store.readStream(stream, { fromPosition: 9, maxCount: 2 })).map((e) => e.streamPosition)).toEqual(
          [9, 10],
        );
      });

      it('reads global positions across a power of ten (999 < 1000) in order', async () => {
        await allVisible(store);
        const max = BigInt(
          (await readEverything(store, 500)).reduce(
            (top, e) => (BigInt(e.globalPosition) > BigInt(top) ? e.globalPosition : top),
            '0',
          ),
        );
        const power = 10n ** BigInt(max.toString().length);
        // Fill up to just below the power of ten, then append three events that straddle it.
        const filler = Number(power - max - 2n);
        if (filler > 0)
          await store.append(
            uid('s'),
            Array.from({ length: filler }, () => newEvent(uid('e'))),
            { expectedVersion: 'any' },
          );
        const straddling = await store.append(uid('s'), [newEvent(uid('e')), newEvent(uid('e')), newEvent(uid('e'))], {
          expectedVersion: 'any',
        });
        const [first] = straddling.events;
        expect(straddling.events.map((e) => BigInt(e.globalPosition))).toEqual([power - 1n, power, power + 1n]);

        const page = await readAllEvents(
          store.db,
          { transactionId: first?.transactionId ?? '0', globalPosition: String(power - 2n) },
          3,
        );
        expect(page.events.map((e) => e.eventId)).toEqual(straddling.events.map((e) => e.eventId));
      });
    });

    describe('subscriptions', () => {
      it('catches up from its stored checkpoint in batches, each committed with the handler work', async () => {
        const name = uid('sub');
        const table = `proj_${name.replaceAll('-', '_')}`;
        await createProjection(store, table);
        const seen: string[] = [];
        const handler = async (tx: EventStoreTransaction, events: readonly StoredEvent[]): Promise<void> => {
          seen.push(...events.map((e) => e.eventId));
          await projectInto(table)(tx, events);
        };
        await allVisible(store);
        const total = await countEvents(store);

        const first = await store.catchUp(name, handler, { batchSize: 4 });
        expect(first.processed).toBe(total);
        expect(first.batches).toBe(Math.ceil(total / 4));
        expect(await store.readCheckpoint(name)).toEqual(first.checkpoint);

        const stream = uid('s');
        await store.append(stream, [newEvent(uid('e')), newEvent(uid('e'))], { expectedVersion: 'any' });
        await allVisible(store);
        const second = await store.catchUp(name, handler, { batchSize: 4 });
        expect(second.processed).toBe(2);
        expect(seen.length).toBe(total + 2);
        expect(new Set(seen).size).toBe(seen.length);
        expect(await projectionState(store, table)).toContainEqual({
          stream_id: stream,
          events: 2,
          ids: (await store.readStream(stream)).map((e) => e.eventId).join(','),
        });

        const idle = await store.catchUp(name, handler);
        expect(idle).toEqual({ processed: 0, batches: 0, checkpoint: second.checkpoint });
      });

      it('ends in the same state when a projection is replayed three times (reset + catch up)', async () => {
        const name = uid('sub');
        const table = `proj_${name.replaceAll('-', '_')}`;
        await createProjection(store, table);
        const reset = async (tx: EventStoreTransaction): Promise<void> => {
          await sql`DELETE FROM ${sql.table(table)}`.execute(tx.db);
        };
        await allVisible(store);
        await store.catchUp(name, projectInto(table), { batchSize: 7 });
        const reference = await projectionState(store, table);
        const checkpoint = await store.readCheckpoint(name);
        expect(reference.length).toBeGreaterThan(0);

        for (let replay = 1; replay <= 3; replay += 1) {
          await store.resetSubscription(name, reset);
          expect(await store.readCheckpoint(name)).toBeNull();
          expect(await projectionState(store, table)).toEqual([]);
          await store.catchUp(name, projectInto(table), { batchSize: 5 + replay });
          expect(await projectionState(store, table)).toEqual(reference);
          expect(await store.readCheckpoint(name)).toEqual(checkpoint);
        }
      });

      it('ends in the same state as a clean run when the handler dies between its write and the checkpoint', async () => {
        const clean = uid('sub');
        const crashy = uid('sub');
        const [cleanTable, crashyTable] = [clean, crashy].map((name) => `proj_${name.replaceAll('-', '_')}`) as [
          string,
          string,
        ];
        await createProjection(store, cleanTable);
        await createProjection(store, crashyTable);
        await allVisible(store);
        await store.catchUp(clean, projectInto(cleanTable), { batchSize: 5 });

        let calls = 0;
        const dying = async (tx: EventStoreTransaction, events: readonly StoredEvent[]): Promise<void> => {
          calls += 1;
          await projectInto(crashyTable)(tx, events);
          if (calls === 2) throw new Error('killed after the projection write, before the checkpoint');
        };
        await expect(store.catchUp(crashy, dying, { batchSize: 5 })).rejects.toThrow(
          'killed after the projection write',
        );
        const afterCrash = await store.readCheckpoint(crashy);
        const { rows } = await sql<{
          n: string;
        }>`SELECT coalesce(sum(events), 0)::text AS n FROM ${sql.table(crashyTable)}`.execute(store.db);
        expect(Number(rows[0]?.n)).toBe(5); // only the first batch, with its checkpoint

        await store.catchUp(crashy, dying, { batchSize: 5 });
        expect(afterCrash).not.toBeNull();
        expect(await projectionState(store, crashyTable)).toEqual(await projectionState(store, cleanTable));
        expect(await store.readCheckpoint(crashy)).toEqual(await store.readCheckpoint(clean));
      });

      it('reports a commit to waitForCommit, and a timeout when nothing commits', async () => {
        await store.waitForCommit({ timeoutMs: 1 }); // connects the listener first (its result does not matter here)
        const waiting = store.waitForCommit({ timeoutMs: 60_000 });
        await store.append(uid('s'), [newEvent(uid('e'))], { expectedVersion: 'any' });
        expect(await waiting).toBe('committed');
        expect(await store.waitForCommit({ timeoutMs: 20 })).toBe('timeout');
      });
    });

    describe('migrations', () => {
      it('are recorded in the store’s own table and are idempotent', async () => {
        await migrateEventStore(store.db);
        const { rows } = await sql<{ name: string }>`SELECT name FROM rloop_store_migrations ORDER BY name`.execute(
          store.db,
        );
        expect(rows.map((r) => r.name)).toEqual(['0001_initial_schema']);
      });
    });
  });
}
