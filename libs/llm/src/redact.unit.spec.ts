import { describe, expect, it } from '@jest/globals';
import {
  containsRegisteredSecret,
  isSecretEnvName,
  LlmAuthError,
  PathOutsideWorktreeError,
  redactSecrets,
  registerSecret,
  scrubEnv,
} from './index.js';

describe('redactSecrets', () => {
  it('masks Anthropic and other well-known key shapes', () => {
    const text = [
      'key sk-ant-api03-AbCdEf0123456789_ghIJKL-mnop',
      'admin sk-ant-admin01-zyxwvutsrqponmlkjihg',
      'gh ghp_0123456789abcdefghijABCDEFGHIJ012345',
      'aws AKIAABCDEFGHIJKLMNOP',
      'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    ].join('\n');
    const out = redactSecrets(text);
    expect(out).toBe(
      ['key [REDACTED]', 'admin [REDACTED]', 'gh [REDACTED]', 'aws [REDACTED]', 'jwt [REDACTED]'].join('\n'),
    );
  });

  it('masks bearer tokens and named secret values, keeping the names', () => {
    expect(redactSecrets('Authorization: Bearer abc.def-123456789')).toBe('Authorization: Bearer [REDACTED]');
    expect(redactSecrets('x-api-key: hunter2hunter2')).toBe('x-api-key: [REDACTED]');
    expect(redactSecrets('{"api_key":"not-a-known-shape-but-named","user":"ann"}')).toBe(
      '{"api_key":"[REDACTED]","user":"ann"}',
    );
    expect(redactSecrets('DB_PASSWORD=correct-horse-battery')).toBe('DB_PASSWORD=[REDACTED]');
  });

  it('masks registered and extra exact values, URL-encoded too, and leaves ordinary text alone', () => {
    registerSecret('custom-proxy-credential/with+symbols');
    expect(
      redactSecrets('sent custom-proxy-credential/with+symbols and custom-proxy-credential%2Fwith%2Bsymbols'),
    ).toBe('sent [REDACTED] and [REDACTED]');
    expect(containsRegisteredSecret('x custom-proxy-credential/with+symbols')).toBe(true);
    expect(redactSecrets('token in a sentence', ['one-time-extra-secret'])).toBe('token in a sentence');
    expect(redactSecrets('use one-time-extra-secret', ['one-time-extra-secret'])).toBe('use [REDACTED]');
    expect(redactSecrets('export function clamp(value, min, max) { return value; }')).toBe(
      'export function clamp(value, min, max) { return value; }',
    );
  });

  it('is applied by every LLM error constructor', () => {
    registerSecret('sk-ant-api03-registered-for-errors-0000');
    expect(new LlmAuthError('bad key sk-ant-api03-registered-for-errors-0000').message).toBe('bad key [REDACTED]');
    expect(
      new PathOutsideWorktreeError('secrets/sk-ant-api03-registered-for-errors-0000', 'outside').message,
    ).not.toContain('registered-for-errors');
  });

  it('recognises secret-looking environment names and removes them from command environments', () => {
    expect(
      ['ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'PGPASSWORD', 'NPM_AUTH'].every(isSecretEnvName),
    ).toBe(true);
    expect(['PATH', 'HOME', 'LANG', 'NODE_ENV'].some(isSecretEnvName)).toBe(false);
    expect(scrubEnv({ PATH: '/bin', ANTHROPIC_API_KEY: 'x', LANG: 'C' })).toEqual({ PATH: '/bin', LANG: 'C' });
    expect(scrubEnv(undefined)['PATH']).toContain('/usr/bin');
  });
});
