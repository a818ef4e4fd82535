import { ConflictError, TransientError } from '@rloop/contracts';
import type { ExpectedVersion } from './types.js';

/** Stable codes of the errors this store throws (callers branch on these, never on messages). */
export const EVENT_STORE_ERROR_CODES = {
  versionConflict: 'JOURNAL.VERSION_CONFLICT',
  eventIdConflict: 'JOURNAL.EVENT_ID_CONFLICT',
  storeUnavailable: 'JOURNAL.STORE_UNAVAILABLE',
  transactionConflict: 'JOURNAL.TRANSACTION_CONFLICT',
  invalidAppend: 'JOURNAL.INVALID_APPEND',
  invalidRead: 'JOURNAL.INVALID_READ',
  invalidOptions: 'JOURNAL.INVALID_OPTIONS',
  migrationFailed: 'JOURNAL.MIGRATION_FAILED',
  invariantBroken: 'JOURNAL.INVARIANT_BROKEN',
  storeClosed: 'JOURNAL.STORE_CLOSED',
} as const;

function describeExpected(expected: ExpectedVersion): string {
  return typeof expected === 'number' ? `version ${expected}` : `'${expected}'`;
}

/**
 * The stream's version is not what the append expected. Retryable: reload the stream, decide
 * again and append with the new version. Nothing was written and no position was consumed.
 */
export class VersionConflictError extends ConflictError {
  readonly streamId: string;
  readonly expectedVersion: ExpectedVersion;
  /** The version found; 0 when the stream does not exist. */
  readonly actualVersion: number;

  constructor(streamId: string, expectedVersion: ExpectedVersion, actualVersion: number) {
    const actual = actualVersion === 0 ? 'the stream does not exist' : `it is at version ${actualVersion}`;
    super(
      EVENT_STORE_ERROR_CODES.versionConflict,
      `stream "${streamId}" expected ${describeExpected(expectedVersion)} but ${actual}`,
      { retryable: true },
    );
    this.streamId = streamId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/** Why an event id clashes with what is stored. */
export const EVENT_ID_CONFLICT_REASONS = ['content_differs', 'other_stream'] as const;
export type EventIdConflictReason = (typeof EVENT_ID_CONFLICT_REASONS)[number];

/**
 * An event id is already stored with different content (type, schema version or data) or in
 * another stream. Not retryable: the same append fails the same way; the producer has a bug or
 * two producers minted the same id.
 */
export class EventIdConflictError extends ConflictError {
  readonly eventId: string;
  readonly streamId: string;
  readonly reason: EventIdConflictReason;
  /** Where the stored event with this id lives. */
  readonly stored: { readonly streamId: string; readonly streamPosition: number };

  constructor(
    eventId: string,
    streamId: string,
    reason: EventIdConflictReason,
    stored: EventIdConflictError['stored'],
  ) {
    const what = reason === 'content_differs' ? 'with different content' : 'already';
    super(
      EVENT_STORE_ERROR_CODES.eventIdConflict,
      `event id "${eventId}" appended to stream "${streamId}" is ${what} stored in stream "${stored.streamId}" at position ${stored.streamPosition}`,
      { retryable: false },
    );
    this.eventId = eventId;
    this.streamId = streamId;
    this.reason = reason;
    this.stored = stored;
  }
}

/** Where the store tried to connect; never the password. */
export interface DatabaseTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
}

/** The database cannot be reached (refused, unknown host, no such database, auth failed, connection lost). */
export class StoreUnavailableError extends TransientError {
  readonly target: DatabaseTarget;

  constructor(target: DatabaseTarget, detail: string, options: { cause?: unknown } = {}) {
    super(
      EVENT_STORE_ERROR_CODES.storeUnavailable,
      `cannot reach the journal database "${target.database}" at ${target.host}:${target.port} as user "${target.user}": ${detail}`,
      options,
    );
    this.target = target;
  }
}

/**
 * PostgreSQL aborted the transaction to resolve a race: a deadlock, a serialization failure, or
 * an event id that a concurrent transaction stored first (a unique violation). The store retries
 * its own transactions, and the retry re-checks the stored events; inside a caller's transaction
 * this reaches the caller, who runs the whole transaction again to get that re-check.
 */
export class TransactionConflictError extends TransientError {
  readonly sqlState: string;

  constructor(sqlState: string, detail: string, options: { cause?: unknown } = {}) {
    super(
      EVENT_STORE_ERROR_CODES.transactionConflict,
      `the transaction lost a race and was rolled back (SQLSTATE ${sqlState}): ${detail}`,
      options,
    );
    this.sqlState = sqlState;
  }
}
