import { type DynamicModule, Module } from '@nestjs/common';
import type { CriticDefinition } from '@rloop/critics';
import type { CriticRunnerConfig } from './config.js';
import { RoundsController } from './rounds/rounds.controller.js';
import { CRITIC_RUNNER_CONFIG, HOSTED_CRITICS } from './tokens.js';

@Module({})
export class CriticRunnerModule {
  static forRoot(config: CriticRunnerConfig, critics: readonly CriticDefinition[]): DynamicModule {
    return {
      module: CriticRunnerModule,
      controllers: [RoundsController],
      providers: [
        { provide: CRITIC_RUNNER_CONFIG, useValue: config },
        { provide: HOSTED_CRITICS, useValue: new Map(critics.map((c) => [c.id, c])) },
      ],
    };
  }
}
