import 'reflect-metadata';
import { startService } from '@rloop/bus';
import { describeError } from '@rloop/contracts';
import { PanelModule } from './app.module.js';
import { loadPanelConfig } from './config.js';

const config = await loadPanelConfig().catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
await startService({ name: 'panel', module: PanelModule.forRoot(config), bus: config.bus, logFormat: config.logFormat });
