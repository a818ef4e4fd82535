import type { EventStoreClient, EventStoreTransaction } from '@rloop/event-store';
import type { FleetMetrics } from '@rloop/observability';

/**
 * The store, with every transaction that appended events measured: its duration (appends,
 * projections and commit: until the events are durable) and how many events it appended.
 * Everything else passes through untouched.
 */
export function observeAppends(store: EventStoreClient, metrics: FleetMetrics): EventStoreClient {
  const transaction: EventStoreClient['transaction'] = async (work) => {
    const started = process.hrtime.bigint();
    let appended = 0;
    const result = await store.transaction((tx) => {
      const counted: EventStoreTransaction = Object.create(tx) as EventStoreTransaction;
      Object.defineProperty(counted, 'appendMany', {
        value: async (appends: Parameters<EventStoreTransaction['appendMany']>[0]) => {
          appended += appends.reduce((n, a) => n + a.events.length, 0);
          return tx.appendMany(appends);
        },
      });
      return work(counted);
    });
    if (appended > 0) {
      metrics.journalAppendDuration?.observe(Number(process.hrtime.bigint() - started) / 1e9);
      metrics.journalAppendBatchSize?.observe(appended);
    }
    return result;
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
