// The journal's append-only event store on PostgreSQL (kysely + pg) or embedded PGlite.
export {
  createEventStore,
  type EventStore,
  type EventStoreTransaction,
  type EventStoreClient,
  type EventStoreOptions,
  type PostgresStoreOptions,
  type PGliteStoreOptions,
  type InMemoryStoreOptions,
  type SubscriptionHandler,
  type CatchUpOptions,
  type CatchUpResult,
  type WaitForCommitOptions,
} from './event-store.js';
export {
  EVENT_STORE_ERROR_CODES,
  VersionConflictError,
  EventIdConflictError,
  EVENT_ID_CONFLICT_REASONS,
  type EventIdConflictReason,
  StoreUnavailableError,
  TransactionConflictError,
  type DatabaseTarget,
} from './errors.js';
export {
  migrateEventStore,
  pendingEventStoreMigrations,
  EVENT_STORE_RUNTIME_GRANTS,
  STORE_MIGRATION_TABLE,
  STORE_MIGRATION_LOCK_TABLE,
  COMMIT_CHANNEL,
  type EventStoreTables,
  type TablePrivilege,
} from './schema.js';
export type { WakeReason } from './notifier.js';
export type {
  ExpectedVersion,
  EventMetadata,
  NewEvent,
  Checkpoint,
  StoredEvent,
  AppendOptions,
  AppendedEvent,
  AppendResult,
  StreamAppend,
  ReadStreamOptions,
} from './types.js';
