import { RloopError } from '@rloop/contracts';
import { type EventStoreClient, createEventStore } from '@rloop/event-store';
import type { JournalConfig } from './config.js';
import { credentialsOf, isPermissionDenied, migrateAll, migrateJournal, pendingMigrations } from './migrations.js';
import { migrateProjections } from './projections/schema.js';

/**
 * Opens the journal's store. PGlite: migrated in place. PostgreSQL: with DATABASE_MIGRATION_URL,
 * the owner migrates and grants the runtime role first, and the journal then runs as DATABASE_URL's
 * role, which changes no schema; without it, DATABASE_URL's role is the owner and migrates as
 * before. A runtime role on a schema that needs migrations is a start error saying what to run.
 */
export async function openJournalStore(config: JournalConfig): Promise<EventStoreClient> {
  if ('pgliteDir' in config.store) {
    const embedded = await createEventStore({ pgliteDir: config.store.pgliteDir });
    try {
      await migrateProjections(embedded.db);
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
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
