import { IllegalStateError } from '@rloop/contracts';
import { EVENT_STORE_ERROR_CODES, EventIdConflictError, VersionConflictError } from './errors.js';
import { satisfiesExpectedVersion } from './expected-version.js';
import { jsonEquals } from './json.js';
import type { AppendedEvent, AppendResult } from './types.js';
import type { PreparedAppend, PreparedEvent } from './validation.js';

/** An event already in the store, as the append's lookup found it. */
export interface StoredRef {
  readonly eventId: string;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly globalPosition: string;
  readonly transactionId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
}

export interface PlannedInsert {
  readonly streamId: string;
  readonly streamPosition: number;
  readonly event: PreparedEvent;
}

export interface PlannedReservation {
  readonly streamId: string;
  readonly from: number;
  readonly to: number;
}

/** What one append will write, decided from the locked stream versions and the stored events. */
export interface BatchPlan {
  readonly reservations: readonly PlannedReservation[];
  /** In input order, so global positions follow the input (and each stream's order). */
  readonly inserts: readonly PlannedInsert[];
  /** Completes the results once the inserted events have their global positions. */
  complete(
    inserted: ReadonlyMap<string, { readonly globalPosition: string; readonly transactionId: string }>,
  ): AppendResult[];
}

function sameContent(event: PreparedEvent, stored: StoredRef): boolean {
  return (
    event.type === stored.type && event.schemaVersion === stored.schemaVersion && jsonEquals(event.data, stored.data)
  );
}

/**
 * Decides a batch append. Pure: `versions` are the streams' current versions (0 = no stream),
 * read under the streams' row locks, and `stored` the events already stored with any of the
 * batch's ids, looked up after taking those locks. Throws the first conflict; nothing has been
 * allocated at that point, so a conflict leaves no hole in the global positions.
 *
 * Idempotency is per event id, for good: stored events keep their original positions and are
 * not re-inserted. An append whose events are all stored succeeds whatever the expected version
 * (it is a retry of a committed append); otherwise the expected version is checked against the
 * current version and only the new events are appended.
 */
export function planBatch(
  items: readonly PreparedAppend[],
  versions: ReadonlyMap<string, number>,
  stored: ReadonlyMap<string, StoredRef>,
): BatchPlan {
  // Event id conflicts first: they are not retryable, so they win over a version conflict.
  for (const item of items) {
    for (const event of item.events) {
      const found = stored.get(event.eventId);
      if (found === undefined) continue;
      const where = { streamId: found.streamId, streamPosition: found.streamPosition };
      if (found.streamId !== item.streamId)
        throw new EventIdConflictError(event.eventId, item.streamId, 'other_stream', where);
      if (!sameContent(event, found))
        throw new EventIdConflictError(event.eventId, item.streamId, 'content_differs', where);
    }
  }

  const reservations: PlannedReservation[] = [];
  const inserts: PlannedInsert[] = [];
  const shapes: { streamId: string; version: number; events: (AppendedEvent | string)[] }[] = [];
  for (const item of items) {
    const current = versions.get(item.streamId) ?? 0;
    const fresh = item.events.filter((event) => !stored.has(event.eventId));
    const isRetry = item.events.length > 0 && fresh.length === 0;
    if (!isRetry && !satisfiesExpectedVersion(item.expectedVersion, current))
      throw new VersionConflictError(item.streamId, item.expectedVersion, current);
    let next = current;
    const events = item.events.map((event): AppendedEvent | string => {
      const found = stored.get(event.eventId);
      if (found !== undefined) {
        return {
          eventId: event.eventId,
          streamPosition: found.streamPosition,
          globalPosition: found.globalPosition,
          transactionId: found.transactionId,
          duplicate: true,
        };
      }
      next += 1;
      inserts.push({ streamId: item.streamId, streamPosition: next, event });
      return event.eventId;
    });
    if (next > current) reservations.push({ streamId: item.streamId, from: current, to: next });
    shapes.push({ streamId: item.streamId, version: next, events });
  }

  return {
    reservations,
    inserts,
    complete(inserted) {
      const positions = new Map(inserts.map((insert) => [insert.event.eventId, insert.streamPosition]));
      return shapes.map((shape) => ({
        streamId: shape.streamId,
        version: shape.version,
        events: shape.events.map((entry) => {
          if (typeof entry !== 'string') return entry;
          const written = inserted.get(entry);
          const streamPosition = positions.get(entry);
          if (written === undefined || streamPosition === undefined)
            throw new IllegalStateError(
              EVENT_STORE_ERROR_CODES.invariantBroken,
              `the insert did not return event "${entry}"`,
            );
          return {
            eventId: entry,
            streamPosition,
            globalPosition: written.globalPosition,
            transactionId: written.transactionId,
            duplicate: false,
          };
        }),
      }));
    },
  };
}
