import { describe, expect, it } from '@jest/globals';
import { criticServiceName, criticServiceOptionsFromEnv, resolveCriticServiceOptions } from './options.js';

describe('critic service options', () => {
  it('reads the usual variables, leaving unset ones to the defaults', () => {
    const options = criticServiceOptionsFromEnv({
      NATS_URL: 'nats://a:4222, nats://b:4222',
      RLOOP_NAMESPACE: 'team',
      RLOOP_CRITIC_HEARTBEAT_MS: '1000',
      RLOOP_CRITIC_INSTANCE_ID: '',
    });
    expect(options).toEqual({
      natsUrl: ['nats://a:4222', 'nats://b:4222'],
      credentials: null,
      tls: null,
      inboxPrefix: null,
      namespace: 'team',
      heartbeatIntervalMs: 1000,
    });
    expect(resolveCriticServiceOptions(options)).toMatchObject({
      servers: ['nats://a:4222', 'nats://b:4222'],
      namespace: 'team',
      heartbeatIntervalMs: 1000,
      concurrency: 2,
      handleSignals: true,
      maxFileBytes: null,
    });
  });

  it("takes the operator's file-size bound from RLOOP_MAX_FILE_BYTES", () => {
    expect(resolveCriticServiceOptions(criticServiceOptionsFromEnv({ RLOOP_MAX_FILE_BYTES: '8000000' }))).toMatchObject(
      { maxFileBytes: 8_000_000 },
    );
    expect(() => resolveCriticServiceOptions({ natsUrl: 'nats://x', maxFileBytes: 0 })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'maxFileBytes' })] }),
    );
  });

  it('reads NATS credentials as the services do, and never keeps a password in a server URL', () => {
    const options = criticServiceOptionsFromEnv({
      NATS_URL: 'nats://critic:hunter2@a:4222',
      NATS_INBOX_PREFIX: '_INBOX.critic-team_no-todo',
    });
    expect(options.natsUrl).toEqual(['nats://a:4222']);
    expect(options.inboxPrefix).toBe('_INBOX.critic-team_no-todo');
    expect(
      options.credentials?.kind === 'user' && [options.credentials.user, options.credentials.password.reveal()],
    ).toEqual(['critic', 'hunter2']);
    expect(JSON.stringify(resolveCriticServiceOptions(options))).not.toContain('hunter2');
    expect(() => resolveCriticServiceOptions({ natsUrl: 'nats://critic:hunter2@a:4222' })).toThrow(
      /must not carry user info/,
    );
    expect(() => criticServiceOptionsFromEnv({ NATS_NKEY: '/nonexistent/seed.nk' })).toThrow(
      expect.objectContaining({
        code: 'CRITIC_SDK.INVALID_OPTIONS',
        message: expect.stringContaining('NATS_NKEY: cannot read /nonexistent/seed.nk') as unknown,
      }),
    );
  });

  it('names the bad variable', () => {
    expect(() => criticServiceOptionsFromEnv({ RLOOP_CRITIC_HEARTBEAT_MS: 'soon' })).toThrow(
      expect.objectContaining({
        code: 'CRITIC_SDK.INVALID_OPTIONS',
        message: expect.stringContaining('RLOOP_CRITIC_HEARTBEAT_MS') as unknown,
      }),
    );
    expect(() =>
      resolveCriticServiceOptions({ natsUrl: 'nats://x', namespace: 'Bad NS', heartbeatIntervalMs: 5 }),
    ).toThrow(
      expect.objectContaining({
        issues: [
          expect.objectContaining({ path: 'namespace' }),
          expect.objectContaining({ path: 'heartbeatIntervalMs' }),
        ],
      }),
    );
  });

  it('derives a bus service name from the critic id, short enough for NATS and distinct for long ids', () => {
    expect(criticServiceName('security/sast-scanner')).toBe('critic-security_sast-scanner');
    const a = criticServiceName(`team/${'a'.repeat(80)}`);
    const b = criticServiceName(`team/${'a'.repeat(79)}b`);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).not.toBe(b);
  });
});
