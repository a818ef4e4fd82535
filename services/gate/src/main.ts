import 'reflect-metadata';
import { startService } from '@rloop/bus';
import { describeError } from '@rloop/contracts';
import { GateModule } from './app.module.js';
import { loadGateConfig } from './config.js';

const config = await loadGateConfig().catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
await startService({ name: 'gate', module: GateModule.forRoot(config), bus: config.bus, logFormat: config.logFormat });
