import { type DynamicModule, Module } from '@nestjs/common';
import { JournalClientModule } from '@rloop/journal-client';
import { ConsoleRoutes } from './api/console-routes.js';
import type { ConsoleConfig } from './config.js';
import { CommittedFeed } from './feed/committed-feed.js';
import { CONSOLE_CONFIG } from './tokens.js';

@Module({})
export class ConsoleModule {
  static forRoot(config: ConsoleConfig): DynamicModule {
    return {
      module: ConsoleModule,
      imports: [JournalClientModule],
      providers: [{ provide: CONSOLE_CONFIG, useValue: config }, CommittedFeed, ConsoleRoutes],
    };
  }
}
