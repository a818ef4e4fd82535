import { type EventOf, type JournaledEvent, currentVersion } from '@rloop/contracts';

export interface EnvelopeFactoryOptions {
  /** Start of every generated event id; the rest is the envelope's number, padded to 26 characters. */
  readonly idPrefix: string;
  readonly producer: string;
  /** occurred_at of the n-th envelope (from 1). Default: the current time. */
  readonly occurredAt?: (n: number) => Date;
}

/** Builds journaled events for a spec: numbered ids (or the one given), the current schema version, no causation. */
export type Envelope = <T extends JournaledEvent['type']>(
  type: T,
  plan: string,
  runId: string,
  data: EventOf<T>['data'],
  eventId?: string,
) => EventOf<T>;

export function envelopeFactory(options: EnvelopeFactoryOptions): Envelope {
  let count = 0;
  return <T extends JournaledEvent['type']>(
    type: T,
    plan: string,
    runId: string,
    data: EventOf<T>['data'],
    eventId?: string,
  ): EventOf<T> => {
    count += 1;
    return {
      event_id: eventId ?? `${options.idPrefix}${String(count).padStart(26 - options.idPrefix.length, '0')}`,
      type,
      schema_version: currentVersion(type),
      plan,
      correlation_id: runId,
      causation_id: null,
      occurred_at: (options.occurredAt?.(count) ?? new Date()).toISOString(),
      producer: options.producer,
      data,
    } as EventOf<T>;
  };
}
