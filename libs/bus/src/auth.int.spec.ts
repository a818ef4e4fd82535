// Each kind of NATS credentials against a nats-server of the spec's own that requires it: the
// settings come from the environment variables a service reads, the client publishes an event,
// and wrong credentials fail at once with BusAuthError (not after the connect timeout), with no
// secret in any log line.
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import { createUser } from '@nats-io/nkeys';
import { type PrivateNatsServer, makeTestPki, natsOperator, startPrivateNatsServer } from '@rloop/testing';
import { loopStopped } from './__fixtures__/events.js';
import { BusAuthError, JetStreamClient, NatsEnvironment, natsConnectionSettings } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'rloop-auth-int-'));
const servers: PrivateNatsServer[] = [];
const logLines: string[] = [];
const logger: LoggerService = {
  log: (m: unknown) => void logLines.push(String(m)),
  warn: (m: unknown) => void logLines.push(String(m)),
  error: (m: unknown) => void logLines.push(String(m)),
};

async function server(config: string): Promise<PrivateNatsServer> {
  const started = await startPrivateNatsServer({ config });
  servers.push(started);
  return started;
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Connects as a service configured by `env` would, and publishes one event through JetStream. */
async function publishWith(env: Record<string, string>): Promise<number> {
  const nats = natsConnectionSettings(NatsEnvironment.parse(env), 'spec');
  // A long connect bound: a refusal that were retried would make the spec time out.
  const client = new JetStreamClient(
    { service: 'spec', ...nats, namespace: 'authspec', connect: { timeoutMs: 60_000 } },
    logger,
  );
  try {
    return (await client.publishEvent(loopStopped('plan-a'))).seq;
  } finally {
    await client.close();
  }
}

afterEach(() => {
  logLines.length = 0;
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe('NATS credentials', () => {
  it('user and password, from variables, a password file or the URL; a wrong password is refused at once and never printed', async () => {
    const s = await server('authorization { users = [ { user: "gate", password: "pw-gate-1" } ] }');
    expect(await publishWith({ NATS_URL: s.url, NATS_USER: 'gate', NATS_PASSWORD: 'pw-gate-1' })).toBeGreaterThan(0);
    expect(
      await publishWith({ NATS_URL: s.url, NATS_USER: 'gate', NATS_PASSWORD_FILE: file('password', 'pw-gate-1\n') }),
    ).toBeGreaterThan(0);
    expect(await publishWith({ NATS_URL: s.url.replace('nats://', 'nats://gate:pw-gate-1@') })).toBeGreaterThan(0);
    await expect(publishWith({ NATS_URL: s.url, NATS_USER: 'gate', NATS_PASSWORD: 'hunter2-wrong' })).rejects.toThrow(
      BusAuthError,
    );
    await expect(publishWith({ NATS_URL: s.url.replace('nats://', 'nats://gate:hunter2-wrong@') })).rejects.toThrow(
      /refused the connection of spec \(user gate\): .*Authorization Violation/,
    );
    expect(logLines.join('\n')).toMatch(/Authorization Violation/);
    expect(logLines.join('\n')).not.toMatch(/hunter2|pw-gate/);
  });

  it('a token, from a variable, a file or the URL', async () => {
    const s = await server('authorization { token: "t0k3n-abc" }');
    expect(await publishWith({ NATS_URL: s.url, NATS_TOKEN: 't0k3n-abc' })).toBeGreaterThan(0);
    expect(await publishWith({ NATS_URL: s.url, NATS_TOKEN_FILE: file('token', 't0k3n-abc\n') })).toBeGreaterThan(0);
    expect(await publishWith({ NATS_URL: s.url.replace('nats://', 'nats://t0k3n-abc@') })).toBeGreaterThan(0);
    await expect(publishWith({ NATS_URL: s.url, NATS_TOKEN: 'not-the-token' })).rejects.toThrow(BusAuthError);
    await expect(publishWith({ NATS_URL: s.url })).rejects.toThrow(/refused the connection of spec \(no credentials\)/);
    expect(logLines.join('\n')).not.toMatch(/t0k3n|not-the-token/);
  });

  it('an nkey seed file, signing the server’s nonce; another key is refused', async () => {
    const user = createUser();
    const s = await server(`authorization { users = [ { nkey: ${user.getPublicKey()} } ] }`);
    const seed = file('user.nk', `${new TextDecoder().decode(user.getSeed())}\n`);
    expect(await publishWith({ NATS_URL: s.url, NATS_NKEY: seed })).toBeGreaterThan(0);
    const other = file('other.nk', new TextDecoder().decode(createUser().getSeed()));
    await expect(publishWith({ NATS_URL: s.url, NATS_NKEY: other })).rejects.toThrow(BusAuthError);
    expect(logLines.join('\n')).not.toContain(new TextDecoder().decode(user.getSeed()));
  });

  it('a creds file (user JWT + seed) against an operator-mode server; a user of another operator is refused', async () => {
    const operator = natsOperator();
    const s = await server(operator.config);
    expect(
      await publishWith({ NATS_URL: s.url, NATS_CREDS: file('gate.creds', operator.userCreds('gate')) }),
    ).toBeGreaterThan(0);
    await expect(
      publishWith({ NATS_URL: s.url, NATS_CREDS: file('stranger.creds', natsOperator().userCreds('stranger')) }),
    ).rejects.toThrow(BusAuthError);
  });

  it('TLS with a CA it generates and a client certificate the server verifies; an unknown CA is refused at once', async () => {
    const pki = makeTestPki(join(dir, 'pki'));
    const s = await server(
      `tls { cert_file: "${pki.serverCertFile}", key_file: "${pki.serverKeyFile}", ca_file: "${pki.caFile}", verify: true }`,
    );
    expect(
      await publishWith({
        NATS_URL: s.url,
        NATS_CA: pki.caFile,
        NATS_CERT: pki.clientCertFile,
        NATS_KEY: pki.clientKeyFile,
      }),
    ).toBeGreaterThan(0);
    expect(
      await publishWith({
        NATS_URL: s.url.replace('nats://', 'tls://'),
        NATS_CA: pki.caFile,
        NATS_CERT: pki.clientCertFile,
        NATS_KEY: pki.clientKeyFile,
      }),
    ).toBeGreaterThan(0);
    await expect(
      publishWith({
        NATS_URL: s.url,
        NATS_CA: pki.otherCaFile,
        NATS_CERT: pki.clientCertFile,
        NATS_KEY: pki.clientKeyFile,
      }),
    ).rejects.toThrow(BusAuthError);
    await expect(publishWith({ NATS_URL: s.url, NATS_CA: pki.caFile })).rejects.toThrow(BusAuthError);
  });
});
