import { describe, expect, it } from '@jest/globals';
import { planBatch, type StoredRef } from './append-plan.js';
import { EventIdConflictError, VersionConflictError } from './errors.js';
import { satisfiesExpectedVersion } from './expected-version.js';
import { prepareAppends } from './validation.js';
import type { ExpectedVersion } from './types.js';

const event = (eventId: string, data: unknown = { id: eventId }) => ({ eventId, type: 'T', schemaVersion: 1, data });
const stored = (
  eventId: string,
  streamId: string,
  streamPosition: number,
  data: unknown = { id: eventId },
): StoredRef => ({
  eventId,
  streamId,
  streamPosition,
  globalPosition: String(100 + streamPosition),
  transactionId: '9',
  type: 'T',
  schemaVersion: 1,
  data,
});

describe('satisfiesExpectedVersion', () => {
  it.each<[ExpectedVersion, number, boolean]>([
    ['any', 0, true],
    ['any', 5, true],
    ['no_stream', 0, true],
    ['no_stream', 1, false],
    ['stream_exists', 0, false],
    ['stream_exists', 3, true],
    [0, 0, true],
    [3, 3, true],
    [3, 4, false],
  ])('expected %p at version %p → %p', (expected, current, ok) => {
    expect(satisfiesExpectedVersion(expected, current)).toBe(ok);
  });
});

describe('planBatch', () => {
  it('given a stream at version 2, when 2 new events are appended at version 2, then they get positions 3 and 4', () => {
    const items = prepareAppends([{ streamId: 's', events: [event('a'), event('b')], expectedVersion: 2 }]);
    const plan = planBatch(items, new Map([['s', 2]]), new Map());
    expect(plan.reservations).toEqual([{ streamId: 's', from: 2, to: 4 }]);
    expect(plan.inserts.map((insert) => [insert.event.eventId, insert.streamPosition])).toEqual([
      ['a', 3],
      ['b', 4],
    ]);
    const [result] = plan.complete(
      new Map([
        ['a', { globalPosition: '7', transactionId: '1' }],
        ['b', { globalPosition: '8', transactionId: '1' }],
      ]),
    );
    expect(result).toEqual({
      streamId: 's',
      version: 4,
      events: [
        { eventId: 'a', streamPosition: 3, globalPosition: '7', transactionId: '1', duplicate: false },
        { eventId: 'b', streamPosition: 4, globalPosition: '8', transactionId: '1', duplicate: false },
      ],
    });
  });

  it('given a wrong expected version, then it throws before planning any write', () => {
    const items = prepareAppends([{ streamId: 's', events: [event('a')], expectedVersion: 1 }]);
    expect(() => planBatch(items, new Map([['s', 2]]), new Map())).toThrow(VersionConflictError);
  });

  it('given every event already stored, then it succeeds with the original positions whatever the expected version', () => {
    const items = prepareAppends([{ streamId: 's', events: [event('a'), event('b')], expectedVersion: 'no_stream' }]);
    const plan = planBatch(
      items,
      new Map([['s', 5]]),
      new Map([
        ['a', stored('a', 's', 1)],
        ['b', stored('b', 's', 2)],
      ]),
    );
    expect(plan.inserts).toEqual([]);
    expect(plan.reservations).toEqual([]);
    expect(plan.complete(new Map())[0]?.events.map((e) => [e.streamPosition, e.duplicate])).toEqual([
      [1, true],
      [2, true],
    ]);
  });

  it("given some events stored, then under 'any' only the new ones are planned", () => {
    const items = prepareAppends([{ streamId: 's', events: [event('a'), event('b')], expectedVersion: 'any' }]);
    const plan = planBatch(items, new Map([['s', 1]]), new Map([['a', stored('a', 's', 1)]]));
    expect(plan.inserts.map((insert) => [insert.event.eventId, insert.streamPosition])).toEqual([['b', 2]]);
  });

  it('given some events stored and a stale exact version, then it is a version conflict', () => {
    const items = prepareAppends([{ streamId: 's', events: [event('a'), event('b')], expectedVersion: 0 }]);
    expect(() => planBatch(items, new Map([['s', 1]]), new Map([['a', stored('a', 's', 1)]]))).toThrow(
      VersionConflictError,
    );
  });

  it('given the same id with other data or in another stream, then it is an event id conflict, before any version conflict', () => {
    const differs = prepareAppends([{ streamId: 's', events: [event('a', { id: 'other' })], expectedVersion: 9 }]);
    expect(() => planBatch(differs, new Map([['s', 1]]), new Map([['a', stored('a', 's', 1)]]))).toThrow(
      expect.objectContaining({ reason: 'content_differs' }),
    );
    const elsewhere = prepareAppends([{ streamId: 't', events: [event('a')], expectedVersion: 9 }]);
    expect(() => planBatch(elsewhere, new Map(), new Map([['a', stored('a', 's', 1)]]))).toThrow(EventIdConflictError);
  });
});
