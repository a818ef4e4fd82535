import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { jsonEquals, toJsonValue } from './json.js';

describe('toJsonValue', () => {
  it('keeps what JSON keeps and refuses what jsonb cannot hold', () => {
    expect(toJsonValue({ a: 1, b: undefined, d: new Date(0) })).toEqual({
      json: '{"a":1,"d":"1970-01-01T00:00:00.000Z"}',
      value: { a: 1, d: '1970-01-01T00:00:00.000Z' },
    });
    expect(toJsonValue(undefined)).toBeUndefined();
    expect(toJsonValue({ big: 1n })).toBeUndefined();
    expect(toJsonValue({ text: 'a\u0000b' })).toBeUndefined();
    expect(toJsonValue({ 'k\u0000': 1 })).toBeUndefined();
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(toJsonValue(cycle)).toBeUndefined();
  });
});

describe('jsonEquals', () => {
  it('ignores object key order but not array order', () => {
    expect(jsonEquals({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(jsonEquals([1, 2], [2, 1])).toBe(false);
    expect(jsonEquals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEquals({ a: null }, { b: null })).toBe(false);
    expect(jsonEquals([], {})).toBe(false);
    expect(jsonEquals('1', 1)).toBe(false);
  });

  it('agrees with itself after a JSON round trip, and tells changed values apart', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const normalised = toJsonValue(value)?.value;
        expect(jsonEquals(normalised, JSON.parse(JSON.stringify(normalised)) as unknown)).toBe(true);
        expect(jsonEquals({ wrapped: normalised }, { wrapped: [normalised] })).toBe(false);
      }),
    );
  });
});
