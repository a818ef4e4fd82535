import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { stopOnSignals } from '@rloop/critic-sdk';
import { redactSecrets } from '@rloop/llm';
import { bootstrapService, loadConfigOrExit } from '@rloop/observability';
import { CriticRunnerModule } from './app.module.js';
import { loadCriticRunnerConfig } from './config.js';
import { hostedCritics } from './hosted-critics.js';
import { LlmCriticHost } from './llm/llm-critics.js';
import { HostedCriticsPresence } from './registry/hosted-presence.js';
import { loadRegistrySettings } from './registry/registry-config.js';
import { RecordedCoverageStore } from './rounds/recorded-coverage.js';

const registry = await loadConfigOrExit('critic-runner', loadRegistrySettings, redactSecrets);
const { service } = await bootstrapService({
  name: 'critic-runner',
  loadConfig: loadCriticRunnerConfig,
  redact: redactSecrets,
  module: (config) => {
    const anthropicLog = new Logger('Anthropic');
    // With ANTHROPIC_API_KEY the LLM critics are hosted (and registered) beside the built-in ones.
    const llm =
      config.anthropic === null
        ? null
        : new LlmCriticHost(config.anthropic, config.catalogue, {
            warn: (m) => anthropicLog.warn(m),
            info: (m) => anthropicLog.log(m),
          });
    // What the plan's test runs recorded, shared by the rounds controller (fills it) and quality/test-coverage (reads it).
    const coverage = new RecordedCoverageStore();
    return CriticRunnerModule.forRoot(config, hostedCritics(config, llm, coverage), registry, llm, coverage);
  },
  // The runner leaves the registry before it stops pulling (stopOnSignals below), so the panel stops dispatching to it first.
  extras: (config) => ({
    bus: { ...config.bus, consumer: { concurrency: config.roundConcurrency } },
    handleSignals: false,
  }),
});
stopOnSignals(
  'critic-runner',
  async () => {
    await service.app.get(HostedCriticsPresence).withdraw();
    await service.stop();
  },
  service.logger,
);
