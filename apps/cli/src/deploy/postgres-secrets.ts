// Fresh PostgreSQL credentials for docker-compose.yml: the owner that runs the journal's
// migrations, and the journal's runtime role (`rloop deploy postgres-secrets`).
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface PostgresSecretsOptions {
  readonly out: string;
  readonly host: string;
  readonly database: string;
  readonly owner: string;
  readonly runtimeRole: string;
  readonly force: boolean;
}

export interface GeneratedPostgresSecrets {
  /** POSTGRES_PASSWORD_FILE of the postgres container (the owner's password). */
  readonly ownerPassword: string;
  /** env_file of the journal: DATABASE_URL as the runtime role. */
  readonly journalEnv: string;
  /** env_file of the migration step: DATABASE_MIGRATION_URL as the owner, and DATABASE_URL to name the runtime role. */
  readonly migrateEnv: string;
}

function password(): string {
  // URL-safe, so it goes into a connection string as it is.
  return randomBytes(24).toString('base64url');
}

async function writeSecret(path: string, content: string): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  await chmod(path, 0o600);
}

/** Writes `<out>/secrets/postgres/{owner-password,journal.env,migrate.env}` (0600); refuses to replace them unless `force`. */
export async function writePostgresSecrets(options: PostgresSecretsOptions): Promise<GeneratedPostgresSecrets> {
  const dir = join(resolve(options.out), 'secrets', 'postgres');
  const exists = await stat(dir).then(
    () => true,
    () => false,
  );
  if (exists && !options.force)
    throw new Error(
      `${dir} exists: the database was initialised with these passwords; pass --force to write new ones (and change them in PostgreSQL too)`,
    );
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ownerPassword = password();
  const runtimePassword = password();
  const at = `${options.host}:5432/${options.database}`;
  const runtimeUrl = `postgres://${options.runtimeRole}:${runtimePassword}@${at}`;
  const paths: GeneratedPostgresSecrets = {
    ownerPassword: join(dir, 'owner-password'),
    journalEnv: join(dir, 'journal.env'),
    migrateEnv: join(dir, 'migrate.env'),
  };
  await writeSecret(paths.ownerPassword, `${ownerPassword}\n`);
  await writeSecret(
    paths.journalEnv,
    [
      '# The journal service: the runtime role (SELECT/INSERT on events, its projections; no DDL).',
      `DATABASE_URL=${runtimeUrl}`,
      '',
    ].join('\n'),
  );
  await writeSecret(
    paths.migrateEnv,
    [
      '# `node services/journal/dist/main.js migrate`: migrations as the owner, then the runtime role created (if missing) and granted.',
      `DATABASE_MIGRATION_URL=postgres://${options.owner}:${ownerPassword}@${at}`,
      `DATABASE_URL=${runtimeUrl}`,
      '',
    ].join('\n'),
  );
  return paths;
}
