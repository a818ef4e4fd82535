import 'reflect-metadata';
import { startService } from '@rloop/bus';
import { describeError } from '@rloop/contracts';
import { CriticRunnerModule } from './app.module.js';
import { loadCriticRunnerConfig } from './config.js';
import { hostedCritics } from './hosted-critics.js';

const config = await loadCriticRunnerConfig().catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
await startService({
  name: 'critic-runner',
  module: CriticRunnerModule.forRoot(config, hostedCritics(config)),
  bus: { ...config.bus, consumer: { concurrency: config.roundConcurrency } },
  logFormat: config.logFormat,
});
