import { type DynamicModule, Module } from '@nestjs/common';
import type { ImplementerConfig } from './config.js';
import { HandoffController } from './handlers/handoff.controller.js';
import { ImplementerController } from './handlers/implementer.controller.js';
import { IMPLEMENTER_CONFIG } from './tokens.js';
import { anthropicClientsProvider } from './anthropic/clients.js';
import { JournalClientModule } from '@rloop/journal-client';

@Module({})
export class ImplementerModule {
  static forRoot(config: ImplementerConfig): DynamicModule {
    return {
      module: ImplementerModule,
      imports: [JournalClientModule],
      controllers: [ImplementerController, HandoffController],
      providers: [{ provide: IMPLEMENTER_CONFIG, useValue: config }, anthropicClientsProvider],
    };
  }
}
