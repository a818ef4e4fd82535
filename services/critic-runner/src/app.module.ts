import { type DynamicModule, Module } from '@nestjs/common';
import type { CriticDefinition } from '@rloop/critics';
import type { CriticRunnerConfig } from './config.js';
import type { LlmCriticHost } from './llm/llm-critics.js';
import { HostedCriticsPresence, REGISTRY_SETTINGS } from './registry/hosted-presence.js';
import type { RegistrySettings } from './registry/registry-config.js';
import { RoundsController } from './rounds/rounds.controller.js';
import { RecordedCoverageStore } from './rounds/recorded-coverage.js';
import { CRITIC_RUNNER_CONFIG, HOSTED_CRITICS, LLM_CRITIC_HOST, RECORDED_COVERAGE } from './tokens.js';
import { JournalClientModule } from '@rloop/journal-client';

@Module({})
export class CriticRunnerModule {
  static forRoot(
    config: CriticRunnerConfig,
    critics: readonly CriticDefinition[],
    registry: RegistrySettings,
    llm: LlmCriticHost | null = null,
    coverage: RecordedCoverageStore = new RecordedCoverageStore(),
  ): DynamicModule {
    return {
      module: CriticRunnerModule,
      imports: [JournalClientModule],
      controllers: [RoundsController],
      providers: [
        { provide: CRITIC_RUNNER_CONFIG, useValue: config },
        { provide: HOSTED_CRITICS, useValue: new Map(critics.map((c) => [c.id, c])) },
        { provide: REGISTRY_SETTINGS, useValue: registry },
        { provide: LLM_CRITIC_HOST, useValue: llm },
        { provide: RECORDED_COVERAGE, useValue: coverage },
        HostedCriticsPresence,
      ],
    };
  }
}
