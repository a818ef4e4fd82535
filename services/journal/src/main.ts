import 'reflect-metadata';
import { SYSTEM_CLOCK } from '@rloop/bus';
import { FleetMetrics, bootstrapService, exitOnStartFailure, loadConfigOrExit } from '@rloop/observability';
import { observeAppends } from './append-metrics.js';
import { JournalModule } from './app.module.js';
import { loadJournalConfig } from './config.js';
import { migrateJournal } from './migrations.js';
import { openJournalStore } from './open-store.js';
import { ProjectionCatchUp } from './projections/catch-up.js';
import { loadLoopConfig } from './projections/loop-config.js';

const config = await loadConfigOrExit('journal', loadJournalConfig);
const fail = (error: unknown): never => exitOnStartFailure('journal', error);

if (process.argv[2] === 'migrate') {
  // `node services/journal/dist/main.js migrate`: the schema as the owner (DATABASE_MIGRATION_URL, else
  // DATABASE_URL), then DATABASE_URL's role set up with the journal's runtime privileges; then exit.
  if ('pgliteDir' in config.store) {
    await (await openJournalStore(config).catch(fail)).close();
    process.stdout.write(`journal: the embedded journal under ${config.store.pgliteDir} is migrated\n`);
    process.exit(0);
  }
  const { databaseUrl, migrationUrl } = config.store;
  const report = await migrateJournal(migrationUrl ?? databaseUrl, migrationUrl === null ? null : databaseUrl).catch(
    fail,
  );
  process.stdout.write(
    `journal: ${report.applied.length === 0 ? 'the schema was up to date' : `applied ${report.applied.join(', ')}`}\n`,
  );
  if (report.runtimeRole !== null) {
    process.stdout.write(
      `journal: runtime role ${report.runtimeRole.role}${report.runtimeRole.created ? ' created and' : ''} granted ${report.runtimeRole.tables.length} tables (SELECT/INSERT on events; no UPDATE, DELETE or TRUNCATE; owns nothing)\n`,
    );
  }
  process.exit(0);
}
const store = await openJournalStore(config, (line) => process.stdout.write(`${line}\n`)).catch(fail);
if (process.argv[2] === 'rebuild') {
  // `node services/journal/dist/main.js rebuild`: replay every event into the projections, then exit.
  const loopConfig = await loadLoopConfig(config.configDir).catch(fail);
  const replayed = await new ProjectionCatchUp(store, SYSTEM_CLOCK, loopConfig).rebuild().catch(fail);
  await store.close();
  process.stdout.write(`journal: rebuilt the projections from ${replayed} events\n`);
  process.exit(0);
}
// Append latency and batch size are measured around the store's transactions, in the service's registry.
const metrics = new FleetMetrics('journal', { journal: true });
await bootstrapService({
  name: 'journal',
  loadConfig: () => config,
  module: () => JournalModule.forRoot(config, observeAppends(store, metrics)),
  extras: () => ({ metrics }),
});
