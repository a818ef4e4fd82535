import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, parseEnvironment } from '@rloop/bus';
import { z } from 'zod';

const JournalEnvironment = CommonEnvironment.extend({
  /** PostgreSQL connection string; unset: an embedded PGlite journal under RLOOP_HOME/journal. */
  DATABASE_URL: z.string().min(1).optional(),
  /** Most events appended in one transaction (bigger batches, higher throughput). */
  RLOOP_JOURNAL_BATCH: z.coerce.number().int().min(1).max(5000).default(500),
});

export interface JournalConfig extends CommonSettings {
  readonly store: { readonly databaseUrl: string } | { readonly pgliteDir: string };
  readonly batchSize: number;
}

/** Parses the journal's environment once, at start. */
export function loadJournalConfig(env: NodeJS.ProcessEnv = process.env): JournalConfig {
  const parsed = parseEnvironment(JournalEnvironment, env, 'journal');
  const common = commonSettings(parsed);
  return Object.freeze({
    ...common,
    store: parsed.DATABASE_URL === undefined ? { pgliteDir: join(common.home, 'journal') } : { databaseUrl: parsed.DATABASE_URL },
    batchSize: parsed.RLOOP_JOURNAL_BATCH,
  });
}
