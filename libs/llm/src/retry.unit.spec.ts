import { describe, expect, it } from '@jest/globals';
import { classifyStatus, decideRetry, DEFAULT_RETRY_POLICY, isSpendLimit } from './index.js';

// Error kinds as the API's errors page describes them: what is retried and what fails at once.
describe('classifying an API error', () => {
  it.each([
    [401, { type: 'authentication_error' }, 'auth'],
    [403, { type: 'permission_error' }, 'auth'],
    [402, { type: 'billing_error' }, 'spend_limit'],
    [429, { type: 'rate_limit_error', errorCode: 'enforced_spend_limit_reached' }, 'spend_limit'],
    [
      400,
      {
        type: 'invalid_request_error',
        message: 'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.',
      },
      'spend_limit',
    ],
    [
      400,
      { type: 'invalid_request_error', message: 'You have reached your specified workspace API usage limits.' },
      'spend_limit',
    ],
    [
      429,
      { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
      'rate_limited',
    ],
    [529, { type: 'overloaded_error' }, 'overloaded'],
    [500, { type: 'api_error' }, 'unavailable'],
    [504, { type: 'timeout_error' }, 'unavailable'],
    [408, {}, 'timeout'],
    [400, { type: 'invalid_request_error', message: 'messages: roles must alternate' }, 'invalid'],
    [413, { type: 'request_too_large' }, 'invalid'],
    [null, {}, 'unavailable'],
  ] as const)('given status %s with %j, then it is %s', (status, body, kind) => {
    expect(classifyStatus(status, body)).toBe(kind);
  });

  it('given a spend limit or a refused key, then no retry is decided; given a rate limit or overload, the server’s retry-after is waited', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 3 };
    expect(decideRetry({ kind: 'spend_limit', attempt: 1, retryAfterMs: null, policy, random: 0 })).toEqual({
      retry: false,
      why: 'not_retryable',
    });
    expect(decideRetry({ kind: 'auth', attempt: 1, retryAfterMs: null, policy, random: 0 })).toEqual({
      retry: false,
      why: 'not_retryable',
    });
    expect(decideRetry({ kind: 'rate_limited', attempt: 1, retryAfterMs: 7000, policy, random: 0 })).toEqual({
      retry: true,
      delayMs: 7000,
    });
    expect(decideRetry({ kind: 'overloaded', attempt: 2, retryAfterMs: 2000, policy, random: 0 })).toEqual({
      retry: true,
      delayMs: 2000,
    });
    expect(isSpendLimit(429, { type: 'rate_limit_error' })).toBe(false);
  });
});
