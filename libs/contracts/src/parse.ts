import { ValidationError, toIssues } from './errors.js';
import {
  EVENT_CATALOGUE,
  type EventOf,
  type EventType,
  isEventType,
  type RloopEvent,
  currentVersion,
} from './events.js';

/**
 * Turns an older event body into the next version's. Register one per (type, from-version) when a
 * breaking change bumps `schema_version`; old events in the journal and on the bus are then read
 * as the current version. See docs/contracts.md for the versioning rule.
 */
export { toIssues };

export interface Upcaster {
  readonly type: EventType;
  readonly fromVersion: number;
  readonly upcast: (data: unknown) => unknown;
}

/** The project's registered upcasters. Empty while every event is at version 1. */
export const UPCASTERS: readonly Upcaster[] = [];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Applies upcasters until the event reaches its type's current version. */
export function upcast(raw: unknown, upcasters: readonly Upcaster[] = UPCASTERS): unknown {
  if (!isRecord(raw) || !isEventType(raw['type']) || typeof raw['schema_version'] !== 'number') return raw;
  const type = raw['type'];
  const target = currentVersion(type);
  let version = raw['schema_version'];
  let data = raw['data'];
  while (version < target) {
    const step = upcasters.find((u) => u.type === type && u.fromVersion === version);
    if (step === undefined) return raw;
    data = step.upcast(data);
    version += 1;
  }
  return { ...raw, schema_version: version, data };
}

export type ParseResult<T> =
  { readonly ok: true; readonly event: T } | { readonly ok: false; readonly error: ValidationError };

/**
 * Validates an unknown value as an event (after upcasting). Never throws: a bad message is a
 * value the caller must route (dead letter, rejection), not an exception that could be lost.
 */
export function parseEvent(raw: unknown, upcasters: readonly Upcaster[] = UPCASTERS): ParseResult<RloopEvent> {
  const value = upcast(raw, upcasters);
  if (!isRecord(value)) {
    return {
      ok: false,
      error: new ValidationError('CONTRACT.NOT_AN_OBJECT', 'event must be a JSON object', [
        { path: '(root)', message: 'expected an object' },
      ]),
    };
  }
  const type = value['type'];
  if (!isEventType(type)) {
    return {
      ok: false,
      error: new ValidationError('CONTRACT.UNKNOWN_TYPE', `unknown event type ${JSON.stringify(type)}`, [
        { path: 'type', message: 'unknown event type' },
      ]),
    };
  }
  const result = EVENT_CATALOGUE[type].schema.safeParse(value);
  if (!result.success) {
    const issues = toIssues(result.error);
    return {
      ok: false,
      error: new ValidationError(
        'CONTRACT.INVALID',
        `${type} does not match its contract: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
        issues,
      ),
    };
  }
  return { ok: true, event: result.data };
}

/** Like parseEvent, for a known type; throws ValidationError. */
export function parseEventOrThrow<T extends EventType>(
  type: T,
  raw: unknown,
  upcasters: readonly Upcaster[] = UPCASTERS,
): EventOf<T> {
  const result = parseEvent(raw, upcasters);
  if (!result.ok) throw result.error;
  if (result.event.type !== type) {
    throw new ValidationError('CONTRACT.WRONG_TYPE', `expected ${type}, got ${result.event.type}`, [
      { path: 'type', message: `expected ${type}` },
    ]);
  }
  return result.event as EventOf<T>;
}
