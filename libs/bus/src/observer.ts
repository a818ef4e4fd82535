import { type RloopEvent } from '@rloop/contracts';
import { type DeliveryInfo } from './context.js';

/** How the consumer runner settled messages: for delivery metrics. */
export const SETTLEMENTS = ['acked', 'retried', 'parked', 'waiting', 'dead_lettered'] as const;
export type Settlement = (typeof SETTLEMENTS)[number];

/**
 * What the bus tells an observer (metrics, tracing) and lets it wrap. Every method is optional;
 * the bus works the same without one. Implementations must not throw: the bus does not guard
 * its calls, so a failing observer would fail the publish or the handler it watches.
 */
export interface BusObserver {
  /** Headers for an outgoing publish (the event) or request (null): the trace context. */
  outgoingHeaders?(event: RloopEvent | null): Readonly<Record<string, string>>;
  /** A publish the server acknowledged; `duplicate`: it already had the event (nothing new). */
  published?(event: RloopEvent, duplicate: boolean): void;
  /** Runs one handler call (an event, or a batch) with its deliveries; wraps it in a span. */
  handle?<T>(
    consumer: string,
    events: readonly RloopEvent[],
    deliveries: readonly DeliveryInfo[],
    run: () => Promise<T>,
  ): Promise<T>;
  /** Runs one request handler call (`plans.submit`, `journal.status`, …) with the request's headers. */
  request?<T>(subject: string, headers: Readonly<Record<string, readonly string[]>>, run: () => Promise<T>): Promise<T>;
  /** Messages settled by a consumer, and how. */
  settled?(consumer: string, how: Settlement, count: number): void;
}
