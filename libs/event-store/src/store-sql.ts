import { IllegalStateError } from '@rloop/contracts';
import { sql, type Kysely } from 'kysely';
import { planBatch, type StoredRef } from './append-plan.js';
import { EVENT_STORE_ERROR_CODES } from './errors.js';
import type { EventStoreTables } from './schema.js';
import type { AppendResult, Checkpoint, EventMetadata, ReadAllResult, StoredEvent } from './types.js';
import type { PreparedAppend } from './validation.js';

/** Anything that runs queries: the store's Kysely instance or a transaction on it. */
export type Executor = Kysely<EventStoreTables>;

/** The checkpoint before the first event: xid8 and bigint both start above 0. */
const ORIGIN: Checkpoint = { transactionId: '0', globalPosition: '0' };

function toSafeNumber(text: string, what: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new IllegalStateError(
      EVENT_STORE_ERROR_CODES.invariantBroken,
      `${what} ${text} is beyond the safe integer range`,
    );
  return value;
}

/**
 * Appends a batch inside the caller's transaction (which must be READ COMMITTED: each statement
 * below must see what committed while it waited for a lock).
 *
 * 1. Lock every stream that gets events, in stream id order (so two batches never deadlock on
 *    each other), creating missing rows at version 0. ON CONFLICT DO UPDATE ... WHERE false locks
 *    an existing row without writing it; a row another transaction is inserting makes us wait for
 *    that transaction.
 * 2. Read the versions and look up the batch's event ids. Both run after the locks, so a
 *    concurrent append of the same stream has committed (or rolled back) and is seen: two
 *    concurrent appends of one event to one stream end as one row and an idempotent result.
 * 3. Decide (planBatch): conflicts throw here, before any sequence value is taken.
 * 4. Move the versions forward and insert the new events.
 * An event id appended concurrently to ANOTHER stream is not covered by our locks: the insert then
 * fails on the unique index, and the caller's retry repeats step 2, which sees it.
 */
export async function appendBatch(db: Executor, items: readonly PreparedAppend[]): Promise<AppendResult[]> {
  const touched = [...new Set(items.filter((item) => item.events.length > 0).map((item) => item.streamId))].sort();
  if (touched.length > 0) {
    await sql`
      INSERT INTO streams (stream_id, version)
      SELECT s.stream_id, 0 FROM jsonb_array_elements_text(${JSON.stringify(touched)}::jsonb) AS s(stream_id) ORDER BY s.stream_id
      ON CONFLICT (stream_id) DO UPDATE SET version = streams.version WHERE false`.execute(db);
  }

  const streamIds = items.map((item) => item.streamId);
  const { rows: versionRows } = await sql<{ stream_id: string; version: string }>`
    SELECT stream_id, version::text AS version FROM streams
    WHERE stream_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(streamIds)}::jsonb))`.execute(db);
  const versions = new Map(versionRows.map((row) => [row.stream_id, toSafeNumber(row.version, 'stream version')]));

  const eventIds = items.flatMap((item) => item.events.map((event) => event.eventId));
  const stored = eventIds.length === 0 ? new Map<string, StoredRef>() : await lookupEvents(db, eventIds);

  const plan = planBatch(items, versions, stored);

  if (plan.reservations.length > 0) {
    const moved = await sql`
      UPDATE streams AS s SET version = r.next, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(plan.reservations.map((r) => ({ stream_id: r.streamId, previous: r.from, next: r.to })))}::jsonb)
        AS r(stream_id text, previous bigint, next bigint)
      WHERE s.stream_id = r.stream_id AND s.version = r.previous`.execute(db);
    // We hold the row locks, so every stream is where we read it; anything else is a bug.
    if (Number(moved.numAffectedRows ?? 0) !== plan.reservations.length) {
      throw new IllegalStateError(
        EVENT_STORE_ERROR_CODES.invariantBroken,
        `moved ${String(moved.numAffectedRows)} of ${plan.reservations.length} locked streams`,
      );
    }
  }

  const inserted = new Map<string, { globalPosition: string; transactionId: string }>();
  if (plan.inserts.length > 0) {
    // The rows are inserted in `ord` order, so the identity column numbers them in input order.
    // Data and metadata are spliced in as the JSON text validation produced: serialised once.
    const rows = plan.inserts.map(
      (insert, ord) =>
        `{"ord":${ord},"stream_id":${JSON.stringify(insert.streamId)},"stream_position":${insert.streamPosition},` +
        `"event_id":${JSON.stringify(insert.event.eventId)},"type":${JSON.stringify(insert.event.type)},` +
        `"schema_version":${insert.event.schemaVersion},"data":${insert.event.dataJson},"metadata":${insert.event.metadataJson}}`,
    );
    const { rows: written } = await sql<{ event_id: string; global_position: string; transaction_id: string }>`
      INSERT INTO events (stream_id, stream_position, event_id, type, schema_version, data, metadata)
      SELECT r.stream_id, r.stream_position, r.event_id, r.type, r.schema_version, r.data, r.metadata
      FROM jsonb_to_recordset(${`[${rows.join(',')}]`}::jsonb)
        AS r(ord integer, stream_id text, stream_position bigint, event_id text, type text, schema_version integer, data jsonb, metadata jsonb)
      ORDER BY r.ord
      RETURNING event_id, global_position::text AS global_position, transaction_id::text AS transaction_id`.execute(db);
    for (const row of written)
      inserted.set(row.event_id, { globalPosition: row.global_position, transactionId: row.transaction_id });
  }
  return plan.complete(inserted);
}

async function lookupEvents(db: Executor, eventIds: readonly string[]): Promise<Map<string, StoredRef>> {
  const { rows } = await sql<{
    event_id: string;
    stream_id: string;
    stream_position: string;
    global_position: string;
    transaction_id: string;
    type: string;
    schema_version: number;
    data: unknown;
  }>`
    SELECT event_id, stream_id, stream_position::text AS stream_position, global_position::text AS global_position,
           transaction_id::text AS transaction_id, type, schema_version, data
    FROM events WHERE event_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(eventIds)}::jsonb))`.execute(db);
  return new Map(
    rows.map((row) => [
      row.event_id,
      {
        eventId: row.event_id,
        streamId: row.stream_id,
        streamPosition: toSafeNumber(row.stream_position, 'stream position'),
        globalPosition: row.global_position,
        transactionId: row.transaction_id,
        type: row.type,
        schemaVersion: row.schema_version,
        data: row.data,
      },
    ]),
  );
}

interface EventRow {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_position: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: Date;
}

// Beware: these aliases shadow the column names, and an unqualified ORDER BY name binds to the
// OUTPUT column, i.e. the text (where '1000' < '999'). Every ORDER BY below therefore qualifies
// its columns with the table alias `e`, which binds to the real bigint/xid8 columns.
const EVENT_COLUMNS = sql`e.global_position::text AS global_position, e.transaction_id::text AS transaction_id, e.stream_id,
  e.stream_position::text AS stream_position, e.event_id, e.type, e.schema_version, e.data, e.metadata, e.recorded_at`;

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    globalPosition: row.global_position,
    transactionId: row.transaction_id,
    streamId: row.stream_id,
    streamPosition: toSafeNumber(row.stream_position, 'stream position'),
    eventId: row.event_id,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at.toISOString(),
  };
}

export async function readStreamEvents(
  db: Executor,
  streamId: string,
  fromPosition: number,
  maxCount: number | undefined,
): Promise<StoredEvent[]> {
  // No visibility gate is needed within a stream: positions are assigned under the stream's row
  // lock, so position n+1 cannot commit before position n has.
  const limit = maxCount === undefined ? sql`` : sql`LIMIT ${maxCount}`;
  const { rows } = await sql<EventRow>`
    SELECT ${EVENT_COLUMNS} FROM events AS e
    WHERE e.stream_id = ${streamId} AND e.stream_position >= ${fromPosition}
    ORDER BY e.stream_position ${limit}`.execute(db);
  return rows.map(toStoredEvent);
}

export async function readStreamVersion(db: Executor, streamId: string): Promise<number> {
  const { rows } = await sql<{
    version: string;
  }>`SELECT version::text AS version FROM streams WHERE stream_id = ${streamId}`.execute(db);
  const row = rows[0];
  return row === undefined ? 0 : toSafeNumber(row.version, 'stream version');
}

/**
 * The global read order, gap-free.
 *
 * Ordering by global_position alone would skip events: positions are taken when a transaction
 * inserts, not when it commits. If T1 takes position 10 and T2 takes 11, and T2 commits first, a
 * reader sees 11, stores checkpoint 11, and when T1 commits, its event 10 is behind the
 * checkpoint: never read. The same happens to a later-numbered event in an older transaction
 * whenever commit order differs from numbering order.
 *
 * So (like emmett and Marten) each event records the id of its transaction (xid8), and a reader
 * only takes events whose transaction is older than the oldest transaction still running
 * (pg_snapshot_xmin of the statement's snapshot). Every such transaction has finished, so the set
 * of visible events below that horizon is final: no commit can add to it later. Reading in
 * (transaction_id, global_position) order and checkpointing that pair then never skips: anything
 * that becomes visible later belongs to a transaction at or above the horizon, which is above
 * every checkpoint taken so far. The price is latency: a long-open writing transaction holds
 * readers back until it ends (they wait; they do not skip).
 */
export async function readAllEvents(db: Executor, after: Checkpoint | null, limit: number): Promise<ReadAllResult> {
  const from = after ?? ORIGIN;
  const { rows } = await sql<EventRow>`
    SELECT ${EVENT_COLUMNS} FROM events AS e
    WHERE (e.transaction_id, e.global_position) > (${from.transactionId}::xid8, ${from.globalPosition}::bigint)
      AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY e.transaction_id, e.global_position
    LIMIT ${limit}`.execute(db);
  const events = rows.map(toStoredEvent);
  const last = events.at(-1);
  return {
    events,
    checkpoint: last === undefined ? after : { transactionId: last.transactionId, globalPosition: last.globalPosition },
  };
}
