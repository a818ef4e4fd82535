import 'reflect-metadata';
import { startObservedService } from '@rloop/observability';
import { describeError } from '@rloop/contracts';
import { GateModule } from './app.module.js';
import { loadGateConfig } from './config.js';

const config = await loadGateConfig().catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
await startObservedService({ name: 'gate', module: GateModule.forRoot(config), bus: config.bus, logFormat: config.logFormat, logLevel: config.logLevel, ops: config.ops });
