// Least privilege in PostgreSQL: an owner migrates, the journal runs as a runtime role that may add
// to history and keep its projections, and nothing else — proven on the real server as each role.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DEFAULT_CONFIG_DIR, SYSTEM_CLOCK } from '@rloop/bus';
import { RloopError } from '@rloop/contracts';
import { type TestDatabase, createTestDatabase, eventually } from '@rloop/testing';
import { loadJournalConfig } from './config.js';
import { JOURNAL_RUNTIME_GRANTS, migrateJournal } from './migrations.js';
import { openJournalStore } from './open-store.js';
import { ProjectionCatchUp } from './projections/catch-up.js';
import { toNewEvent } from './projections/envelope.js';
import { loadLoopConfig } from './projections/loop-config.js';
import { envelopeFactory } from './testing/envelopes.test-helpers.js';

const JOURNAL_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const suffix = randomBytes(4).toString('hex');
const OWNER = `rloop_owner_${suffix}`;
const RUNTIME = `rloop_journal_${suffix}`;
const databases: TestDatabase[] = [];
const envelope = envelopeFactory({ idPrefix: '01JROLES', producer: 'roles-spec' });

function as(database: TestDatabase, role: string, password = ''): string {
  const url = new URL(database.url);
  url.username = role;
  url.password = password;
  return url.toString();
}

async function admin<T>(database: TestDatabase, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database whose public schema the owner role may create tables in (PostgreSQL 15 grants nobody that by default). */
async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase('rloop_roles');
  databases.push(database);
  await admin(database, async (c) => {
    await c.query(`GRANT CONNECT ON DATABASE "${database.name}" TO ${OWNER}`);
    await c.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${OWNER}`);
  });
  return database;
}

/** Runs SQL as the runtime role; resolves with PostgreSQL's error (code and message), or null. */
async function asRuntime(database: TestDatabase, statement: string): Promise<{ code: string; message: string } | null> {
  const client = new pg.Client({ connectionString: as(database, RUNTIME) });
  await client.connect();
  try {
    await client.query(statement);
    return null;
  } catch (error) {
    const e = error as { code?: string; message: string };
    return { code: e.code ?? '', message: e.message };
  } finally {
    await client.end();
  }
}

let database: TestDatabase;

beforeAll(async () => {
  const first = await createTestDatabase('rloop_roles');
  databases.push(first);
  // The owner may create roles (as the image's POSTGRES_USER can); it is no superuser.
  await admin(first, (c) => c.query(`CREATE ROLE ${OWNER} LOGIN CREATEROLE`));
  databases.pop();
  await first.drop();
  database = await freshDatabase();
}, 60_000);

afterAll(async () => {
  for (const d of databases) await d.drop();
  const cleanup = await createTestDatabase('rloop_roles_cleanup');
  await admin(cleanup, async (c) => {
    await c.query(`DROP ROLE IF EXISTS ${RUNTIME}`);
    await c.query(`DROP ROLE IF EXISTS ${OWNER}`);
  });
  await cleanup.drop();
}, 60_000);

describe('the journal’s two PostgreSQL roles', () => {
  it('migrates as the owner at start (DATABASE_MIGRATION_URL), creates the runtime role and grants it exactly the journal’s privileges', async () => {
    const config = loadJournalConfig({
      DATABASE_URL: as(database, RUNTIME, 'runtime-pw'),
      DATABASE_MIGRATION_URL: as(database, OWNER),
    });
    const store = await openJournalStore(config);
    await store.close();
    const granted = await admin(database, async (c) => {
      const { rows } = await c.query<{ table_name: string; privilege_type: string }>(
        `SELECT table_name, privilege_type FROM information_schema.role_table_grants WHERE grantee = $1 ORDER BY table_name, privilege_type`,
        [RUNTIME],
      );
      const byTable: Record<string, string[]> = {};
      for (const row of rows) (byTable[row.table_name] ??= []).push(row.privilege_type);
      return byTable;
    });
    const expected = Object.fromEntries(
      Object.entries(JOURNAL_RUNTIME_GRANTS)
        .filter(([, p]) => p.length > 0)
        .map(([t, p]) => [t, [...p].sort()]),
    );
    expect(granted).toEqual(expected);
    expect(granted['events']).toEqual(['INSERT', 'SELECT']);
    // Every table the migrations made is named in the grants (a new table must be given its privileges on purpose).
    const tables = await admin(database, async (c) =>
      (await c.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`)).rows.map(
        (r) => r.name,
      ),
    );
    expect(tables.filter((t) => !(t in JOURNAL_RUNTIME_GRANTS))).toEqual([]);
    const owners = await admin(database, async (c) =>
      (
        await c.query<{ owner: string }>(
          `SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'`,
        )
      ).rows.map((r) => r.owner),
    );
    expect(owners).toEqual([OWNER]);
  }, 60_000);

  it('runs the journal as the runtime role: it appends, reads, folds and rebuilds its projections', async () => {
    await migrateJournal(as(database, OWNER), as(database, RUNTIME, 'runtime-pw'));
    const store = await openJournalStore(loadJournalConfig({ DATABASE_URL: as(database, RUNTIME) }));
    try {
      const stopped = envelope('LoopStopped', 'roles-plan', '01JROLESRUN000000000000001', { by: 'spec' });
      const appended = await store.append('roles-plan', [toNewEvent(stopped)], { expectedVersion: 'no_stream' });
      expect(appended.version).toBe(1);
      expect(await store.readStream('roles-plan')).toHaveLength(1);
      const projections = new ProjectionCatchUp(store, SYSTEM_CLOCK, await loadLoopConfig(DEFAULT_CONFIG_DIR));
      // A rebuild replays what lies below the server-wide commit horizon; a transaction of another
      // test on this PostgreSQL can hold it back for a moment, so rebuild until the event is in.
      const replayed = await eventually(
        async () => {
          const n = await projections.rebuild();
          return n > 0 ? n : undefined;
        },
        { timeoutMs: 30_000, description: 'the event to be replayed into the projections' },
      );
      expect(replayed).toBe(1);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('cannot UPDATE, DELETE, TRUNCATE or ALTER the events table, nor disable or drop its triggers, nor create anything', async () => {
    await migrateJournal(as(database, OWNER), as(database, RUNTIME, 'runtime-pw'));
    const refused = {
      update: await asRuntime(database, `UPDATE events SET type = 'Forged'`),
      delete: await asRuntime(database, `DELETE FROM events`),
      truncate: await asRuntime(database, `TRUNCATE events`),
      alter: await asRuntime(database, `ALTER TABLE events ADD COLUMN forged text`),
      disableTrigger: await asRuntime(database, `ALTER TABLE events DISABLE TRIGGER events_append_only`),
      dropTrigger: await asRuntime(database, `DROP TRIGGER events_append_only ON events`),
      replicaMode: await asRuntime(database, `SET session_replication_role = replica`),
      createTable: await asRuntime(database, `CREATE TABLE shadow (x int)`),
      truncateStreams: await asRuntime(database, `TRUNCATE streams`),
    };
    // Refused for want of the privilege itself, not by the append-only trigger the owner would meet.
    expect(refused).toEqual({
      update: { code: '42501', message: 'permission denied for table events' },
      delete: { code: '42501', message: 'permission denied for table events' },
      truncate: { code: '42501', message: 'permission denied for table events' },
      alter: { code: '42501', message: 'must be owner of table events' },
      disableTrigger: { code: '42501', message: 'must be owner of table events' },
      dropTrigger: { code: '42501', message: 'must be owner of relation events' },
      replicaMode: { code: '42501', message: 'permission denied to set parameter "session_replication_role"' },
      createTable: { code: '42501', message: 'permission denied for schema public' },
      truncateStreams: { code: '42501', message: 'permission denied for table streams' },
    });
    expect(await asRuntime(database, `SELECT count(*) FROM events`)).toBeNull();
  }, 60_000);

  it('refuses to start as the runtime role on a schema that needs migrations, saying what to run', async () => {
    await migrateJournal(as(database, OWNER), as(database, RUNTIME, 'runtime-pw'));
    // The latest migration forgotten, as on a database the owner has not migrated since an upgrade.
    await admin(database, (c) =>
      c.query(`DELETE FROM rloop_journal_migrations WHERE name = '0004_runs_and_decisions'`),
    );
    const failed = await openJournalStore(loadJournalConfig({ DATABASE_URL: as(database, RUNTIME) })).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(RloopError);
    expect(failed).toMatchObject({
      code: 'JOURNAL.SCHEMA_BEHIND',
      message: expect.stringContaining('run `node services/journal/dist/main.js migrate` with DATABASE_MIGRATION_URL'),
    });
    await migrateJournal(as(database, OWNER), null);
  }, 60_000);

  it('`main.js migrate` migrates a new database as the owner and sets the runtime role up (the compose step)', async () => {
    const fresh = await freshDatabase();
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [JOURNAL_MAIN, 'migrate'], {
        env: {
          ...process.env,
          DATABASE_MIGRATION_URL: as(fresh, OWNER),
          DATABASE_URL: as(fresh, RUNTIME, 'runtime-pw'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (code) => resolve({ code, output }));
    });
    expect(result).toMatchObject({
      code: 0,
      output: expect.stringMatching(
        /applied store\/0001_initial_schema, .*journal\/0003_usage_indexes[\s\S]*runtime role rloop_journal_\w+ granted \d+ tables/,
      ),
    });
    expect(result.output).not.toContain('runtime-pw');
    expect(await asRuntime(fresh, `DELETE FROM events`)).toEqual({
      code: '42501',
      message: 'permission denied for table events',
    });
  }, 60_000);
});
