import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { JetStreamClient } from './client.js';
import { type BusObserver } from './observer.js';
import { type BusOptions } from './options.js';

/** Injection token of the EventPublisher port: `@Inject(EVENT_PUBLISHER) publisher: EventPublisher`. */
export const EVENT_PUBLISHER = Symbol.for('rloop.bus.EventPublisher');
/** Injection token of the Requester port (core request/reply). */
export const BUS_REQUESTER = Symbol.for('rloop.bus.Requester');

/** Connects the client when the application starts (so a missing NATS fails the start) and drains it at shutdown. */
@Injectable()
class BusClientLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(JetStreamClient) private readonly client: JetStreamClient) {}

  async onModuleInit(): Promise<void> {
    await this.client.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/**
 * Provides the bus client to every module (global): inject EVENT_PUBLISHER, BUS_REQUESTER, or
 * JetStreamClient itself. startService imports it for you.
 */
@Module({})
export class BusModule {
  static forRoot(options: BusOptions, observer?: BusObserver): DynamicModule {
    return {
      module: BusModule,
      global: true,
      providers: [
        { provide: JetStreamClient, useFactory: () => new JetStreamClient(options, undefined, observer) },
        { provide: EVENT_PUBLISHER, useExisting: JetStreamClient },
        { provide: BUS_REQUESTER, useExisting: JetStreamClient },
        BusClientLifecycle,
      ],
      exports: [JetStreamClient, EVENT_PUBLISHER, BUS_REQUESTER],
    };
  }
}
