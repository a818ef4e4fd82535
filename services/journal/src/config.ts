import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, parseEnvironment } from '@rloop/bus';
import { ValidationError } from '@rloop/contracts';
import { z } from 'zod';

const JournalEnvironment = CommonEnvironment.extend({
  /** PostgreSQL connection string; unset: an embedded PGlite journal under RLOOP_HOME/journal. */
  DATABASE_URL: z.string().min(1).optional(),
  /** The owner's connection string: migrations run as it, and DATABASE_URL's role is granted the runtime privileges. */
  DATABASE_MIGRATION_URL: z.string().min(1).optional(),
  /** Most events appended in one transaction (bigger batches, higher throughput). */
  RLOOP_JOURNAL_BATCH: z.coerce.number().int().min(1).max(5000).default(500),
});

export interface JournalConfig extends CommonSettings {
  /** PostgreSQL (with the owner's URL for migrations, when given) or PGlite. */
  readonly store:
    { readonly databaseUrl: string; readonly migrationUrl: string | null } | { readonly pgliteDir: string };
  readonly batchSize: number;
}

function storeOf(env: z.infer<typeof JournalEnvironment>, home: string): JournalConfig['store'] {
  if (env.DATABASE_URL === undefined) {
    if (env.DATABASE_MIGRATION_URL !== undefined) {
      throw new ValidationError(
        'CONFIG.INVALID_ENVIRONMENT',
        'journal: bad environment: DATABASE_MIGRATION_URL: needs DATABASE_URL (the role the journal runs as)',
        [{ path: 'DATABASE_MIGRATION_URL', message: 'needs DATABASE_URL' }],
      );
    }
    return { pgliteDir: join(home, 'journal') };
  }
  return { databaseUrl: env.DATABASE_URL, migrationUrl: env.DATABASE_MIGRATION_URL ?? null };
}

/** Parses the journal's environment once, at start. */
export function loadJournalConfig(env: NodeJS.ProcessEnv = process.env): JournalConfig {
  const parsed = parseEnvironment(JournalEnvironment, env, 'journal');
  const common = commonSettings(parsed, 'journal');
  return Object.freeze({
    ...common,
    store: storeOf(parsed, common.home),
    batchSize: parsed.RLOOP_JOURNAL_BATCH,
  });
}
