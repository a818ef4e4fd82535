import { describe, expect, it } from '@jest/globals';
import { ValidationError } from './errors.js';
import { EVENT_TYPES, currentVersion, isEventType } from './events.js';
import { UPCASTERS, type Upcaster, parseEvent, parseEventOrThrow, upcast } from './parse.js';

const ENVELOPE = {
  event_id: '01JABCDEFGHJKMNPQRSTVWXYZ0',
  plan: 'add-billing',
  correlation_id: '01JABCDEFGHJKMNPQRSTVWXYZ1',
  causation_id: null,
  occurred_at: '2026-11-30T12:00:00.000Z',
  producer: 'cli@host:1',
} as const;

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

function loopStopped(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...ENVELOPE, type: 'LoopStopped', schema_version: 1, data: { by: 'alice', note: 'enough' }, ...overrides };
}

/** An older LoopStopped whose `data` named the person `who` (v0) and, before that, `user` (v-1). */
const STOPPED_FROM_V0: Upcaster = {
  type: 'LoopStopped',
  fromVersion: 0,
  upcast: (data) => {
    const { who, ...rest } = data as { who: string };
    return { ...rest, by: who };
  },
};
const STOPPED_FROM_V_MINUS_1: Upcaster = {
  type: 'LoopStopped',
  fromVersion: -1,
  upcast: (data) => {
    const { user, ...rest } = data as { user: string };
    return { ...rest, who: user };
  },
};

describe('event versions', () => {
  it('starts every event type at version 1 with no upcasters registered', () => {
    for (const type of EVENT_TYPES) expect(currentVersion(type)).toBe(1);
    expect(UPCASTERS).toEqual([]);
  });

  it('knows its own event types and nothing inherited from Object.prototype', () => {
    expect(isEventType('LoopStopped')).toBe(true);
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'loopstopped', ''])
      expect(isEventType(name)).toBe(false);
  });
});

describe('upcast', () => {
  it('applies one upcaster per version step, in order, until the current version', () => {
    const raw = loopStopped({ schema_version: -1, data: { user: 'alice' } });
    expect(upcast(raw, [STOPPED_FROM_V0, STOPPED_FROM_V_MINUS_1])).toEqual(loopStopped({ data: { by: 'alice' } }));
  });

  it('does not touch the input it was given', () => {
    const raw = loopStopped({ schema_version: 0, data: { who: 'alice' } });
    const before = structuredClone(raw);
    upcast(raw, [STOPPED_FROM_V0]);
    expect(raw).toEqual(before);
  });

  it('returns the input unchanged when a step is missing, so validation reports the old version', () => {
    const raw = loopStopped({ schema_version: -1, data: { user: 'alice' } });
    expect(upcast(raw, [STOPPED_FROM_V0])).toBe(raw);
  });

  it('ignores upcasters registered for another event type', () => {
    const raw = { ...ENVELOPE, type: 'LoopResumed', schema_version: 0, data: { who: 'alice' } };
    expect(upcast(raw, [STOPPED_FROM_V0])).toBe(raw);
  });

  it.each([
    ['the current version', loopStopped()],
    ['a newer version than this build knows', loopStopped({ schema_version: 2 })],
    ['an unknown type', loopStopped({ type: 'LoopPaused', schema_version: 0 })],
    ['a version that is not a number', loopStopped({ schema_version: '0' })],
    ['a non-object', 'LoopStopped'],
    ['null', null],
    ['an array', [loopStopped()]],
  ])('leaves %s alone', (_what, raw) => {
    expect(upcast(raw, [STOPPED_FROM_V0])).toEqual(raw);
  });
});

describe('parseEvent', () => {
  it('accepts a valid event and returns the parsed value', () => {
    const result = parseEvent(loopStopped());
    expect(result).toEqual({ ok: true, event: loopStopped() });
  });

  it('reads an old event through the upcasters it is given', () => {
    const result = parseEvent(loopStopped({ schema_version: -1, data: { user: 'alice', note: 'old' } }), [
      STOPPED_FROM_V0,
      STOPPED_FROM_V_MINUS_1,
    ]);
    expect(result).toEqual({ ok: true, event: loopStopped({ data: { by: 'alice', note: 'old' } }) });
  });

  it('reports an old version nobody can upcast as a typed error at schema_version', () => {
    const result = parseEvent(loopStopped({ schema_version: 0, data: { who: 'alice' } }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(ValidationError);
    expect(result.error.code).toBe('CONTRACT.INVALID');
    expect(result.error.retryable).toBe(false);
    expect(result.error.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['schema_version', 'data.by']));
  });

  it('rejects a version newer than this build knows instead of guessing', () => {
    const result = parseEvent(loopStopped({ schema_version: 2 }));
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'CONTRACT.INVALID', issues: [{ path: 'schema_version' }] },
    });
  });

  it('reports an upcaster that produces an invalid body at the body’s path', () => {
    const broken: Upcaster = { type: 'LoopStopped', fromVersion: 0, upcast: () => ({ by: 42 }) };
    const result = parseEvent(loopStopped({ schema_version: 0 }), [broken]);
    expect(result).toMatchObject({ ok: false, error: { code: 'CONTRACT.INVALID', issues: [{ path: 'data.by' }] } });
  });

  it.each([null, 'text', 42, [loopStopped()]])('rejects %j as not an object', (raw) => {
    const result = parseEvent(raw);
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'CONTRACT.NOT_AN_OBJECT', issues: [{ path: '(root)' }] },
    });
  });

  it.each(['LoopPaused', 'toString', '__proto__', undefined, 7])('rejects the type %j as unknown', (type) => {
    const result = parseEvent(loopStopped({ type }));
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'CONTRACT.UNKNOWN_TYPE', issues: [{ path: 'type', message: 'unknown event type' }] },
    });
  });

  it('names every problem of an invalid event in its message and issues', () => {
    const result = parseEvent(loopStopped({ event_id: 'short', data: { note: 5 } }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.error.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['event_id', 'data.note', 'data.by']));
    for (const path of paths) expect(result.error.message).toContain(`${path}:`);
    expect(result.error.message).toMatch(/^LoopStopped does not match its contract: /);
  });

  it('drops envelope fields it does not know rather than failing on them (additive changes stay compatible)', () => {
    const result = parseEvent(loopStopped({ trace_id: 'abc', data: { by: 'alice', reason_code: 'x' } }));
    expect(result).toEqual({ ok: true, event: loopStopped({ data: { by: 'alice' } }) });
  });
});

describe('parseEventOrThrow', () => {
  it('returns the event when it has the expected type', () => {
    expect(parseEventOrThrow('LoopStopped', loopStopped()).data.by).toBe('alice');
  });

  it('throws CONTRACT.WRONG_TYPE for a valid event of another type', () => {
    const thrown = thrownBy(() => parseEventOrThrow('LoopResumed', loopStopped()));
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(thrown).toMatchObject({
      name: 'ValidationError',
      code: 'CONTRACT.WRONG_TYPE',
      issues: [{ path: 'type', message: 'expected LoopResumed' }],
    });
  });

  it('throws the ValidationError parseEvent would return', () => {
    expect(() => parseEventOrThrow('LoopStopped', loopStopped({ data: {} }))).toThrow(ValidationError);
  });
});
