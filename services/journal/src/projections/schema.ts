import { type ColumnType, type Kysely, Migrator, type Migration, type MigrationProvider, sql } from 'kysely';
import { RloopError, describeError } from '@rloop/contracts';
import type { EventStoreTables } from '@rloop/event-store';

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
  };
  letters: {
    letter_id: string;
    plan: string;
    round: number;
    stream_position: number;
  };
  escalations: {
    escalation_id: string;
    plan: string;
    run_id: string;
    event_id: string;
    stream_position: number;
    raised_at: string;
  };
}

export type JournalTables = EventStoreTables & ProjectionTables;

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
};

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

/** Runs the journal's projection migrations (their own bookkeeping table, beside the store's). */
export async function migrateProjections(db: Kysely<EventStoreTables>): Promise<void> {
  const migrator = new Migrator({ db, provider, migrationTableName: 'rloop_journal_migrations', migrationLockTableName: 'rloop_journal_migrations_lock' });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new RloopError('JOURNAL.MIGRATION_FAILED', `journal projection migration ${failed} failed: ${describeError(error)}`, { cause: error });
  }
}

/** Empties the projection tables (a rebuild replays every event into them). */
export async function resetProjectionTables(db: Kysely<JournalTables>): Promise<void> {
  await db.deleteFrom('loop_states').execute();
  await db.deleteFrom('letters').execute();
  await db.deleteFrom('escalations').execute();
}
