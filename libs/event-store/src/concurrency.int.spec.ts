// What needs several connections at once, so PostgreSQL only: PGlite is a single connection whose
// transactions the store serialises, so none of these interleavings can happen there (and none
// can be driven). Writers below are explicit transactions on their own pg connections, committed
// or rolled back in the order each test chooses.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { sql } from 'kysely';
import { createTestDatabase, eventually, type TestDatabase } from '@rloop/testing';
import { ValidationError } from '@rloop/contracts';
import {
  StoreUnavailableError,
  TransactionConflictError,
  VersionConflictError,
  createEventStore,
  type EventStoreClient,
  type EventStoreTransaction,
  type StoredEvent,
} from './index.js';
import { allVisible, newEvent, uid } from './__fixtures__/functional-suite.js';

let database: TestDatabase;
let store: EventStoreClient;
const clients: pg.Client[] = [];
const backgroundErrors: unknown[] = [];

beforeAll(async () => {
  database = await createTestDatabase('rloop_es_conc');
  store = await createEventStore({
    databaseUrl: database.url,
    onBackgroundError: (error) => backgroundErrors.push(error),
  });
});

afterAll(async () => {
  for (const client of clients) await client.end().catch(() => undefined); // a test may already have ended it
  await store.close();
  await database.drop();
});

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  clients.push(client);
  return client;
}

/** A writer transaction on its own connection, appending with the same SQL as the store. */
class Writer {
  private constructor(private readonly client: pg.Client) {}

  static async begin(): Promise<Writer> {
    const writer = new Writer(await connect());
    await writer.client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    return writer;
  }

  /** Takes the transaction's id now (before it inserts anything). */
  async xid(): Promise<bigint> {
    const { rows } = await this.client.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid');
    return BigInt(rows[0]?.xid ?? '0');
  }

  /** Locks the stream, moves its version and inserts the events: the store's append, step by step. */
  async append(streamId: string, eventIds: readonly string[]): Promise<bigint[]> {
    await this.client.query(
      'INSERT INTO streams (stream_id, version) VALUES ($1, 0) ON CONFLICT (stream_id) DO UPDATE SET version = streams.version WHERE false',
      [streamId],
    );
    const { rows } = await this.client.query<{ version: string }>(
      'SELECT version::text AS version FROM streams WHERE stream_id = $1',
      [streamId],
    );
    const version = Number(rows[0]?.version);
    await this.client.query('UPDATE streams SET version = $2 WHERE stream_id = $1', [
      streamId,
      version + eventIds.length,
    ]);
    const positions: bigint[] = [];
    for (const [index, eventId] of eventIds.entries()) {
      const inserted = await this.client.query<{ position: string }>(
        `INSERT INTO events (stream_id, stream_position, event_id, type, schema_version, data)
         VALUES ($1, $2, $3, 'Raced', 1, '{}'::jsonb) RETURNING global_position::text AS position`,
        [streamId, version + index + 1, eventId],
      );
      positions.push(BigInt(inserted.rows[0]?.position ?? '0'));
    }
    return positions;
  }

  commit(): Promise<unknown> {
    return this.client.query('COMMIT');
  }

  rollback(): Promise<unknown> {
    return this.client.query('ROLLBACK');
  }
}

/** A subscriber that records what it is given; it starts at the current end so a test sees only its own events. */
async function subscriber(): Promise<{
  name: string;
  seen: StoredEvent[];
  catchUp(): Promise<number>;
  drain(count: number): Promise<void>;
}> {
  const name = uid('sub');
  const seen: StoredEvent[] = [];
  const handler = (_tx: EventStoreTransaction, events: readonly StoredEvent[]): Promise<void> => {
    seen.push(...events);
    return Promise.resolve();
  };
  await allVisible(store);
  await store.catchUp(name, handler);
  seen.length = 0;
  const catchUp = async (): Promise<number> => (await store.catchUp(name, handler, { batchSize: 2 })).processed;
  return {
    name,
    seen,
    catchUp,
    // Catches up until `count` events were seen: a transaction elsewhere on the shared server (any
    // spec's, any database's) can hold the visibility horizon back for a moment after our commit.
    drain: async (count) => {
      await eventually(async () => (await catchUp(), seen.length >= count), { description: `${count} events` });
    },
  };
}

/** Every committed event of these streams, in the global read order. */
async function committed(streams: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ event_id: string }>`
    SELECT event_id FROM events WHERE stream_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(streams)}::jsonb))
    ORDER BY transaction_id, global_position`.execute(store.db);
  return rows.map((row) => row.event_id);
}

async function maxPosition(): Promise<bigint> {
  const { rows } = await sql<{
    max: string;
  }>`SELECT coalesce(max(global_position), 0)::text AS max FROM events`.execute(store.db);
  return BigInt(rows[0]?.max ?? '0');
}

function ids(events: readonly StoredEvent[]): string[] {
  return events.map((event) => event.eventId);
}

describe('optimistic concurrency under real contention', () => {
  it('lets exactly 1 of 16 concurrent appends at one expected version win, leaving no hole in global positions', async () => {
    const stream = uid('s');
    await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'no_stream' });
    const before = await maxPosition();

    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, () => store.append(stream, [newEvent(uid('e'))], { expectedVersion: 1 })),
    );

    const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const losers = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(15);
    for (const loser of losers) {
      expect(loser).toBeInstanceOf(VersionConflictError);
      expect(loser).toMatchObject({ streamId: stream, expectedVersion: 1, actualVersion: 2, retryable: true });
    }
    const next = await store.append(stream, [newEvent(uid('e'))], { expectedVersion: 2 });
    // The losers took no sequence value: the winner got before+1 and the next append before+2.
    expect(BigInt(winners[0]?.value.events[0]?.globalPosition ?? '0')).toBe(before + 1n);
    expect(BigInt(next.events[0]?.globalPosition ?? '0')).toBe(before + 2n);
  });

  it("lets exactly 1 of 16 concurrent 'no_stream' appends create a stream, also without a hole", async () => {
    const stream = uid('s');
    const before = await maxPosition();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, () => store.append(stream, [newEvent(uid('e'))], { expectedVersion: 'no_stream' })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(
      outcomes.filter((outcome) => outcome.status === 'rejected' && outcome.reason instanceof VersionConflictError),
    ).toHaveLength(15);
    const next = await store.append(uid('s'), [newEvent(uid('e'))], { expectedVersion: 'no_stream' });
    expect(BigInt(next.events[0]?.globalPosition ?? '0')).toBe(before + 2n);
  });

  it('turns 8 concurrent appends of the same events into one stored copy and the same positions for all', async () => {
    const stream = uid('s');
    const batch = [newEvent(uid('e')), newEvent(uid('e'))];
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.append(stream, batch, { expectedVersion: 'no_stream' })),
    );
    const positions = results.map((result) => result.events.map((event) => event.globalPosition).join(','));
    expect(new Set(positions).size).toBe(1);
    expect(results.filter((result) => result.events.every((event) => !event.duplicate))).toHaveLength(1);
    expect((await store.readStream(stream)).length).toBe(2);
  });

  it('never deadlocks batches that touch the same streams in different orders', async () => {
    const streams = [uid('s'), uid('s'), uid('s'), uid('s')];
    const rotations = Array.from({ length: 8 }, (_, shift) =>
      [...streams.slice(shift % 4), ...streams.slice(0, shift % 4)].reverse(),
    );
    await Promise.all(
      rotations.map((order) =>
        store.appendMany(
          order.map((streamId) => ({ streamId, events: [newEvent(uid('e'))], expectedVersion: 'any' as const })),
        ),
      ),
    );
    for (const stream of streams) expect(await store.streamVersion(stream)).toBe(8);
  });

  it('resolves the same event id appended concurrently to another stream: unique violation, re-check, typed conflict', async () => {
    const id = uid('e');
    const [home, other] = [uid('s'), uid('s')];
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let appended = (): void => undefined;
    const holding = new Promise<void>((resolve) => (appended = resolve));
    const holder = store.transaction(async (tx) => {
      await tx.append(home, [newEvent(id)], { expectedVersion: 'any' });
      appended();
      await gate;
    });
    await holding;

    const contender = store.append(other, [newEvent(id)], { expectedVersion: 'any' });
    const insideTransaction = store.transaction((tx) =>
      tx.append(uid('s'), [newEvent(id)], { expectedVersion: 'any' }),
    );
    // Both wait on the unique index entry of the uncommitted event.
    await eventually(
      async () => {
        const { rows } = await sql<{ n: string }>`
          SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(
          store.db,
        );
        return Number(rows[0]?.n) >= 2;
      },
      { description: 'both appends to wait for the first transaction' },
    );
    release();
    await holder;

    await expect(contender).rejects.toMatchObject({
      code: 'JOURNAL.EVENT_ID_CONFLICT',
      reason: 'other_stream',
      stored: { streamId: home, streamPosition: 1 },
    });
    // In the caller's transaction the store cannot re-check (the transaction is aborted): a retryable error says "run it again".
    const error = await insideTransaction.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(TransactionConflictError);
    expect(error).toMatchObject({ code: 'JOURNAL.TRANSACTION_CONFLICT', retryable: true, sqlState: '23505' });
    expect(await store.streamVersion(other)).toBe(0);
  });
});

describe('the global read order under gap races: the subscriber sees every committed event once, in order', () => {
  it('(a) a later transaction commits first while an older one holds a later-numbered event', async () => {
    const sub = await subscriber();
    const [sa, sb] = [uid('s'), uid('s')];
    const older = await Writer.begin();
    await older.xid();
    const newer = await Writer.begin();
    const [bPosition] = await newer.append(sb, ['a-b1']);
    const [aPosition] = await older.append(sa, ['a-a1']);
    expect(aPosition).toBeGreaterThan(bPosition ?? 0n); // the older transaction holds the later number

    await newer.commit();
    expect(await sub.catchUp()).toBe(0); // b1 is committed but its transaction is newer than an open one
    await older.commit();
    await sub.drain(2);

    expect(ids(sub.seen)).toEqual(['a-a1', 'a-b1']);
    expect(ids(sub.seen)).toEqual(await committed([sa, sb]));
  });

  it('(b) an early transaction commits last (the one a position-ordered reader would skip)', async () => {
    const sub = await subscriber();
    const streams = [uid('s'), uid('s'), uid('s')] as const;
    const writers = [await Writer.begin(), await Writer.begin(), await Writer.begin()] as const;
    const [first] = await writers[0].append(streams[0], ['b-1']);
    await writers[1].append(streams[1], ['b-2']);
    await writers[2].append(streams[2], ['b-3']);

    await writers[2].commit();
    expect(await sub.catchUp()).toBe(0);
    await writers[1].commit();
    expect(await sub.catchUp()).toBe(0);
    // The hazard is real: by position alone, a reader now sees 2 and 3 and would checkpoint past 1.
    const { rows } = await sql<{ position: string }>`
      SELECT global_position::text AS position FROM events WHERE global_position >= ${String(first)}::bigint ORDER BY global_position`.execute(
      store.db,
    );
    expect(rows.map((row) => BigInt(row.position))).toEqual([(first ?? 0n) + 1n, (first ?? 0n) + 2n]);

    await writers[0].commit();
    await sub.drain(3);
    expect(ids(sub.seen)).toEqual(['b-1', 'b-2', 'b-3']);
    expect(ids(sub.seen)).toEqual(await committed(streams));
  });

  it('(c) a rolled-back transaction leaves a hole that is skipped and nothing committed is', async () => {
    const sub = await subscriber();
    const [sa, sb, sc] = [uid('s'), uid('s'), uid('s')];
    const doomed = await Writer.begin();
    const [hole] = await doomed.append(sa, ['c-rolled-back']);
    const kept = await Writer.begin();
    await kept.append(sb, ['c-kept']);
    await doomed.rollback();
    expect(await sub.catchUp()).toBe(0); // `kept` is still open
    await kept.commit();
    await sub.drain(1);
    await store.append(sc, [newEvent('c-after')], { expectedVersion: 'any' });
    await sub.drain(2);

    expect(ids(sub.seen)).toEqual(['c-kept', 'c-after']);
    expect(ids(sub.seen)).toEqual(await committed([sa, sb, sc]));
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*)::text AS n FROM events WHERE global_position = ${String(hole)}::bigint`.execute(store.db);
    expect(rows[0]?.n).toBe('0');
  });

  it('(d) a long-open transaction holds the subscriber back until it commits', async () => {
    const name = uid('sub');
    const seen: StoredEvent[] = [];
    const handler = (_tx: EventStoreTransaction, events: readonly StoredEvent[]): Promise<void> => {
      seen.push(...events);
      return Promise.resolve();
    };
    await allVisible(store);
    await store.catchUp(name, handler);
    seen.length = 0;

    const [long, quick] = [uid('s'), uid('s')];
    const open = await Writer.begin();
    const openXid = await open.xid();
    await open.append(long, ['d-long']);
    for (const n of [1, 2, 3]) await store.append(quick, [newEvent(`d-quick-${n}`)], { expectedVersion: 'any' });

    // A catch-up must not move past the open transaction.
    await store.catchUp(name, handler);
    const held = await store.readCheckpoint(name);
    expect(BigInt(held?.transactionId ?? '0')).toBeLessThan(openXid);
    expect(ids(seen)).toEqual([]);

    await open.commit();
    await eventually(async () => (await store.catchUp(name, handler), seen.length >= 4), {
      description: 'a catch-up to see the four events',
    });
    expect(ids(seen)).toEqual(['d-long', 'd-quick-1', 'd-quick-2', 'd-quick-3']);
    expect(ids(seen)).toEqual(await committed([long, quick]));
  });
});

describe('subscriptions survive crashes', () => {
  it('ends in the same state as a clean run when the connection dies between the projection write and the checkpoint', async () => {
    await sql`CREATE TABLE crash_projection (name text, event_id text, PRIMARY KEY (name, event_id))`.execute(store.db);
    for (let n = 0; n < 6; n += 1) await store.append(uid('s'), [newEvent(uid('e'))], { expectedVersion: 'any' });
    const project =
      (name: string, die: () => boolean) => async (tx: EventStoreTransaction, events: readonly StoredEvent[]) => {
        for (const event of events)
          await sql`INSERT INTO crash_projection VALUES (${name}, ${event.eventId})`.execute(tx.db);
        if (die()) await sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(tx.db);
      };
    const state = async (name: string): Promise<string[]> => {
      const { rows } = await sql<{
        event_id: string;
      }>`SELECT event_id FROM crash_projection WHERE name = ${name} ORDER BY event_id`.execute(store.db);
      return rows.map((row) => row.event_id);
    };
    await allVisible(store); // so both runs below read the same history
    await store.catchUp(
      'clean',
      project('clean', () => false),
      { batchSize: 4 },
    );

    let calls = 0;
    const crash = store.catchUp(
      'crashy',
      project('crashy', () => (calls += 1) === 2),
      { batchSize: 4 },
    );
    await expect(crash).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await state('crashy')).length).toBe(4); // the first batch and its checkpoint; the second died whole

    await store.catchUp(
      'crashy',
      project('crashy', () => false),
      { batchSize: 4 },
    );
    expect(await state('crashy')).toEqual(await state('clean'));
    expect(await store.readCheckpoint('crashy')).toEqual(await store.readCheckpoint('clean'));
  });

  it('reconnects its LISTEN connection after it drops', async () => {
    await store.waitForCommit({ timeoutMs: 1 }); // connects the listener (its result does not matter here)
    const first = store.waitForCommit({ timeoutMs: 60_000 });
    await store.append(uid('s'), [newEvent(uid('e'))], { expectedVersion: 'any' });
    expect(await first).toBe('committed');

    const errorsBefore = backgroundErrors.length;
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rloop-event-store-listener'`.execute(
      store.db,
    );
    await eventually(() => backgroundErrors.length > errorsBefore, {
      description: 'the dropped listener to be reported',
    });
    expect(backgroundErrors.at(-1)).toBeInstanceOf(StoreUnavailableError);

    // waitForCommit reconnects, and only a notification on the new connection can resolve it in time.
    const waiting = store.waitForCommit({ timeoutMs: 60_000 });
    await eventually(
      async () => {
        const { rows } = await sql<{ n: string }>`
          SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rloop-event-store-listener' AND query ILIKE 'LISTEN%'`.execute(
          store.db,
        );
        return rows[0]?.n === '1';
      },
      { description: 'the listener to be back' },
    );
    await store.append(uid('s'), [newEvent(uid('e'))], { expectedVersion: 'any' });
    expect(await waiting).toBe('committed');
  });
});

describe('least privilege and connection errors', () => {
  it('runs the store as a role that may only INSERT and SELECT events (the README grants)', async () => {
    const role = uid('rloop_journal').replaceAll('-', '_');
    const admin = await connect();
    const grants = [
      `CREATE ROLE ${role} LOGIN`,
      `GRANT CONNECT ON DATABASE "${database.name}" TO ${role}`,
      `GRANT USAGE ON SCHEMA public TO ${role}`,
      `GRANT SELECT, INSERT ON events TO ${role}`,
      `GRANT SELECT, INSERT, UPDATE ON streams TO ${role}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON subscription_checkpoints TO ${role}`,
    ];
    for (const statement of grants) await admin.query(statement);
    const url = new URL(database.url);
    url.username = role;
    const limited = await createEventStore({ databaseUrl: url.toString(), migrate: false });
    try {
      const stream = uid('s');
      await limited.append(stream, [newEvent(uid('e'))], { expectedVersion: 'no_stream' });
      const caught = await limited.catchUp(uid('sub'), () => Promise.resolve());
      expect(caught.processed).toBeGreaterThan(0);
      for (const statement of [
        sql`UPDATE events SET type = 'x' WHERE stream_id = ${stream}`,
        sql`DELETE FROM events WHERE stream_id = ${stream}`,
        sql`TRUNCATE events`,
        sql`ALTER TABLE events DISABLE TRIGGER events_append_only`,
        sql`DROP TRIGGER events_append_only ON events`,
      ]) {
        await expect(statement.execute(limited.db)).rejects.toMatchObject({ code: '42501' });
      }
    } finally {
      await limited.close();
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
    }
  });

  it("turns a database that goes away into StoreUnavailableError on the store's own kysely instance too (the journal's queries use it)", async () => {
    const gone = await createTestDatabase('rloop_es_gone');
    const lost = await createEventStore({ databaseUrl: gone.url, onBackgroundError: () => undefined });
    try {
      await expect(sql`SELECT 1 AS one`.execute(lost.db)).resolves.toMatchObject({ rows: [{ one: 1 }] });
      // WITH (FORCE): its connections are ended, and a new one finds no database (3D000).
      await gone.drop();
      await expect(sql`SELECT 1`.execute(lost.db)).rejects.toBeInstanceOf(StoreUnavailableError);
      const query = lost.db.selectFrom('events').select('event_id').execute();
      await expect(query).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(query).rejects.toMatchObject({ code: 'JOURNAL.STORE_UNAVAILABLE', retryable: true });
    } finally {
      await lost.close().catch(() => undefined);
    }
  });

  it('names host, port and database (never the password) when DATABASE_URL cannot connect', async () => {
    const refused = await createEventStore({ databaseUrl: 'postgres://journal:s3cret-pw@127.0.0.1:1/journal_db' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect(refused).toMatchObject({
      code: 'JOURNAL.STORE_UNAVAILABLE',
      retryable: true,
      target: { host: '127.0.0.1', port: 1, database: 'journal_db', user: 'journal' },
    });
    expect((refused as Error).message).toContain('127.0.0.1:1');
    expect((refused as Error).message).toContain('journal_db');
    expect((refused as Error).message).not.toContain('s3cret-pw');

    const missing = new URL(database.url);
    missing.pathname = `/${database.name}_missing`;
    missing.password = 's3cret-pw';
    const noDatabase = await createEventStore({ databaseUrl: missing.toString() }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(noDatabase).toBeInstanceOf(StoreUnavailableError);
    expect((noDatabase as Error).message).toContain(`${database.name}_missing`);
    expect((noDatabase as Error).message).not.toContain('s3cret-pw');

    const malformed = await createEventStore({ databaseUrl: 'journal:s3cret-pw at somewhere' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(malformed).toBeInstanceOf(ValidationError);
    expect((malformed as Error).message).not.toContain('s3cret-pw');
  });
});
