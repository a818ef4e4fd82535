import 'reflect-metadata';
import { startObservedService } from '@rloop/observability';
import { describeError } from '@rloop/contracts';
import { PanelModule } from './app.module.js';
import { loadPanelConfig } from './config.js';

const config = await loadPanelConfig().catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
// The panel counts loop outcomes and round durations from the committed feed (one service does, so nothing counts twice).
await startObservedService({ name: 'panel', module: PanelModule.forRoot(config), bus: config.bus, logFormat: config.logFormat, logLevel: config.logLevel, ops: config.ops, observe: { countCommitted: true } });
