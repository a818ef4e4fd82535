import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { EventStoreClient } from '@rloop/event-store';
import type { JournalConfig } from './config.js';
import { IngestController } from './ingest/ingest.controller.js';
import { NamespaceBinding } from './identity/namespace-binding.js';
import { ProjectionCatchUp } from './projections/catch-up.js';
import { LOOP_CONFIG, loadLoopConfig } from './projections/loop-config.js';
import { QueriesController } from './queries/queries.controller.js';
import { OpenRunsController } from './queries/open-runs.controller.js';
import { SpendController } from './queries/spend.controller.js';
import { EVENT_STORE, JOURNAL_CONFIG } from './tokens.js';

/** Closes the store after the bus has drained (Nest calls shutdown hooks after the transport closes). */
class StoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStoreClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

@Module({})
export class JournalModule {
  static forRoot(config: JournalConfig, store: EventStoreClient): DynamicModule {
    return {
      module: JournalModule,
      controllers: [IngestController, QueriesController, SpendController, OpenRunsController],
      providers: [
        { provide: JOURNAL_CONFIG, useValue: config },
        { provide: EVENT_STORE, useValue: store },
        { provide: LOOP_CONFIG, useFactory: () => loadLoopConfig(config.configDir) },
        ProjectionCatchUp,
        NamespaceBinding,
        StoreLifecycle,
      ],
    };
  }
}
