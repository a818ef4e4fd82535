import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ServiceLogger, nestLevelsFrom } from '@rloop/bus';
import { startObservedService } from '@rloop/observability';
import { describeError } from '@rloop/contracts';
import { stopOnSignals } from '@rloop/critic-sdk';
import { redactSecrets } from '@rloop/llm';
import { CriticRunnerModule } from './app.module.js';
import { loadCriticRunnerConfig } from './config.js';
import { hostedCritics } from './hosted-critics.js';
import { LlmCriticHost } from './llm/llm-critics.js';
import { HostedCriticsPresence } from './registry/hosted-presence.js';
import { loadRegistrySettings } from './registry/registry-config.js';
import { RecordedCoverageStore } from './rounds/recorded-coverage.js';

async function loadSettings() {
  return { config: await loadCriticRunnerConfig(), registry: loadRegistrySettings() };
}

const { config, registry } = await loadSettings().catch((error: unknown) => {
  process.stderr.write(`${redactSecrets(describeError(error))}\n`);
  process.exit(1);
});
const logger = new ServiceLogger('critic-runner', { format: config.logFormat, levels: nestLevelsFrom(config.logLevel) });
const anthropicLog = new Logger('Anthropic');
// With ANTHROPIC_API_KEY the LLM critics are hosted (and registered) beside the built-in ones.
const llm = config.anthropic === null ? null : new LlmCriticHost(config.anthropic, config.catalogue, { warn: (m) => anthropicLog.warn(m), info: (m) => anthropicLog.log(m) });
// What the plan's test runs recorded, shared by the rounds controller (fills it) and quality/test-coverage (reads it).
const coverage = new RecordedCoverageStore();
const service = await startObservedService({
  name: 'critic-runner',
  logFormat: config.logFormat,
  logLevel: config.logLevel,
  ops: config.ops,
  module: CriticRunnerModule.forRoot(config, hostedCritics(config, llm, coverage), registry, llm, coverage),
  bus: { ...config.bus, consumer: { concurrency: config.roundConcurrency } },
  logger,
  // The runner leaves the registry before it stops pulling, so the panel stops dispatching to it first.
  handleSignals: false,
});
stopOnSignals(
  'critic-runner',
  async () => {
    await service.app.get(HostedCriticsPresence).withdraw();
    await service.stop();
  },
  logger,
);
