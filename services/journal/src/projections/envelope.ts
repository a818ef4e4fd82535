import { type JournaledEvent, parseEvent } from '@rloop/contracts';
import { maskSecretsDeep } from '@rloop/domain';
import type { NewEvent, StoredEvent } from '@rloop/event-store';
import { planOfStream } from '../streams.js';

/**
 * How an event is stored: its content (type, version, data) and its envelope metadata. The data
 * is masked for secrets: rloop's own services publish it masked already, and an event from any
 * other client (a critic in another language) gets the same treatment before it is journaled.
 */
export function toNewEvent(event: JournaledEvent): NewEvent {
  return {
    eventId: event.event_id,
    type: event.type,
    schemaVersion: event.schema_version,
    data: maskSecretsDeep(event.data),
    metadata: {
      occurred_at: event.occurred_at,
      producer: event.producer,
      correlation_id: event.correlation_id,
      causation_id: event.causation_id,
      // The version a decision was made on is metadata, not content: the same decision made again on a later version is the same event.
      ...(event.decision === undefined ? {} : { decision: event.decision }),
    },
  };
}

/** The event as it was published, rebuilt from the stored row (the stream names the plan). */
export function toEnvelope(stored: StoredEvent): Record<string, unknown> {
  const decision = stored.metadata['decision'];
  return {
    event_id: stored.eventId,
    type: stored.type,
    schema_version: stored.schemaVersion,
    plan: planOfStream(stored.streamId),
    correlation_id: stored.metadata.correlation_id,
    causation_id: stored.metadata.causation_id ?? null,
    occurred_at: stored.metadata.occurred_at,
    producer: stored.metadata.producer,
    ...(decision === undefined ? {} : { decision }),
    data: stored.data,
  };
}

/**
 * Reads a stored event back through its contract (upcasting older versions). Everything in the
 * store passed validation on the way in, so a failure here means the store or the contracts
 * changed underneath: an error, not something to skip.
 */
export function readBack(stored: StoredEvent): JournaledEvent {
  const parsed = parseEvent(toEnvelope(stored));
  if (!parsed.ok) throw parsed.error;
  return parsed.event as JournaledEvent;
}
