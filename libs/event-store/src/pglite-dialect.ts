import type { PGlite } from '@electric-sql/pglite';
import {
  AbortedTransactionError,
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

// kysely 0.28 has no PGlite dialect, and kysely-pglite-dialect does not support PGlite 0.5, so this
// is a small one: PostgreSQL's adapter, introspector and compiler over a driver that runs queries
// on one PGlite instance.
//
// PGlite is a single connection. A transaction is a BEGIN ... COMMIT sequence of separate queries,
// so a query from anywhere else that ran in between would silently join the transaction. The
// driver therefore hands out its one connection under a mutex: kysely holds it from BEGIN to
// COMMIT, and every other query or transaction waits its turn. Consequence for callers: inside a
// transaction use the transaction handle, never the outer Kysely instance (that would wait for
// the mutex the transaction itself holds).

/** A FIFO lock: whoever holds it owns PGlite's one connection. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves with the function that releases the lock, once every earlier holder has released it. */
  acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => held);
    return previous.then(() => release);
  }

  async runExclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}

const COMMANDS_WITH_AFFECTED_ROWS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters], { rowMode: 'object' });
    const command = result.command?.toUpperCase();
    if (command === 'ROLLBACK' || command === 'COMMIT') {
      // Same shape as kysely's PostgresConnection, so commitTransaction can spot an aborted COMMIT.
      return { rows: [{ command } as R] };
    }
    return {
      rows: result.rows,
      numAffectedRows:
        command !== undefined && COMMANDS_WITH_AFFECTED_ROWS.has(command)
          ? BigInt(result.affectedRows ?? 0)
          : undefined,
    };
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    // PGlite has no cursors over this API: run the query and hand the rows out in chunks.
    const { rows } = await this.executeQuery<R>(compiledQuery);
    for (let start = 0; start < rows.length; start += chunkSize) yield { rows: rows.slice(start, start + chunkSize) };
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private release: (() => void) | null = null;
  private destroyed = false;

  constructor(
    private readonly pglite: PGlite,
    private readonly mutex: Mutex,
  ) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {
    await this.pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.mutex.acquire();
    if (this.destroyed) {
      release();
      throw new Error('the PGlite driver has been destroyed');
    }
    this.release = release;
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = 'start transaction';
    if (settings.isolationLevel !== undefined) statement += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode !== undefined) statement += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(statement));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const { rows } = await connection.executeQuery<{ command: string }>(CompiledQuery.raw('commit'));
    // PostgreSQL answers COMMIT of an aborted transaction with ROLLBACK; that is not a commit.
    if (rows[0]?.command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, savepointName: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(savepointName)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, savepointName: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdentifier(savepointName)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, savepointName: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdentifier(savepointName)}`));
  }

  releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = null;
    release?.();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    // Wait for the query or transaction in flight, then close; later acquisitions fail.
    await this.mutex.runExclusive(async () => {
      if (this.destroyed) return;
      this.destroyed = true;
      await this.pglite.close();
    });
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A kysely Dialect over one PGlite instance; `mutex` must be the one every other user of the instance takes. */
export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: PGlite,
    private readonly mutex: Mutex,
  ) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.mutex);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the Dialect interface fixes this signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}
