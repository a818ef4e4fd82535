import 'reflect-metadata';
import { redactSecrets } from '@rloop/llm';
import { bootstrapService } from '@rloop/observability';
import { ImplementerModule } from './app.module.js';
import { loadImplementerConfig } from './config.js';

await bootstrapService({
  name: 'implementer',
  loadConfig: loadImplementerConfig,
  module: (config) => ImplementerModule.forRoot(config),
  redact: redactSecrets,
});
