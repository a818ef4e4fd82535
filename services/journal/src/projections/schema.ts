import { type ColumnType, type Kysely, Migrator, type Migration, type MigrationProvider, sql } from 'kysely';
import { RloopError, describeError } from '@rloop/contracts';
import type { EventStoreTables, TablePrivilege } from '@rloop/event-store';

/** The journal's projection tables (rebuildable from the events at any time). */
export interface ProjectionTables {
  loop_states: {
    plan: string;
    run_id: string | null;
    status: string;
    phase: string | null;
    round: number;
    /** The folded LoopState (libs/domain). */
    state: ColumnType<unknown, string, string>;
    version: number;
    findings_open: number | null;
    spend_usd: ColumnType<string, string | number, string | number>;
    updated_at: string | null;
    /** The journal stream of the current run (`<plan>/<run>`, or the plan for runs of older journals). */
    stream_id: string | null;
  };
  letters: {
    letter_id: string;
    plan: string;
    round: number;
    stream_position: number;
    stream_id: string | null;
  };
  escalations: {
    escalation_id: string;
    plan: string;
    run_id: string;
    event_id: string;
    stream_position: number;
    raised_at: string;
    stream_id: string | null;
  };
}

/** The journal's own records beside the projections (not rebuilt from events). */
export interface JournalRecordTables {
  /** Decisions the journal refused because the run's state had changed since they were made (deciders decided again). */
  refused_decisions: {
    event_id: string;
    expected_version: number;
    plan: string;
    run_id: string;
    type: string;
    actual_version: number;
    reason: string;
    producer: string;
    refused_at: ColumnType<string, string | undefined, never>;
  };
  /** Replays of the projections a migration asked for (the journal does them at its next start, then forgets them). */
  projection_replays: {
    reason: string;
    requested_at: ColumnType<string, string | undefined, never>;
  };
  /** This database's journal: created once, bound to the NATS namespace it serves. */
  journal_identity: {
    journal_id: string;
    created_at: string;
    namespace: string | null;
  };
}

/** The loop-memory projections (heuristics, round history, runs, learnings). */
export interface LoopMemoryTables {
  /** Each plan's loop memory (libs/domain LoopMemory): trackers and the round at hand, bounded. */
  loop_memory: {
    plan: string;
    run_id: string | null;
    memory: ColumnType<unknown, string, string>;
    version: number;
  };
  round_history: {
    run_id: string;
    round: number;
    plan: string;
    phase: string;
    started_at: string;
    key_moment: string | null;
    row: ColumnType<unknown, string, string>;
  };
  runs: {
    run_id: string;
    plan: string;
    started_at: string;
    status: string;
    summary: ColumnType<unknown, string, string>;
  };
  learnings: {
    critic_id: string;
    finding_type: string;
    loops: number;
    rounds_seen: number;
    fixed: number;
    stuck: number;
    example_title: string;
    last_seen_at: string;
    recent_plans: ColumnType<unknown, string, string>;
  };
  /**
   * The journaled LoopDetected events (status `journaled`). Journals before the loop-detection
   * reactor also kept the detections their projection made here (`pending`, `stale`).
   */
  loop_detections: {
    event_id: string;
    plan: string;
    run_id: string;
    round: number;
    heuristic: string;
    detection: ColumnType<unknown, string, string>;
    status: string;
    stream_position: number | null;
  };
}

export type JournalTables = EventStoreTables & ProjectionTables & LoopMemoryTables & JournalRecordTables;

const MIGRATIONS: Record<string, readonly string[]> = {
  '0001_projections': [
    `CREATE TABLE loop_states (
       plan text PRIMARY KEY,
       run_id text,
       status text NOT NULL,
       phase text,
       round integer NOT NULL DEFAULT 0,
       state jsonb NOT NULL,
       version integer NOT NULL,
       findings_open integer,
       spend_usd numeric NOT NULL DEFAULT 0,
       updated_at text
     )`,
    `CREATE TABLE letters (
       letter_id text PRIMARY KEY,
       plan text NOT NULL,
       round integer NOT NULL,
       stream_position integer NOT NULL
     )`,
    `CREATE TABLE escalations (
       escalation_id text PRIMARY KEY,
       plan text NOT NULL,
       run_id text NOT NULL,
       event_id text NOT NULL,
       stream_position integer NOT NULL,
       raised_at text NOT NULL
     )`,
    `CREATE INDEX escalations_raised_idx ON escalations (raised_at DESC)`,
  ],
  '0002_loop_memory': [
    `CREATE TABLE loop_memory (
       plan text PRIMARY KEY,
       run_id text,
       memory jsonb NOT NULL,
       version integer NOT NULL
     )`,
    `CREATE TABLE round_history (
       run_id text NOT NULL,
       round integer NOT NULL,
       plan text NOT NULL,
       phase text NOT NULL,
       started_at text NOT NULL,
       key_moment text,
       row jsonb NOT NULL,
       PRIMARY KEY (run_id, round)
     )`,
    `CREATE INDEX round_history_plan_idx ON round_history (plan, run_id, round)`,
    `CREATE TABLE runs (
       run_id text PRIMARY KEY,
       plan text NOT NULL,
       started_at text NOT NULL,
       status text NOT NULL,
       summary jsonb NOT NULL
     )`,
    `CREATE INDEX runs_started_idx ON runs (started_at DESC)`,
    `CREATE TABLE learnings (
       critic_id text NOT NULL,
       finding_type text NOT NULL,
       loops integer NOT NULL,
       rounds_seen integer NOT NULL,
       fixed integer NOT NULL,
       stuck integer NOT NULL,
       example_title text NOT NULL,
       last_seen_at text NOT NULL,
       recent_plans jsonb NOT NULL,
       PRIMARY KEY (critic_id, finding_type)
     )`,
    `CREATE TABLE loop_detections (
       event_id text PRIMARY KEY,
       plan text NOT NULL,
       run_id text NOT NULL,
       round integer NOT NULL,
       heuristic text NOT NULL,
       detection jsonb NOT NULL,
       status text NOT NULL,
       stream_position integer
     )`,
    `CREATE INDEX loop_detections_pending_idx ON loop_detections (plan) WHERE status = 'pending'`,
    // The new projections need the whole history: replay every event into all of them (the
    // loop states too, whose shape gained the pending detections and the best round).
    `DELETE FROM loop_states`,
    `DELETE FROM letters`,
    `DELETE FROM escalations`,
    `DELETE FROM subscription_checkpoints WHERE name = 'journal-projections'`,
  ],
  // Partial indexes over the UsageRecorded rows of the events table, so a spend query reads only
  // those rows however long the journal grows. Made by the owner here: the runtime role may not
  // create indexes. IF NOT EXISTS: journals before this migration made them at start.
  '0003_usage_indexes': [
    `CREATE INDEX IF NOT EXISTS events_usage_stream_idx ON events (stream_id) WHERE type = 'UsageRecorded'`,
    `CREATE INDEX IF NOT EXISTS events_usage_recorded_idx ON events (recorded_at) WHERE type = 'UsageRecorded'`,
  ],
  // One stream per run, decisions checked against the state they were made on: the loop states
  // gained what the check needs (where they last changed), so the projections are replayed.
  // Idempotent, like 0003: running it again changes nothing.
  '0004_runs_and_decisions': [
    `ALTER TABLE loop_states ADD COLUMN IF NOT EXISTS stream_id text`,
    `ALTER TABLE letters ADD COLUMN IF NOT EXISTS stream_id text`,
    `ALTER TABLE escalations ADD COLUMN IF NOT EXISTS stream_id text`,
    `CREATE TABLE IF NOT EXISTS refused_decisions (
       event_id text NOT NULL,
       expected_version integer NOT NULL,
       plan text NOT NULL,
       run_id text NOT NULL,
       type text NOT NULL,
       actual_version integer NOT NULL,
       reason text NOT NULL,
       producer text NOT NULL,
       refused_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (event_id, expected_version)
     )`,
    `CREATE TABLE IF NOT EXISTS journal_identity (
       journal_id text PRIMARY KEY,
       created_at text NOT NULL,
       namespace text
     )`,
    // The journal replays its projections at its next start (whoever ran this migration).
    `CREATE TABLE IF NOT EXISTS projection_replays (reason text PRIMARY KEY, requested_at timestamptz NOT NULL DEFAULT now())`,
    `INSERT INTO projection_replays (reason) VALUES ('0004_runs_and_decisions') ON CONFLICT DO NOTHING`,
  ],
};

const PROJECTION_MIGRATION_TABLE = 'rloop_journal_migrations';
const PROJECTION_MIGRATION_LOCK_TABLE = 'rloop_journal_migrations_lock';

const provider: MigrationProvider = {
  getMigrations: () =>
    Promise.resolve(
      Object.fromEntries(
        Object.entries(MIGRATIONS).map(([name, statements]) => [
          name,
          {
            // kysely's Migration interface takes a Kysely<any>: the statements touch only our tables.
            up: async (db: Kysely<unknown>) => {
              for (const statement of statements) await sql.raw(statement).execute(db);
            },
          } satisfies Migration,
        ]),
      ),
    ),
};

function projectionMigrator(db: Kysely<EventStoreTables>): Migrator {
  return new Migrator({
    db,
    provider,
    migrationTableName: PROJECTION_MIGRATION_TABLE,
    migrationLockTableName: PROJECTION_MIGRATION_LOCK_TABLE,
  });
}

/** The projection migrations this database has not run yet (read-only). */
export async function pendingProjectionMigrations(db: Kysely<EventStoreTables>): Promise<string[]> {
  return (await projectionMigrator(db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * What the journal's runtime role needs on its own tables: the projections are written, rebuilt
 * and reset (DELETE, never TRUNCATE); the migration bookkeeping is only read. A table a migration
 * adds must be named here (a test compares this with the tables the migrations create).
 */
export const PROJECTION_RUNTIME_GRANTS: Readonly<Record<string, readonly TablePrivilege[]>> = Object.freeze({
  loop_states: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  letters: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  escalations: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  loop_memory: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  round_history: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  runs: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  learnings: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  loop_detections: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  // The journal's own records: refusals are only added, its identity is made once and names its namespace, a requested replay is done once.
  refused_decisions: ['SELECT', 'INSERT'],
  journal_identity: ['SELECT', 'INSERT', 'UPDATE'],
  projection_replays: ['SELECT', 'DELETE'],
  [PROJECTION_MIGRATION_TABLE]: ['SELECT'],
  [PROJECTION_MIGRATION_LOCK_TABLE]: [],
});

/** Runs the journal's projection migrations (their own bookkeeping table, beside the store's). */
export async function migrateProjections(db: Kysely<EventStoreTables>): Promise<void> {
  const { error, results } = await projectionMigrator(db).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new RloopError(
      'JOURNAL.MIGRATION_FAILED',
      `journal projection migration ${failed} failed: ${describeError(error)}`,
      { cause: error },
    );
  }
}

/** Empties the projection tables (a rebuild replays every event into them). */
export async function resetProjectionTables(db: Kysely<JournalTables>): Promise<void> {
  await db.deleteFrom('loop_states').execute();
  await db.deleteFrom('letters').execute();
  await db.deleteFrom('escalations').execute();
  await db.deleteFrom('loop_memory').execute();
  await db.deleteFrom('round_history').execute();
  await db.deleteFrom('runs').execute();
  await db.deleteFrom('learnings').execute();
  await db.deleteFrom('loop_detections').execute();
}

/** The projection tables a rebuild recreates (for `journal.rebuild` and the equality check). */
export const PROJECTION_TABLES = [
  'loop_states',
  'letters',
  'escalations',
  'loop_memory',
  'round_history',
  'runs',
  'learnings',
  'loop_detections',
] as const;
