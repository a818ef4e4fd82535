import { describe, expect, it } from '@jest/globals';
import {
  ConflictError,
  IllegalStateError,
  NotFoundError,
  RloopError,
  TransientError,
  ValidationError,
  describeError,
} from './errors.js';

describe('RloopError', () => {
  it('carries a stable code, its class name and a message', () => {
    const error = new RloopError('JOURNAL.VERSION_CONFLICT', 'stream add-billing is at 4, expected 3');
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('JOURNAL.VERSION_CONFLICT');
    expect(error.name).toBe('RloopError');
    expect(error.message).toBe('stream add-billing is at 4, expected 3');
    expect(error.stack).toContain('RloopError');
  });

  it('is not retryable unless it says so', () => {
    expect(new RloopError('X.Y', 'm').retryable).toBe(false);
    expect(new RloopError('X.Y', 'm', { retryable: true }).retryable).toBe(true);
  });

  it('passes the cause through, and has none when none was given', () => {
    const cause = new Error('connection reset');
    expect(new RloopError('BUS.PUBLISH_FAILED', 'publish failed', { cause }).cause).toBe(cause);
    expect(Object.hasOwn(new RloopError('BUS.PUBLISH_FAILED', 'publish failed'), 'cause')).toBe(false);
    expect(new RloopError('X.Y', 'm', { cause: 'a string cause' }).cause).toBe('a string cause');
  });

  it.each([
    ['ConflictError', new ConflictError('JOURNAL.VERSION_CONFLICT', 'm')],
    ['NotFoundError', new NotFoundError('JOURNAL.NOT_FOUND', 'm')],
    ['IllegalStateError', new IllegalStateError('LOOP.ENDED', 'm')],
  ])('names a %s after its class and keeps it an RloopError', (name, error) => {
    expect(error).toBeInstanceOf(RloopError);
    expect(error.name).toBe(name);
    expect(error.retryable).toBe(false);
  });

  it('makes a TransientError always retryable', () => {
    const error = new TransientError('LLM.RATE_LIMITED', '429', { cause: new Error('rate limited') });
    expect(error).toBeInstanceOf(RloopError);
    expect(error.name).toBe('TransientError');
    expect(error.retryable).toBe(true);
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe('ValidationError', () => {
  it('carries the issues and is never retryable', () => {
    const issues = [
      { path: 'slug', message: 'must be lowercase letters, digits and single dashes' },
      { path: 'repo', message: 'give exactly one of repo.path and repo.url' },
    ];
    const error = new ValidationError('PLAN.INVALID', 'the plan is invalid', issues, { cause: new Error('zod') });
    expect(error).toBeInstanceOf(RloopError);
    expect(error.name).toBe('ValidationError');
    expect(error.code).toBe('PLAN.INVALID');
    expect(error.issues).toEqual(issues);
    expect(error.retryable).toBe(false);
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe('describeError', () => {
  it('uses the message of an Error, a string as it is, and JSON for anything else', () => {
    expect(describeError(new ConflictError('A.B', 'lost the race'))).toBe('lost the race');
    expect(describeError('plain text')).toBe('plain text');
    expect(describeError({ status: 503 })).toBe('{"status":503}');
    expect(describeError(null)).toBe('null');
  });

  it('always returns a string, even for values JSON cannot carry', () => {
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(describeError(undefined)).toBe('undefined');
    expect(describeError(Symbol('gone'))).toBe('Symbol(gone)');
    expect(describeError(10n)).toBe('10');
    expect(describeError(circular)).toBe('[object Object]');
    expect(describeError(Object.create(null))).toBe('{}');
  });
});
