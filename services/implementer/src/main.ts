import 'reflect-metadata';
import { startObservedService } from '@rloop/observability';
import { describeError } from '@rloop/contracts';
import { redactSecrets } from '@rloop/llm';
import { ImplementerModule } from './app.module.js';
import { type ImplementerConfig, loadImplementerConfig } from './config.js';

let config: ImplementerConfig;
try {
  config = await loadImplementerConfig();
} catch (error) {
  process.stderr.write(`${redactSecrets(describeError(error))}\n`);
  process.exit(1);
}
await startObservedService({ name: 'implementer', module: ImplementerModule.forRoot(config), bus: config.bus, logFormat: config.logFormat, logLevel: config.logLevel, ops: config.ops });
