import { describe, expect, it } from '@jest/globals';
import { IllegalStateError, RloopError, TransientError, ValidationError } from '@rloop/contracts';
import { backoffDelay, buildDeadLetter, deadLetterMsgId, decideFailure } from './disposition.js';
import { RetryLaterError } from './errors.js';

const policy = { maxDeliver: 3, backoff: { initialMs: 100, maxMs: 250 }, maxOutageMs: 60_000 };
const DEP_DOWN = new TransientError('DEP.DOWN', 'down');

describe('decideFailure', () => {
  it('retries a crash (any non-RloopError) and a retryable RloopError with exponential backoff', () => {
    expect(decideFailure(new Error('boom'), 1, policy)).toEqual({
      action: 'retry',
      delayMs: 100,
      code: 'BUS.HANDLER_CRASHED',
      message: 'boom',
    });
    expect(decideFailure(new RloopError('X.FLAKY', 'flaky', { retryable: true }), 2, policy)).toEqual({
      action: 'retry',
      delayMs: 200,
      code: 'X.FLAKY',
      message: 'flaky',
    });
    expect(decideFailure('a string', 1, policy)).toMatchObject({ action: 'retry', code: 'BUS.HANDLER_CRASHED' });
  });

  it('dead-letters the last allowed attempt with reason max_deliver', () => {
    expect(decideFailure(new Error('boom'), 3, policy)).toEqual({
      action: 'dead_letter',
      reason: 'max_deliver',
      code: 'BUS.HANDLER_CRASHED',
      message: 'gave up after 3 attempt(s); last error: boom',
      issues: [],
    });
  });

  it('lets a TransientError (a dependency down) wait with backoff past maxDeliver, until its run of failures lasts maxOutageMs', () => {
    expect(decideFailure(DEP_DOWN, 1, policy, null, 1_000)).toEqual({
      action: 'wait',
      delayMs: 100,
      code: 'DEP.DOWN',
      message: 'down',
    });
    expect(decideFailure(DEP_DOWN, 3, policy, { failures: 7, sinceMs: 1_000 }, 59_999)).toEqual({
      action: 'wait',
      delayMs: 250,
      code: 'DEP.DOWN',
      message: 'down',
    });
    expect(decideFailure(DEP_DOWN, 3, policy, { failures: 7, sinceMs: 1_000 }, 61_000)).toEqual({
      action: 'dead_letter',
      reason: 'max_deliver',
      code: 'DEP.DOWN',
      message: 'still failing after 8 transient failure(s) over 60 s; last error: down',
      issues: [],
    });
  });

  it('dead-letters a non-retryable RloopError at once, keeping validation issues', () => {
    expect(decideFailure(new IllegalStateError('LOOP.ENDED', 'ended'), 1, policy)).toMatchObject({
      action: 'dead_letter',
      reason: 'handler_rejected',
      code: 'LOOP.ENDED',
    });
    expect(decideFailure(new ValidationError('X.BAD', 'bad', [{ path: 'a', message: 'm' }]), 1, policy)).toMatchObject({
      reason: 'handler_rejected',
      issues: [{ path: 'a', message: 'm' }],
    });
  });

  it('parks a RetryLaterError with exactly its delay, whatever the attempt', () => {
    expect(decideFailure(new RetryLaterError(1234, 'deadline'), 99, policy)).toEqual({
      action: 'park',
      delayMs: 1234,
      reason: 'deadline',
    });
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay and stops at the cap', () => {
    expect([1, 2, 3, 4, 40].map((n) => backoffDelay(n, { initialMs: 50, maxMs: 300 }))).toEqual([
      50, 100, 200, 300, 300,
    ]);
  });
});

describe('buildDeadLetter', () => {
  it('produces a record that satisfies the DeadLetter contract', () => {
    const record = buildDeadLetter({
      consumer: 'journal-append',
      stream: 'RLOOP_EVENTS',
      streamSequence: 7,
      subject: 'rloop.v1.events.loop_stopped.a',
      deliveries: 2,
      reason: 'invalid_payload',
      code: 'BUS.NOT_JSON',
      message: 'nope',
      issues: [{ path: '(root)', message: 'x' }],
      payload: { payload: '{', payload_encoding: 'utf8' },
      headers: { 'Nats-Msg-Id': ['abc'] },
      failedAt: new Date('2026-01-02T03:04:05Z'),
    });

    expect(record).toMatchObject({
      stream_sequence: 7,
      failed_at: '2026-01-02T03:04:05.000Z',
      headers: { 'Nats-Msg-Id': ['abc'] },
    });
    expect(deadLetterMsgId('journal-append', 'RLOOP_EVENTS', 7)).toBe('dl-journal-append-RLOOP_EVENTS-7');
  });
});

describe('RetryLaterError', () => {
  it('refuses a negative or non-finite delay', () => {
    expect(() => new RetryLaterError(-1, 'x')).toThrow(RangeError);
    expect(() => new RetryLaterError(Number.NaN, 'x')).toThrow(RangeError);
  });
});
