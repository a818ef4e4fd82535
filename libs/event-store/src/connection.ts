import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { RloopError, ValidationError } from '@rloop/contracts';
import {
  EVENT_STORE_ERROR_CODES,
  StoreUnavailableError,
  TransactionConflictError,
  type DatabaseTarget,
} from './errors.js';

/**
 * Host, port, database and user of a connection string, for error messages. The password is
 * never part of the result; an unparsable string is reported without echoing it (it may hold one).
 */
export function describeDatabaseUrl(databaseUrl: string): DatabaseTarget {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new ValidationError(
      EVENT_STORE_ERROR_CODES.invalidOptions,
      'DATABASE_URL is not a valid postgres:// connection string',
      [{ path: 'databaseUrl', message: 'expected postgres://user[:password]@host[:port]/database' }],
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ValidationError(
      EVENT_STORE_ERROR_CODES.invalidOptions,
      `DATABASE_URL must use postgres:// (got ${url.protocol}//)`,
      [{ path: 'databaseUrl', message: 'expected postgres://user[:password]@host[:port]/database' }],
    );
  }
  // node-postgres also takes the host (e.g. a socket directory) from ?host=.
  const host = url.hostname !== '' ? url.hostname : (url.searchParams.get('host') ?? 'localhost');
  const user = decodeURIComponent(url.username);
  return {
    host,
    port: url.port === '' ? 5432 : Number(url.port),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || user || '(default)',
    user: user || '(default)',
  };
}

/** The password of a connection string, to scrub it from any message that might echo it. */
export function passwordOf(databaseUrl: string): string {
  try {
    return decodeURIComponent(new URL(databaseUrl).password);
  } catch {
    return '';
  }
}

// Node socket errors and the node-postgres messages that mean "the server is not there (any more)".
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const UNREACHABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i;
// SQLSTATEs that mean the same: connection exceptions (08), shutdown (57P01-3), no such database
// (3D000), bad credentials (28), too many connections (53300).
const UNREACHABLE_STATES = new Set(['57P01', '57P02', '57P03', '3D000', '28000', '28P01', '53300']);
// SQLSTATEs of a race PostgreSQL resolved by aborting us: serialization failure, deadlock.
const RACE_STATES = new Set(['40001', '40P01']);

interface DriverError {
  readonly code?: unknown;
  readonly constraint?: unknown;
  readonly message?: unknown;
}

function fieldsOf(error: unknown): DriverError {
  return typeof error === 'object' && error !== null ? error : {};
}

/** A race whose cure is to run the transaction again (which re-reads what the other side wrote). */
export function raceOf(error: unknown): TransactionConflictError | undefined {
  if (error instanceof TransactionConflictError) return error;
  const { code, constraint, message } = fieldsOf(error);
  if (typeof code !== 'string') return undefined;
  const text = typeof message === 'string' ? message : 'race';
  if (RACE_STATES.has(code)) return new TransactionConflictError(code, text, { cause: error });
  // Our locks serialise appends to one stream, so this only happens when a concurrent transaction
  // stored the same event id in another stream (or wrote the events table directly).
  if (code === '23505' && constraint === 'events_event_id_key')
    return new TransactionConflictError(code, text, { cause: error });
  return undefined;
}

function isUnreachable(error: unknown): boolean {
  const { code, message } = fieldsOf(error);
  if (
    typeof code === 'string' &&
    (UNREACHABLE_CODES.has(code) || UNREACHABLE_STATES.has(code) || code.startsWith('08'))
  )
    return true;
  if (error instanceof AggregateError) return error.errors.some(isUnreachable);
  return typeof message === 'string' && UNREACHABLE_MESSAGES.test(message);
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(messageOf).join('; ');
  const { message, code } = fieldsOf(error);
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

/**
 * Turns a driver error into the store's typed errors: a race → TransactionConflictError, an
 * unreachable server → StoreUnavailableError naming host, port and database (never the
 * password). Anything else, and our own errors, pass through unchanged.
 */
export function translateError(error: unknown, target: DatabaseTarget | null, password: string): unknown {
  if (error instanceof RloopError) return error;
  const race = raceOf(error);
  if (race !== undefined) return race;
  if (target !== null && isUnreachable(error)) {
    const detail = password === '' ? messageOf(error) : messageOf(error).replaceAll(password, '***');
    return new StoreUnavailableError(target, detail, { cause: error });
  }
  return error;
}

/**
 * The pool kysely queries through, with every driver error translated (translateError): callers
 * that query the store's `db` directly (the journal's queries and projections) then see a
 * database outage as the StoreUnavailableError (a TransientError) it is, which their requesters
 * and consumers wait out, instead of a raw "connect ECONNREFUSED" that uses up delivery attempts.
 */
export function translatingPool(pool: PostgresPool, translate: (error: unknown) => unknown): PostgresPool {
  const rethrow = (error: unknown): never => {
    throw translate(error);
  };
  return {
    connect: async () => {
      const client = await pool.connect().catch(rethrow);
      const query = (...args: [string, readonly unknown[]] | [unknown]): unknown => {
        const result: unknown = (client.query as (...a: unknown[]) => unknown)(...args);
        // A cursor (kysely's streaming) is returned as it is; a query's promise has its failure translated.
        return result instanceof Promise ? result.catch(rethrow) : result;
      };
      return {
        query: query as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(destroy),
      };
    },
    end: () => pool.end(),
  };
}
