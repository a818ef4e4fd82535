// The journal's schema is changed by its owner only. `node services/journal/dist/main.js migrate`
// (or the journal at start, given DATABASE_MIGRATION_URL) runs every migration as the owner and
// grants the runtime role of DATABASE_URL exactly what the journal needs: it may add to history
// and keep its projections, but not rewrite, delete or truncate events, nor alter, disable or
// drop the triggers that guard them (it owns nothing).
import { type Kysely, sql } from 'kysely';
import { IllegalStateError, RloopError, describeError } from '@rloop/contracts';
import {
  EVENT_STORE_RUNTIME_GRANTS,
  type EventStoreTables,
  type TablePrivilege,
  createEventStore,
  migrateEventStore,
  pendingEventStoreMigrations,
} from '@rloop/event-store';
import { PROJECTION_RUNTIME_GRANTS, migrateProjections, pendingProjectionMigrations } from './projections/schema.js';

/** Every table the journal's runtime role may touch, and how. Tables not named here get nothing. */
export const JOURNAL_RUNTIME_GRANTS: Readonly<Record<string, readonly TablePrivilege[]>> = Object.freeze({
  ...EVENT_STORE_RUNTIME_GRANTS,
  ...PROJECTION_RUNTIME_GRANTS,
});

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The migrations (store and projections) this database has not run yet. Needs only SELECT. */
export async function pendingMigrations(db: Kysely<EventStoreTables>): Promise<string[]> {
  return [
    ...(await pendingEventStoreMigrations(db)).map((m) => `store/${m}`),
    ...(await pendingProjectionMigrations(db)).map((m) => `journal/${m}`),
  ];
}

/** Runs every migration; the role must be able to create tables (the owner). */
export async function migrateAll(db: Kysely<EventStoreTables>): Promise<void> {
  await migrateEventStore(db);
  await migrateProjections(db);
}

/** True when PostgreSQL refused for want of a privilege (SQLSTATE 42501), anywhere in the cause chain. */
export function isPermissionDenied(error: unknown): boolean {
  for (
    let e: unknown = error, depth = 0;
    e !== null && e !== undefined && depth < 6;
    e = (e as { cause?: unknown }).cause, depth += 1
  ) {
    if ((e as { code?: unknown }).code === '42501') return true;
  }
  return false;
}

/** The role (user) and password of a connection string, decoded. */
export function credentialsOf(url: string): { readonly user: string; readonly password: string } {
  const parsed = new URL(url);
  return { user: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) };
}

/** Runs one statement that `format()` built from a template and literal arguments (identifiers %I, literals %L). */
async function formatted(db: Kysely<EventStoreTables>, template: string, ...args: string[]): Promise<void> {
  // format() takes "any" arguments: typed, so PostgreSQL knows what the parameters are.
  const values = args.map((a) => sql`${a}::text`);
  const built = await sql<{
    statement: string;
  }>`SELECT format(${template}::text, ${sql.join(values)}) AS statement`.execute(db);
  const statement = built.rows[0]?.statement;
  if (statement === undefined) throw new IllegalStateError('JOURNAL.GRANT_FAILED', `could not build ${template}`);
  await sql.raw(statement).execute(db);
}

export interface RuntimeRoleReport {
  readonly role: string;
  readonly created: boolean;
  readonly tables: readonly string[];
}

/**
 * Creates the runtime role if it is missing (LOGIN, with `password`; needs CREATEROLE), then
 * replaces its table privileges in the public schema with JOURNAL_RUNTIME_GRANTS and lets it
 * connect and use the schema. Run as the owner, after the migrations.
 */
export async function grantRuntimeRole(
  db: Kysely<EventStoreTables>,
  role: string,
  password: string,
): Promise<RuntimeRoleReport> {
  if (!ROLE_NAME.test(role))
    throw new RloopError(
      'JOURNAL.GRANT_FAILED',
      `the runtime role ${JSON.stringify(role)} is not a plain PostgreSQL name ([a-z_][a-z0-9_]*)`,
    );
  const exists = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_roles WHERE rolname = ${role}`.execute(db);
  const created = (exists.rows[0]?.n ?? 0) === 0;
  try {
    if (created) {
      if (password === '') await formatted(db, 'CREATE ROLE %I LOGIN', role);
      else await formatted(db, 'CREATE ROLE %I LOGIN PASSWORD %L', role, password);
    }
    await formatted(db, 'GRANT CONNECT ON DATABASE %I TO %I', await currentDatabase(db), role);
    await formatted(db, 'GRANT USAGE ON SCHEMA public TO %I', role);
    await formatted(db, 'REVOKE ALL ON ALL TABLES IN SCHEMA public FROM %I', role);
    const present = new Set(
      (
        await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`.execute(db)
      ).rows.map((r) => r.name),
    );
    const tables: string[] = [];
    for (const [table, privileges] of Object.entries(JOURNAL_RUNTIME_GRANTS)) {
      if (privileges.length === 0 || !present.has(table)) continue;
      // The privileges come from the typed constant above, never from input.
      await formatted(db, `GRANT ${privileges.join(', ')} ON TABLE %I TO %I`, table, role);
      tables.push(table);
    }
    return { role, created, tables };
  } catch (error) {
    const hint =
      created && isPermissionDenied(error)
        ? ` — the owner may not create roles: create it by hand (CREATE ROLE ${role} LOGIN PASSWORD '…') and run this again`
        : '';
    throw new RloopError(
      'JOURNAL.GRANT_FAILED',
      `could not set up the runtime role ${role}: ${describeError(error)}${hint}`,
      { cause: error },
    );
  }
}

async function currentDatabase(db: Kysely<EventStoreTables>): Promise<string> {
  return (await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)).rows[0]?.name ?? '';
}

export interface MigrationReport {
  readonly applied: readonly string[];
  readonly runtimeRole: RuntimeRoleReport | null;
}

/**
 * Migrates the journal's database as the owner (`migrationUrl`) and, when `runtimeUrl` names
 * another role, sets that role up (created if missing, granted the journal's runtime privileges).
 */
export async function migrateJournal(migrationUrl: string, runtimeUrl: string | null): Promise<MigrationReport> {
  const store = await createEventStore({ databaseUrl: migrationUrl, migrate: false });
  try {
    const applied = await pendingMigrations(store.db);
    await migrateAll(store.db);
    const owner = credentialsOf(migrationUrl).user;
    const runtime = runtimeUrl === null ? null : credentialsOf(runtimeUrl);
    const runtimeRole =
      runtime === null || runtime.user === owner || runtime.user === ''
        ? null
        : await grantRuntimeRole(store.db, runtime.user, runtime.password);
    return { applied, runtimeRole };
  } finally {
    await store.close();
  }
}
