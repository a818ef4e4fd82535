import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ValidationError } from '@rloop/contracts';
import {
  BusConfigError,
  NatsEnvironment,
  Secret,
  natsConnectionSettings,
  resolveBusOptions,
  withoutUserInfo,
} from './index.js';
import { describeNatsError, isAuthFailure } from './connection.js';
import { AuthorizationError, PermissionViolationError } from '@nats-io/transport-node';

const dir = mkdtempSync(join(tmpdir(), 'rloop-auth-'));
const SEED = 'SUAMLK2ZNL35WSMW37E7UD4VZ7ELPKW7DHC3BWBSD2GCZ7IUQQXZIORRBU';
const seedFile = join(dir, 'user.nk');
writeFileSync(seedFile, `${SEED}\n`);
const credsFile = join(dir, 'user.creds');
writeFileSync(
  credsFile,
  `-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.sig\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${SEED}\n------END USER NKEY SEED------\n`,
);
const passwordFile = join(dir, 'password');
writeFileSync(passwordFile, 's3cr3t-from-file\n');
const pem = join(dir, 'ca.pem');
writeFileSync(pem, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');

function settings(env: Record<string, string>) {
  return natsConnectionSettings(NatsEnvironment.parse(env), 'panel');
}

function problems(env: Record<string, string>): string[] {
  try {
    settings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected a ValidationError');
}

describe('NATS credentials from the environment', () => {
  it('connects without credentials to the default server', () => {
    expect(settings({})).toEqual({
      servers: ['nats://127.0.0.1:4222'],
      credentials: null,
      tls: null,
      inboxPrefix: null,
    });
  });

  it('reads each standard kind: creds file, nkey seed file, user and password (or its file), token', () => {
    expect(settings({ NATS_CREDS: credsFile }).credentials).toEqual({ kind: 'creds', file: credsFile });
    expect(settings({ NATS_NKEY: seedFile }).credentials).toEqual({ kind: 'nkey', seedFile });
    const user = settings({ NATS_USER: 'ops', NATS_PASSWORD: 'pw' }).credentials;
    expect(user?.kind === 'user' && [user.user, user.password.reveal()]).toEqual(['ops', 'pw']);
    const fromFile = settings({ NATS_USER: 'ops', NATS_PASSWORD_FILE: passwordFile }).credentials;
    expect(fromFile?.kind === 'user' && fromFile.password.reveal()).toBe('s3cr3t-from-file');
    const token = settings({ NATS_TOKEN: 't0k' }).credentials;
    expect(token?.kind === 'token' && token.token.reveal()).toBe('t0k');
  });

  it('takes user info from NATS_URL, strips it from the servers, and requires TLS for tls://', () => {
    const s = settings({ NATS_URL: 'tls://gate:p%40ss@nats.example:4222, tls://gate:p%40ss@nats2.example:4222' });
    expect(s.servers).toEqual(['tls://nats.example:4222', 'tls://nats2.example:4222']);
    expect(s.credentials?.kind === 'user' && [s.credentials.user, s.credentials.password.reveal()]).toEqual([
      'gate',
      'p@ss',
    ]);
    expect(s.tls).toEqual({});
    const token = settings({ NATS_URL: 'nats://abc123@127.0.0.1:4222' });
    expect(token.credentials?.kind === 'token' && token.credentials.token.reveal()).toBe('abc123');
  });

  it('turns a CA and a client certificate into TLS settings, and keeps the inbox prefix', () => {
    expect(settings({ NATS_CA: pem, NATS_CERT: pem, NATS_KEY: pem, NATS_INBOX_PREFIX: '_INBOX.gate' })).toMatchObject({
      tls: { caFile: pem, certFile: pem, keyFile: pem },
      inboxPrefix: '_INBOX.gate',
    });
  });

  it('names every bad variable, and never a secret', () => {
    const found = problems({
      NATS_URL: 'nats://u:hunter2@host:4222',
      NATS_TOKEN: 'also-a-token',
      NATS_CREDS: join(dir, 'missing.creds'),
      NATS_NKEY: passwordFile,
      NATS_CERT: pem,
      NATS_INBOX_PREFIX: '_INBOX.*',
    });
    expect(found).toEqual([
      expect.stringMatching(/^NATS_CREDS: cannot read .*missing\.creds: ENOENT$/),
      expect.stringMatching(/^NATS_NKEY: .* does not hold a user nkey seed/),
      'NATS_CREDS: give one kind of NATS credentials, not user info in NATS_URL and NATS_CREDS and NATS_NKEY and NATS_TOKEN',
      'NATS_KEY: a client certificate needs both NATS_CERT and NATS_KEY',
      expect.stringMatching(/^NATS_INBOX_PREFIX: /),
    ]);
    expect(found.join(' ')).not.toMatch(/hunter2|also-a-token|s3cr3t/);
    expect(problems({ NATS_USER: 'ops' })).toEqual(['NATS_USER: needs NATS_PASSWORD or NATS_PASSWORD_FILE']);
    expect(problems({ NATS_PASSWORD: 'x' })).toEqual(['NATS_PASSWORD: needs NATS_USER']);
    expect(problems({ NATS_USER: 'ops', NATS_PASSWORD: 'x', NATS_PASSWORD_FILE: passwordFile })).toEqual([
      'NATS_PASSWORD_FILE: give NATS_PASSWORD or NATS_PASSWORD_FILE, not both',
    ]);
    expect(problems({ NATS_CREDS: seedFile })).toEqual([
      expect.stringMatching(/^NATS_CREDS: .* is not a credentials file/),
    ]);
  });
});

describe('secrets never print', () => {
  it('shows [redacted] in strings, JSON and inspect, and the value only through reveal()', () => {
    const secret = new Secret('hunter2');
    const options = resolveBusOptions({
      service: 'gate',
      servers: 'nats://h:4222',
      credentials: { kind: 'user', user: 'gate', password: secret },
    });
    const printed = [String(secret), [secret].join(''), JSON.stringify(options), inspect(options, { depth: 5 })].join(
      '\n',
    );
    expect(printed).not.toContain('hunter2');
    expect(printed).toContain('[redacted]');
    expect(secret.reveal()).toBe('hunter2');
  });

  it('keeps user info out of server URLs', () => {
    expect(withoutUserInfo('nats://u:p@h:4222')).toBe('nats://h:4222');
    expect(withoutUserInfo('tok@h:4222')).toBe('tok@h:4222');
    expect(withoutUserInfo('tls://h:4222')).toBe('tls://h:4222');
    expect(() => resolveBusOptions({ service: 'gate', servers: 'nats://u:hunter2@h:4222' })).toThrow(BusConfigError);
    expect(() => resolveBusOptions({ service: 'gate', servers: 'nats://u:hunter2@h:4222' })).toThrow(
      /must not carry user info/,
    );
    expect(() => resolveBusOptions({ service: 'gate', servers: 'nats://h:4222', inboxPrefix: '_INBOX.>' })).toThrow(
      /inboxPrefix/,
    );
  });
});

describe('connection failures', () => {
  it('treats refused credentials and failed TLS handshakes as permanent, an unreachable server as not', () => {
    expect(isAuthFailure(new AuthorizationError('Authorization Violation'))).toBe(true);
    expect(
      isAuthFailure(
        new Error('wrapped', {
          cause: Object.assign(new Error('self-signed certificate in certificate chain'), {
            code: 'SELF_SIGNED_CERT_IN_CHAIN',
          }),
        }),
      ),
    ).toBe(true);
    expect(isAuthFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe(
      false,
    );
  });

  it('says what to set when replies cannot reach a user limited to its own inboxes', () => {
    const violation = new PermissionViolationError(
      'Permissions Violation for Subscription to "_INBOX.abc"',
      'subscription',
      '_INBOX.abc',
    );
    expect(describeNatsError(violation, null)).toMatch(/set NATS_INBOX_PREFIX/);
    expect(describeNatsError(violation, '_INBOX.gate')).not.toMatch(/NATS_INBOX_PREFIX/);
  });
});
