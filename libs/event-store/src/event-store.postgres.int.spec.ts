// The functional suite against the real PostgreSQL, in a fresh database.
import { createTestDatabase } from '@rloop/testing';
import { createEventStore } from './index.js';
import { describeFunctionalSuite } from './__fixtures__/functional-suite.js';

describeFunctionalSuite('PostgreSQL', async () => {
  const database = await createTestDatabase('rloop_es');
  const store = await createEventStore({ databaseUrl: database.url });
  return {
    store,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
});
