import { Migrator, sql, type ColumnType, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { RloopError, describeError } from '@rloop/contracts';
import { EVENT_STORE_ERROR_CODES } from './errors.js';

/** The store's tables as kysely sees them (bigint and xid8 columns arrive as decimal strings on both backends). */
export interface EventStoreTables {
  events: {
    global_position: ColumnType<string, never, never>;
    stream_id: ColumnType<string, string, never>;
    stream_position: ColumnType<string, string | number, never>;
    event_id: ColumnType<string, string, never>;
    type: ColumnType<string, string, never>;
    schema_version: ColumnType<number, number, never>;
    data: ColumnType<unknown, string, never>;
    metadata: ColumnType<unknown, string | undefined, never>;
    transaction_id: ColumnType<string, never, never>;
    recorded_at: ColumnType<Date, never, never>;
  };
  streams: {
    stream_id: ColumnType<string, string, never>;
    version: ColumnType<string, string | number, string | number>;
    created_at: ColumnType<Date, never, never>;
    updated_at: ColumnType<Date, never, Date>;
  };
  subscription_checkpoints: {
    name: string;
    transaction_id: string;
    global_position: string;
    updated_at: ColumnType<Date, Date | undefined, Date>;
  };
}

/** Our own migration bookkeeping tables, so a consumer's kysely migrations in the same database never collide. */
export const STORE_MIGRATION_TABLE = 'rloop_store_migrations';
export const STORE_MIGRATION_LOCK_TABLE = 'rloop_store_migrations_lock';

/** The channel every committed append notifies (delivered by PostgreSQL only after COMMIT). */
export const COMMIT_CHANNEL = 'rloop_events_appended';

// Each migration is a list of single statements: PGlite runs one statement per query.
const initialSchema: readonly string[] = [
  `CREATE TABLE streams (
     stream_id text PRIMARY KEY CHECK (stream_id <> ''),
     -- version 0 is a row reserved by an append that did not commit events; it reads as "no stream"
     version bigint NOT NULL CHECK (version >= 0),
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE events (
     global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     stream_id text NOT NULL REFERENCES streams (stream_id),
     stream_position bigint NOT NULL CHECK (stream_position >= 1),
     event_id text NOT NULL CHECK (event_id <> ''),
     type text NOT NULL CHECK (type <> ''),
     schema_version integer NOT NULL CHECK (schema_version >= 1),
     data jsonb NOT NULL,
     metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
     transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
     recorded_at timestamptz NOT NULL DEFAULT now(),
     CONSTRAINT events_event_id_key UNIQUE (event_id),
     CONSTRAINT events_stream_position_key UNIQUE (stream_id, stream_position)
   )`,
  // The global read order is (transaction_id, global_position); see read.ts for why.
  `CREATE INDEX events_global_order_idx ON events (transaction_id, global_position)`,
  `CREATE TABLE subscription_checkpoints (
     name text PRIMARY KEY CHECK (name <> ''),
     transaction_id xid8 NOT NULL,
     global_position bigint NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  // The gap-free read relies on transaction_id being the id of the transaction that inserted the
  // row, and recorded_at is evidence: neither may be supplied by a client.
  `CREATE FUNCTION rloop_events_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.transaction_id := pg_current_xact_id();
     NEW.recorded_at := now();
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER events_stamp BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION rloop_events_stamp()`,
  `CREATE FUNCTION rloop_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'table % is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
   END $$`,
  // Statement-level, so even a statement that matches no row is refused.
  `CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION rloop_refuse_change()`,
  `CREATE TRIGGER streams_append_only BEFORE DELETE OR TRUNCATE ON streams FOR EACH STATEMENT EXECUTE FUNCTION rloop_refuse_change()`,
  `CREATE FUNCTION rloop_streams_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.stream_id <> OLD.stream_id OR NEW.version <= OLD.version THEN
       RAISE EXCEPTION 'stream % may only move forward (version % -> %)', OLD.stream_id, OLD.version, NEW.version USING ERRCODE = 'insufficient_privilege';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER streams_forward_only BEFORE UPDATE ON streams FOR EACH ROW EXECUTE FUNCTION rloop_streams_forward_only()`,
  // ENABLE ALWAYS: the triggers fire even with session_replication_role = replica, the switch a
  // superuser would otherwise use to skip them.
  `ALTER TABLE events ENABLE ALWAYS TRIGGER events_stamp`,
  `ALTER TABLE events ENABLE ALWAYS TRIGGER events_append_only`,
  `ALTER TABLE streams ENABLE ALWAYS TRIGGER streams_append_only`,
  `ALTER TABLE streams ENABLE ALWAYS TRIGGER streams_forward_only`,
  // Wake subscribers: NOTIFY is delivered only when the inserting transaction commits, and it
  // fires for every insert, whoever writes it.
  `CREATE FUNCTION rloop_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${COMMIT_CHANNEL}', '');
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION rloop_events_notify()`,
  `ALTER TABLE events ENABLE ALWAYS TRIGGER events_notify`,
];

function statements(list: readonly string[]): Migration {
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's Migration interface fixes this signature
    async up(db: Kysely<any>): Promise<void> {
      for (const statement of list) await sql.raw(statement).execute(db);
    },
  };
}

/** In-code migrations: the store ships its schema with its code, so the two cannot drift. */
const STORE_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial_schema': statements(initialSchema),
};

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(STORE_MIGRATIONS),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database: the migrator only touches the store's own tables
function storeMigrator(db: Kysely<any>): Migrator {
  return new Migrator({
    db,
    provider,
    migrationTableName: STORE_MIGRATION_TABLE,
    migrationLockTableName: STORE_MIGRATION_LOCK_TABLE,
  });
}

/**
 * The store's migrations this database has not run yet (read-only: a role with SELECT on
 * `rloop_store_migrations` may ask, so a runtime role can refuse to start on an old schema).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database: the migrator only reads its own table
export async function pendingEventStoreMigrations(db: Kysely<any>): Promise<string[]> {
  return (await storeMigrator(db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/** The privileges a table may be granted (never TRUNCATE, REFERENCES or TRIGGER). */
export type TablePrivilege = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';

/**
 * What the runtime role of a service using the store needs on the store's tables, and nothing
 * more: history is only added to (no UPDATE, DELETE or TRUNCATE on events), a stream's version only
 * moves forward (a trigger checks it), checkpoints are rewritten and reset, and the migration
 * bookkeeping is only read. Not owning the tables, the role cannot alter, disable or drop a trigger.
 */
export const EVENT_STORE_RUNTIME_GRANTS: Readonly<Record<string, readonly TablePrivilege[]>> = Object.freeze({
  events: ['SELECT', 'INSERT'],
  streams: ['SELECT', 'INSERT', 'UPDATE'],
  subscription_checkpoints: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  [STORE_MIGRATION_TABLE]: ['SELECT'],
  [STORE_MIGRATION_LOCK_TABLE]: [],
});

/**
 * Brings the store's schema to the latest version (idempotent; safe to run from several
 * processes at once: kysely's Migrator takes a lock). Needs a role that may create tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database: the migrator only touches the store's own tables
export async function migrateEventStore(db: Kysely<any>): Promise<void> {
  const { error, results } = await storeMigrator(db).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new RloopError(
      EVENT_STORE_ERROR_CODES.migrationFailed,
      `event store migration ${failed} failed: ${describeError(error)}`,
      {
        cause: error,
      },
    );
  }
}
