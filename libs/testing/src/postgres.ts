import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { TEST_POSTGRES_ADMIN_URL } from './environment.js';

export interface TestDatabase {
  /** Connection string of the fresh database. */
  readonly url: string;
  readonly name: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database for one spec file on the real PostgreSQL server. */
export async function createTestDatabase(prefix = 'rloop_t'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(TEST_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
