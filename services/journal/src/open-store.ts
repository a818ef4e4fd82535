import { type EventStoreClient, createEventStore } from '@rloop/event-store';
import type { JournalConfig } from './config.js';
import { migrateProjections } from './projections/schema.js';

/** Opens the journal's store (PostgreSQL or embedded PGlite) and runs every migration. */
export async function openJournalStore(config: JournalConfig): Promise<EventStoreClient> {
  const store = await createEventStore(config.store);
  try {
    await migrateProjections(store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
