// The store's vocabulary. Global positions and transaction ids are PostgreSQL bigint/xid8 values,
// exposed as decimal strings so no reader ever rounds them through a double.

/** The expected state of a stream before an append. */
export type ExpectedVersion =
  /** The stream must not exist yet (same as version 0). */
  | 'no_stream'
  /** The stream must exist, at any version. */
  | 'stream_exists'
  /** No check. */
  | 'any'
  /** The stream must be at exactly this version (0 = does not exist). */
  | number;

/**
 * Envelope fields that describe the write rather than the fact. They are stored but are not part
 * of an event's content, so two replicas producing the same decision at different times agree.
 */
export interface EventMetadata {
  readonly occurred_at?: string;
  readonly producer?: string;
  readonly correlation_id?: string;
  readonly causation_id?: string | null;
  readonly [key: string]: unknown;
}

/** An event to append. Content = type + schemaVersion + data; metadata is not content. */
export interface NewEvent {
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  /** Any JSON value (stored as jsonb). */
  readonly data: unknown;
  readonly metadata?: EventMetadata;
}

/** A position in the global read order: the pair, because the pair is what never goes backwards. */
export interface Checkpoint {
  /** xid8 of the transaction that appended the event, as a decimal string. */
  readonly transactionId: string;
  /** bigint global position, as a decimal string. */
  readonly globalPosition: string;
}

export interface StoredEvent {
  readonly globalPosition: string;
  readonly transactionId: string;
  readonly streamId: string;
  /** 1 for the first event of a stream. */
  readonly streamPosition: number;
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly metadata: EventMetadata;
  /** When the appending transaction started (set by the database), ISO 8601. */
  readonly recordedAt: string;
}

export interface AppendOptions {
  readonly expectedVersion: ExpectedVersion;
}

/** Where one appended (or already stored) event sits. */
export interface AppendedEvent {
  readonly eventId: string;
  readonly streamPosition: number;
  readonly globalPosition: string;
  readonly transactionId: string;
  /** True when the event was already stored: these are its original positions and no row was added. */
  readonly duplicate: boolean;
}

export interface AppendResult {
  readonly streamId: string;
  /** The stream's version after this append: pass it as the next expectedVersion. */
  readonly version: number;
  /** One entry per input event, in input order. */
  readonly events: readonly AppendedEvent[];
}

export interface StreamAppend {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expectedVersion: ExpectedVersion;
}

export interface ReadStreamOptions {
  /** First stream position to return (inclusive); default 1. */
  readonly fromPosition?: number;
  readonly maxCount?: number;
}

export interface ReadAllResult {
  readonly events: readonly StoredEvent[];
  /** The checkpoint after the last returned event (the input checkpoint when nothing was returned). */
  readonly checkpoint: Checkpoint | null;
}
