import { SYSTEM_CLOCK } from '@rloop/bus';
import type { Kysely } from 'kysely';
import { RloopError } from '@rloop/contracts';
import { type EventStoreClient, createEventStore } from '@rloop/event-store';
import type { JournalConfig } from './config.js';
import { credentialsOf, isPermissionDenied, migrateAll, migrateJournal, pendingMigrations } from './migrations.js';
import { ProjectionCatchUp } from './projections/catch-up.js';
import { loadLoopConfig } from './projections/loop-config.js';
import { type JournalTables, migrateProjections } from './projections/schema.js';

/**
 * Opens the journal's store. PGlite: migrated in place. PostgreSQL: with DATABASE_MIGRATION_URL,
 * the owner migrates and grants the runtime role first, and the journal then runs as DATABASE_URL's
 * role, which changes no schema; without it, DATABASE_URL's role is the owner and migrates as
 * before. A runtime role on a schema that needs migrations is a start error saying what to run.
 * A migration that changed what the projections hold asks for a replay (projection_replays): it is
 * done here, before the journal serves anyone.
 */
export async function openJournalStore(
  config: JournalConfig,
  log: (line: string) => void = () => undefined,
): Promise<EventStoreClient> {
  if ('pgliteDir' in config.store) {
    const embedded = await createEventStore({ pgliteDir: config.store.pgliteDir });
    try {
      await migrateProjections(embedded.db);
      await replayIfAsked(embedded, config, log);
    } catch (error) {
      await embedded.close();
      throw error;
    }
    return embedded;
  }
  const { databaseUrl, migrationUrl } = config.store;
  if (migrationUrl !== null) await migrateJournal(migrationUrl, databaseUrl);
  const store = await createEventStore({ databaseUrl, migrate: false });
  try {
    const pending = await pendingMigrations(store.db);
    if (pending.length > 0) {
      try {
        await migrateAll(store.db);
      } catch (error) {
        if (!isPermissionDenied(error)) throw error;
        throw new RloopError(
          'JOURNAL.SCHEMA_BEHIND',
          `the journal's database needs migrations (${pending.join(', ')}) that ${credentialsOf(databaseUrl).user} may not run: run \`node services/journal/dist/main.js migrate\` with DATABASE_MIGRATION_URL set to the owner's connection (docs/security.md#the-journals-database)`,
          { cause: error },
        );
      }
    }
    await replayIfAsked(store, config, log);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** Replays the projections from the events when a migration asked for it, then forgets the request. */
async function replayIfAsked(
  store: EventStoreClient,
  config: JournalConfig,
  log: (line: string) => void,
): Promise<void> {
  const db = store.db as unknown as Kysely<JournalTables>;
  const asked = await db.selectFrom('projection_replays').select(['reason']).execute();
  if (asked.length === 0) return;
  const replayed = await new ProjectionCatchUp(store, SYSTEM_CLOCK, await loadLoopConfig(config.configDir)).rebuild();
  await db
    .deleteFrom('projection_replays')
    .where(
      'reason',
      'in',
      asked.map((r) => r.reason),
    )
    .execute();
  if (replayed > 0)
    log(
      `journal: the projections changed shape (${asked.map((r) => r.reason).join(', ')}); replayed ${replayed} events into them`,
    );
}
