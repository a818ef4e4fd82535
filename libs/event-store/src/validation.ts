import { ValidationError, type Issue } from '@rloop/contracts';
import { EVENT_STORE_ERROR_CODES } from './errors.js';
import { isExpectedVersion } from './expected-version.js';
import { toJsonValue } from './json.js';
import type { ExpectedVersion, NewEvent, ReadStreamOptions, StreamAppend } from './types.js';

/** Bounds that keep a single id or batch sane. TODO(calibration): from the journal's real batch sizes. */
export const LIMITS = {
  idLength: 500,
  eventsPerAppend: 10_000,
  readLimit: 10_000,
} as const;

/** An event checked and turned into the JSON text that goes to the database. */
export interface PreparedEvent {
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  /** The JSON value as PostgreSQL will store it (for comparing with a stored event). */
  readonly data: unknown;
  readonly dataJson: string;
  readonly metadataJson: string;
}

export interface PreparedAppend {
  readonly streamId: string;
  readonly expectedVersion: ExpectedVersion;
  readonly events: readonly PreparedEvent[];
}

// Callers in plain JavaScript (or with a cast) can pass anything; the type does not prove it. A
// boolean rather than a type predicate, so the list keeps its element type.
function isList(value: unknown): boolean {
  return Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= LIMITS.idLength && !value.includes('\u0000');
}

function prepareEvent(event: NewEvent, path: string, issues: Issue[]): PreparedEvent | undefined {
  const before = issues.length;
  if (!isId(event.eventId))
    issues.push({
      path: `${path}.eventId`,
      message: `must be a non-empty string of at most ${LIMITS.idLength} characters`,
    });
  if (!isId(event.type))
    issues.push({
      path: `${path}.type`,
      message: `must be a non-empty string of at most ${LIMITS.idLength} characters`,
    });
  if (!Number.isSafeInteger(event.schemaVersion) || event.schemaVersion < 1 || event.schemaVersion > 2_147_483_647) {
    issues.push({ path: `${path}.schemaVersion`, message: 'must be a positive integer' });
  }
  const data = toJsonValue(event.data);
  if (data === undefined)
    issues.push({
      path: `${path}.data`,
      message: 'must be a JSON value (no undefined, cycles, BigInt or NUL characters)',
    });
  const metadata = toJsonValue(event.metadata ?? {});
  if (
    metadata === undefined ||
    typeof metadata.value !== 'object' ||
    metadata.value === null ||
    Array.isArray(metadata.value)
  ) {
    issues.push({ path: `${path}.metadata`, message: 'must be a JSON object' });
  }
  if (issues.length > before || data === undefined || metadata === undefined) return undefined;
  return {
    eventId: event.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: data.value,
    dataJson: data.json,
    metadataJson: metadata.json,
  };
}

/** Checks a batch of appends and serialises its events, or throws one ValidationError naming every problem. */
export function prepareAppends(appends: readonly StreamAppend[]): PreparedAppend[] {
  const issues: Issue[] = [];
  const prepared: PreparedAppend[] = [];
  const streams = new Set<string>();
  const eventIds = new Set<string>();
  let total = 0;
  appends.forEach((append, index) => {
    const path = appends.length === 1 ? '' : `[${index}]`;
    if (!isId(append.streamId)) {
      issues.push({
        path: `${path}streamId`,
        message: `must be a non-empty string of at most ${LIMITS.idLength} characters`,
      });
    } else if (streams.has(append.streamId)) {
      // Two entries for one stream would need two expected versions for one lock: ambiguous.
      issues.push({
        path: `${path}streamId`,
        message: `stream "${append.streamId}" appears more than once in the batch`,
      });
    }
    streams.add(append.streamId);
    if (!isExpectedVersion(append.expectedVersion)) {
      issues.push({
        path: `${path}expectedVersion`,
        message: "must be 'no_stream', 'stream_exists', 'any' or a non-negative integer",
      });
    }
    const list: readonly NewEvent[] = append.events;
    if (!isList(list)) {
      issues.push({ path: `${path}events`, message: 'must be an array' });
      return;
    }
    total += list.length;
    const events: PreparedEvent[] = [];
    list.forEach((event, eventIndex) => {
      const ready = prepareEvent(event, `${path}events[${eventIndex}]`, issues);
      if (ready === undefined) return;
      if (eventIds.has(ready.eventId))
        issues.push({
          path: `${path}events[${eventIndex}].eventId`,
          message: `event id "${ready.eventId}" appears more than once in the batch`,
        });
      eventIds.add(ready.eventId);
      events.push(ready);
    });
    prepared.push({ streamId: append.streamId, expectedVersion: append.expectedVersion, events });
  });
  if (total > LIMITS.eventsPerAppend)
    issues.push({ path: 'events', message: `at most ${LIMITS.eventsPerAppend} events per append (got ${total})` });
  if (issues.length > 0) {
    throw new ValidationError(
      EVENT_STORE_ERROR_CODES.invalidAppend,
      `invalid append: ${issues.map((issue) => `${issue.path || '(batch)'} ${issue.message}`).join('; ')}`,
      issues,
    );
  }
  return prepared;
}

function invalidRead(issues: Issue[]): ValidationError {
  return new ValidationError(
    EVENT_STORE_ERROR_CODES.invalidRead,
    `invalid read: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
    issues,
  );
}

function checkLimit(value: number | undefined, path: string, issues: Issue[]): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > LIMITS.readLimit)) {
    issues.push({ path, message: `must be an integer from 1 to ${LIMITS.readLimit}` });
  }
}

export function checkReadStream(streamId: string, options: ReadStreamOptions): void {
  const issues: Issue[] = [];
  if (!isId(streamId))
    issues.push({ path: 'streamId', message: `must be a non-empty string of at most ${LIMITS.idLength} characters` });
  if (options.fromPosition !== undefined && (!Number.isSafeInteger(options.fromPosition) || options.fromPosition < 1)) {
    issues.push({ path: 'fromPosition', message: 'must be a positive integer' });
  }
  checkLimit(options.maxCount, 'maxCount', issues);
  if (issues.length > 0) throw invalidRead(issues);
}

export function checkStreamId(streamId: string): void {
  if (!isId(streamId))
    throw invalidRead([
      { path: 'streamId', message: `must be a non-empty string of at most ${LIMITS.idLength} characters` },
    ]);
}

export function checkBatchSize(batchSize: number): void {
  const issues: Issue[] = [];
  checkLimit(batchSize, 'batchSize', issues);
  if (issues.length > 0) throw invalidRead(issues);
}

export function checkSubscriptionName(name: string): void {
  if (!isId(name))
    throw invalidRead([
      { path: 'name', message: `must be a non-empty string of at most ${LIMITS.idLength} characters` },
    ]);
}
