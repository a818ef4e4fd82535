import { mkdir } from 'node:fs/promises';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { IllegalStateError, ValidationError } from '@rloop/contracts';
import { describeDatabaseUrl, passwordOf, raceOf, translateError, translatingPool } from './connection.js';
import { EVENT_STORE_ERROR_CODES, TransactionConflictError, type DatabaseTarget } from './errors.js';
import { CommitSignal, type CommitListener, type WakeReason } from './notifier.js';
import { Mutex, PGliteDialect } from './pglite-dialect.js';
import { COMMIT_CHANNEL, migrateEventStore, type EventStoreTables } from './schema.js';
import { appendBatch, readAllEvents, readStreamEvents, readStreamVersion, type Executor } from './store-sql.js';
import type {
  AppendOptions,
  AppendResult,
  Checkpoint,
  NewEvent,
  ReadStreamOptions,
  StoredEvent,
  StreamAppend,
} from './types.js';
import { checkBatchSize, checkReadStream, checkStreamId, checkSubscriptionName, prepareAppends } from './validation.js';

/** The narrow port a handler depends on: append and read, nothing about PostgreSQL. */
export interface EventStore {
  /** Appends to one stream, checking its version first. Idempotent by event id. */
  append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /** Appends to several streams in one transaction: all or nothing. Results in input order. */
  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /** The stream's version: the position of its last event, 0 when it does not exist. */
  streamVersion(streamId: string): Promise<number>;
}

/** The store inside one transaction, with the raw kysely transaction for the caller's own writes. */
export interface EventStoreTransaction extends EventStore {
  readonly db: Transaction<EventStoreTables>;
}

/** A projection step: runs in the transaction that also stores the subscription's new checkpoint. */
export type SubscriptionHandler = (tx: EventStoreTransaction, events: readonly StoredEvent[]) => Promise<void>;

export interface CatchUpOptions {
  /** Events per handler call (and per transaction); default 500. */
  readonly batchSize?: number;
}

export interface CatchUpResult {
  readonly processed: number;
  readonly batches: number;
  readonly checkpoint: Checkpoint | null;
}

export interface WaitForCommitOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** What createEventStore returns: the port plus transactions, subscriptions and lifecycle. */
export interface EventStoreClient extends EventStore {
  readonly backend: 'postgres' | 'pglite';
  /** The store's kysely instance, for the consumer's own migrations and queries in the same database. */
  readonly db: Kysely<EventStoreTables>;
  /** Runs `work` in one READ COMMITTED transaction; appends and the caller's writes commit together. */
  transaction<T>(work: (tx: EventStoreTransaction) => Promise<T>): Promise<T>;
  /** Feeds the subscription's handler every event after its checkpoint, batch by batch, until none is visible. */
  catchUp(name: string, handler: SubscriptionHandler, options?: CatchUpOptions): Promise<CatchUpResult>;
  /** Forgets the subscription's checkpoint (rebuild from zero); `reset` clears the projection's tables in the same transaction. */
  resetSubscription(name: string, reset?: (tx: EventStoreTransaction) => Promise<void>): Promise<void>;
  readCheckpoint(name: string): Promise<Checkpoint | null>;
  /** Resolves on the next commit notification, after timeoutMs, or on abort. */
  waitForCommit(options: WaitForCommitOptions): Promise<WakeReason>;
  /** Stops the listener and the connections. */
  close(): Promise<void>;
}

interface CommonOptions {
  /** Run the store's migrations at start (default true). A least-privilege role cannot: run them as the owner. */
  readonly migrate?: boolean;
  /** Errors nobody awaits (an idle pooled connection or the listener dropped); default: process.emitWarning. */
  readonly onBackgroundError?: (error: unknown) => void;
}

export interface PostgresStoreOptions extends CommonOptions {
  readonly databaseUrl: string;
  /** Pool size; default 10. */
  readonly maxConnections?: number;
  /** How long to wait for a connection; default 10 000 ms. */
  readonly connectTimeoutMs?: number;
}

export interface PGliteStoreOptions extends CommonOptions {
  /** Directory of the embedded database (created if missing). */
  readonly pgliteDir: string;
}

export interface InMemoryStoreOptions extends CommonOptions {
  /** An embedded database that lives in memory (tests). */
  readonly inMemory: true;
}

export type EventStoreOptions = PostgresStoreOptions | PGliteStoreOptions | InMemoryStoreOptions;

const DEFAULT_BATCH_SIZE = 500;
/** Attempts of a store-owned transaction that lost a race (each attempt re-reads what the winner wrote). */
const RACE_ATTEMPTS = 3;

interface Backend {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Kysely<EventStoreTables>;
  readonly target: DatabaseTarget | null;
  readonly password: string;
  startListener(commits: CommitSignal, onError: (error: unknown) => void): Promise<CommitListener>;
}

/** Keeps one LISTEN connection to PostgreSQL, reconnecting on the next ensure() after it drops. */
class PostgresCommitListener implements CommitListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly commits: CommitSignal,
    private readonly translate: (error: unknown) => unknown,
    private readonly onError: (error: unknown) => void,
  ) {}

  ensure(): Promise<void> {
    if (this.client !== null) return Promise.resolve();
    if (this.closed)
      return Promise.reject(new IllegalStateError(EVENT_STORE_ERROR_CODES.storeClosed, 'the event store is closed'));
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    // Wake the waiters: they re-read (nothing is lost, the read is from the checkpoint) and
    // reconnect on their next ensure().
    this.commits.notify();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...this.config, application_name: 'rloop-event-store-listener' });
    client.on('error', (error) => {
      this.drop(client);
      this.onError(this.translate(error));
    });
    client.on('end', () => this.drop(client));
    client.on('notification', (message) => {
      if (message.channel === COMMIT_CHANNEL) this.commits.notify();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${COMMIT_CHANNEL}`);
    } catch (error) {
      await client.end().catch((endError: unknown) => this.onError(this.translate(endError)));
      throw this.translate(error);
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => undefined); // its failure was already thrown to whoever awaited ensure()
    const client = this.client;
    this.client = null;
    await client?.end();
  }
}

async function openPostgres(options: PostgresStoreOptions): Promise<Backend> {
  const target = describeDatabaseUrl(options.databaseUrl);
  const password = passwordOf(options.databaseUrl);
  const config: pg.ClientConfig = {
    connectionString: options.databaseUrl,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: 'rloop-event-store',
  };
  const pool = new pg.Pool({ ...config, max: options.maxConnections ?? 10 });
  const onBackgroundError = options.onBackgroundError ?? warn;
  // An idle pooled connection that drops emits here; without a listener node would crash.
  pool.on('error', (error) => onBackgroundError(translateError(error, target, password)));
  // pg-pool takes its listener off a connection while it is checked out, and a connection that
  // dies then (the server restarts, an admin kills it) would crash the process with an unhandled
  // 'error' event. This listener only prevents that: the same error reaches the caller, through
  // the query in flight or the next one ("not queryable"), and the pool discards the connection.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end();
    throw translateError(error, target, password);
  }
  return {
    kind: 'postgres',
    db: new Kysely<EventStoreTables>({
      dialect: new PostgresDialect({ pool: translatingPool(pool, (error) => translateError(error, target, password)) }),
    }),
    target,
    password,
    startListener: (commits, onError) =>
      Promise.resolve(
        new PostgresCommitListener(config, commits, (error) => translateError(error, target, password), onError),
      ),
  };
}

async function openPGlite(dataDir: string | null): Promise<Backend> {
  // Loaded only here, so a PostgreSQL-backed service never loads the WebAssembly build.
  const { PGlite, types } = await import('@electric-sql/pglite');
  if (dataDir !== null) await mkdir(dataDir, { recursive: true });
  // Same value types as node-postgres: bigint and numeric as decimal strings.
  const parsers = { [types.INT8]: (value: string) => value, [types.NUMERIC]: (value: string) => value };
  const pglite = dataDir === null ? await PGlite.create({ parsers }) : await PGlite.create({ dataDir, parsers });
  const mutex = new Mutex();
  return {
    kind: 'pglite',
    db: new Kysely<EventStoreTables>({ dialect: new PGliteDialect(pglite, mutex) }),
    target: null,
    password: '',
    async startListener(commits) {
      // Through the mutex: LISTEN must not land inside someone's open transaction.
      const unlisten = await mutex.runExclusive(() => pglite.listen(COMMIT_CHANNEL, () => commits.notify()));
      return {
        ensure: () => Promise.resolve(),
        close: async () => {
          if (!pglite.closed) await mutex.runExclusive(() => unlisten());
        },
      };
    },
  };
}

function warn(error: unknown): void {
  process.emitWarning(error instanceof Error ? error : new Error(String(error)), { code: 'RLOOP_EVENT_STORE' });
}

function checkOptions(options: EventStoreOptions): void {
  const positive = (value: number | undefined, path: string): void => {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new ValidationError(EVENT_STORE_ERROR_CODES.invalidOptions, `${path} must be a positive integer`, [
        { path, message: 'must be a positive integer' },
      ]);
    }
  };
  if ('databaseUrl' in options) {
    positive(options.maxConnections, 'maxConnections');
    positive(options.connectTimeoutMs, 'connectTimeoutMs');
  }
}

/**
 * Opens the journal's event store: PostgreSQL when `databaseUrl` is given, otherwise embedded
 * PGlite (on disk under `pgliteDir`, or in memory). Same schema and migrations on both. A
 * database that cannot be reached is a StoreUnavailableError naming host, port and database.
 *
 * @example
 * const store = await createEventStore({ databaseUrl: config.databaseUrl });
 * await store.append('plan-a', [event], { expectedVersion: 'no_stream' });
 */
export async function createEventStore(options: EventStoreOptions): Promise<EventStoreClient> {
  checkOptions(options);
  const backend =
    'databaseUrl' in options
      ? await openPostgres(options)
      : await openPGlite('pgliteDir' in options ? options.pgliteDir : null);
  const store = new EventStoreImpl(backend, options.onBackgroundError ?? warn);
  try {
    if (options.migrate !== false) await store.guard(migrateEventStore(backend.db));
    await store.start();
  } catch (error) {
    await backend.db.destroy();
    throw error;
  }
  return store;
}

class EventStoreImpl implements EventStoreClient {
  readonly backend: 'postgres' | 'pglite';
  readonly db: Kysely<EventStoreTables>;
  private readonly commits = new CommitSignal();
  private listener: CommitListener | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly source: Backend,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {
    this.backend = source.kind;
    this.db = source.db;
  }

  async start(): Promise<void> {
    this.listener = await this.source.startListener(this.commits, this.onBackgroundError);
  }

  /** Awaits `work`, turning driver errors into the store's typed errors. */
  async guard<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      throw translateError(error, this.source.target, this.source.password);
    }
  }

  private inTransaction<T>(work: (trx: Transaction<EventStoreTables>) => Promise<T>): Promise<T> {
    return this.guard(this.db.transaction().setIsolationLevel('read committed').execute(work));
  }

  /** A store-owned transaction, run again when it lost a race: the next attempt re-reads what the winner wrote. */
  private async withRaceRetry<T>(work: (trx: Transaction<EventStoreTables>) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.inTransaction(work);
      } catch (error) {
        if (attempt >= RACE_ATTEMPTS || !(error instanceof TransactionConflictError)) throw error;
      }
    }
  }

  private bind(trx: Transaction<EventStoreTables>): EventStoreTransaction {
    const guardRace = async <T>(work: Promise<T>): Promise<T> => {
      try {
        return await work;
      } catch (error) {
        // Inside the caller's transaction we cannot retry: the transaction is aborted. The caller runs it again.
        throw raceOf(error) ?? error;
      }
    };
    return {
      db: trx,
      append: async (streamId, events, options) => {
        const [result] = await guardRace(
          appendBatch(trx, prepareAppends([{ streamId, events, expectedVersion: options.expectedVersion }])),
        );
        return result as AppendResult;
      },
      appendMany: async (appends) => guardRace(appendBatch(trx, prepareAppends(appends))),
      readStream: async (streamId, options = {}) => readStream(trx, streamId, options),
      streamVersion: async (streamId) => streamVersion(trx, streamId),
    };
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const [result] = await this.appendMany([{ streamId, events, expectedVersion: options.expectedVersion }]);
    return result as AppendResult;
  }

  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    const prepared = prepareAppends(appends);
    return this.withRaceRetry((trx) => appendBatch(trx, prepared));
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    return this.guard(readStream(this.db, streamId, options));
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.guard(streamVersion(this.db, streamId));
  }

  async transaction<T>(work: (tx: EventStoreTransaction) => Promise<T>): Promise<T> {
    return this.inTransaction((trx) => work(this.bind(trx)));
  }

  async readCheckpoint(name: string): Promise<Checkpoint | null> {
    checkSubscriptionName(name);
    return this.guard(loadCheckpoint(this.db, name));
  }

  async catchUp(name: string, handler: SubscriptionHandler, options: CatchUpOptions = {}): Promise<CatchUpResult> {
    checkSubscriptionName(name);
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    checkBatchSize(batchSize);
    let processed = 0;
    let batches = 0;
    for (;;) {
      const step = await this.inTransaction(async (trx) => {
        await lockSubscription(trx, name);
        const checkpoint = await loadCheckpoint(trx, name);
        const { events, checkpoint: next } = await readAllEvents(trx, checkpoint, batchSize);
        if (events.length === 0 || next === null) return { count: 0, checkpoint };
        await handler(this.bind(trx), events);
        await saveCheckpoint(trx, name, next);
        return { count: events.length, checkpoint: next };
      });
      if (step.count > 0) {
        processed += step.count;
        batches += 1;
      }
      // A short batch means we reached what is visible now; a full one may have more behind it.
      if (step.count < batchSize) return { processed, batches, checkpoint: step.checkpoint };
    }
  }

  async resetSubscription(name: string, reset?: (tx: EventStoreTransaction) => Promise<void>): Promise<void> {
    checkSubscriptionName(name);
    await this.inTransaction(async (trx) => {
      await lockSubscription(trx, name);
      if (reset !== undefined) await reset(this.bind(trx));
      await trx.deleteFrom('subscription_checkpoints').where('name', '=', name).execute();
    });
  }

  async waitForCommit(options: WaitForCommitOptions): Promise<WakeReason> {
    await this.listening().ensure();
    return this.commits.wait(this.commits.current, options.timeoutMs, options.signal);
  }

  private listening(): CommitListener {
    if (this.listener === null || this.closing !== null)
      throw new IllegalStateError(EVENT_STORE_ERROR_CODES.storeClosed, 'the event store is closed');
    return this.listener;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.listener?.close();
      await this.db.destroy();
    })();
    return this.closing;
  }
}

function readStream(db: Executor, streamId: string, options: ReadStreamOptions): Promise<StoredEvent[]> {
  checkReadStream(streamId, options);
  return readStreamEvents(db, streamId, options.fromPosition ?? 1, options.maxCount);
}

function streamVersion(db: Executor, streamId: string): Promise<number> {
  checkStreamId(streamId);
  return readStreamVersion(db, streamId);
}

/**
 * Serialises runners of one subscription (two replicas never process the same batch). An
 * advisory lock rather than SELECT ... FOR UPDATE: a row lock would give this transaction an xid
 * before it reads, and an open xid holds back every reader's visibility horizon.
 */
async function lockSubscription(trx: Executor, name: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`rloop.subscription:${name}`}, 0))`.execute(trx);
}

async function loadCheckpoint(db: Executor, name: string): Promise<Checkpoint | null> {
  const { rows } = await sql<{ transaction_id: string; global_position: string }>`
    SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
    FROM subscription_checkpoints WHERE name = ${name}`.execute(db);
  const row = rows[0];
  return row === undefined ? null : { transactionId: row.transaction_id, globalPosition: row.global_position };
}

async function saveCheckpoint(trx: Executor, name: string, checkpoint: Checkpoint): Promise<void> {
  await sql`
    INSERT INTO subscription_checkpoints (name, transaction_id, global_position, updated_at)
    VALUES (${name}, ${checkpoint.transactionId}::xid8, ${checkpoint.globalPosition}::bigint, now())
    ON CONFLICT (name) DO UPDATE SET transaction_id = EXCLUDED.transaction_id, global_position = EXCLUDED.global_position, updated_at = now()`.execute(
    trx,
  );
}
