import { Global, Module } from '@nestjs/common';
import { BUS_REQUESTER, type Requester } from '@rloop/bus';
import { JournalClient } from './journal-client.js';

/**
 * Provides JournalClient to a service's handlers (`@Inject(JournalClient)`), built on the bus's
 * requester. Import it next to the service's own module; BusModule must be loaded (startService
 * loads it).
 */
@Global()
@Module({
  providers: [
    {
      provide: JournalClient,
      useFactory: (requester: Requester) => new JournalClient(requester),
      inject: [BUS_REQUESTER],
    },
  ],
  exports: [JournalClient],
})
export class JournalClientModule {}
