// The Python critic (standard library only) signs in to NATS each way the TypeScript services do:
// user/password, token, nkey seed and creds file (Ed25519 over the server's nonce, in pure Python),
// TLS with a CA and a client certificate, and an inbox prefix for a user limited to its own inboxes.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUser } from '@nats-io/nkeys';
import { type PrivateNatsServer, makeTestPki, natsOperator, startPrivateNatsServer } from '@rloop/testing';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rloop-pyauth-'));
const servers: PrivateNatsServer[] = [];

// Connects as the critic would (its Credentials and Nats classes) and asks JetStream for the account info.
const PROBE = [
  'import json, os, sys',
  "sys.path.insert(0, 'examples/python-critic')",
  'import critic',
  'try:',
  '    nc = critic.Nats(critic.Credentials(os.environ), "probe")',
  '    reply = json.loads(nc.request("$JS.API.INFO", b"", timeout=3).data)',
  '    print("ok" if "error" not in reply else "error " + json.dumps(reply["error"]))',
  'except (OSError, critic.NatsError) as error:',
  '    print("refused", error)',
].join('\n');

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

function probe(env: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('python3', ['-c', PROBE], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', () => resolve(output.trim()));
  });
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the Python critic’s NATS credentials', () => {
  it('reads NATS_URL as a list of servers and connects to the first that answers', async () => {
    const live = await server('');
    const dead = await server('');
    await dead.kill();
    expect(await probe({ NATS_URL: `${dead.url}, ${live.url}` })).toBe('ok');
    expect(await probe({ NATS_URL: `${live.url},${dead.url}` })).toBe('ok');
    expect(await probe({ NATS_URL: `${dead.url},${dead.url}` })).toMatch(
      /^refused no server of NATS_URL answers \(nats:\/\/127\.0\.0\.1:\d+: .*; nats:\/\/127\.0\.0\.1:\d+: /,
    );
  });

  it('user and password (variables, a file or the URL) and a token; wrong ones are refused, and never printed', async () => {
    const users = await server('authorization { users = [ { user: "critic", password: "pw-critic-1" } ] }');
    expect(await probe({ NATS_URL: users.url, NATS_USER: 'critic', NATS_PASSWORD: 'pw-critic-1' })).toBe('ok');
    expect(
      await probe({ NATS_URL: users.url, NATS_USER: 'critic', NATS_PASSWORD_FILE: file('pw', 'pw-critic-1\n') }),
    ).toBe('ok');
    expect(await probe({ NATS_URL: users.url.replace('nats://', 'nats://critic:pw-critic-1@') })).toBe('ok');
    const wrong = await probe({ NATS_URL: users.url.replace('nats://', 'nats://critic:hunter2@') });
    expect(wrong).toMatch(
      /^refused NATS at nats:\/\/127\.0\.0\.1:\d+ refused the connection: -ERR 'Authorization Violation'$/,
    );
    expect(wrong).not.toContain('hunter2');
    const tokens = await server('authorization { token: "t0k3n-py" }');
    expect(await probe({ NATS_URL: tokens.url, NATS_TOKEN: 't0k3n-py' })).toBe('ok');
    expect(await probe({ NATS_URL: tokens.url, NATS_TOKEN: 'nope' })).toMatch(/^refused .*Authorization Violation/);
  }, 60_000);

  it('an nkey seed and a creds file, signing the nonce with Ed25519; a key the server does not know is refused', async () => {
    const user = createUser();
    const nkeys = await server(`authorization { users = [ { nkey: ${user.getPublicKey()} } ] }`);
    expect(
      await probe({ NATS_URL: nkeys.url, NATS_NKEY: file('user.nk', new TextDecoder().decode(user.getSeed())) }),
    ).toBe('ok');
    expect(
      await probe({
        NATS_URL: nkeys.url,
        NATS_NKEY: file('other.nk', new TextDecoder().decode(createUser().getSeed())),
      }),
    ).toMatch(/^refused .*Authorization Violation/);
    expect(await probe({ NATS_URL: nkeys.url, NATS_NKEY: file('bad.nk', 'SUNOTASEED') })).toMatch(
      /^refused not an nkey seed/,
    );
    const operator = natsOperator();
    const jwt = await server(operator.config);
    expect(await probe({ NATS_URL: jwt.url, NATS_CREDS: file('critic.creds', operator.userCreds('critic')) })).toBe(
      'ok',
    );
    expect(
      await probe({ NATS_URL: jwt.url, NATS_CREDS: file('stranger.creds', natsOperator().userCreds('stranger')) }),
    ).toMatch(/^refused /);
  }, 60_000);

  it('TLS with a CA and a client certificate; an untrusted CA fails the handshake', async () => {
    const pki = makeTestPki(join(dir, 'pki'));
    const tls = await server(
      `tls { cert_file: "${pki.serverCertFile}", key_file: "${pki.serverKeyFile}", ca_file: "${pki.caFile}", verify: true }`,
    );
    expect(
      await probe({
        NATS_URL: tls.url,
        NATS_CA: pki.caFile,
        NATS_CERT: pki.clientCertFile,
        NATS_KEY: pki.clientKeyFile,
      }),
    ).toBe('ok');
    expect(
      await probe({
        NATS_URL: tls.url.replace('nats://', 'tls://'),
        NATS_CA: pki.caFile,
        NATS_CERT: pki.clientCertFile,
        NATS_KEY: pki.clientKeyFile,
      }),
    ).toBe('ok');
    expect(
      await probe({
        NATS_URL: tls.url,
        NATS_CA: pki.otherCaFile,
        NATS_CERT: pki.clientCertFile,
        NATS_KEY: pki.clientKeyFile,
      }),
    ).toMatch(/^refused .*CERTIFICATE_VERIFY_FAILED/);
  }, 60_000);

  it('takes replies under NATS_INBOX_PREFIX, for a user that may only subscribe to its own inboxes', async () => {
    const limited = await server(
      'authorization { users = [ { user: "critic", password: "pw", permissions: { subscribe: { allow: ["_INBOX.critic.>"] } } } ] }',
    );
    expect(
      await probe({
        NATS_URL: limited.url,
        NATS_USER: 'critic',
        NATS_PASSWORD: 'pw',
        NATS_INBOX_PREFIX: '_INBOX.critic',
      }),
    ).toBe('ok');
    expect(await probe({ NATS_URL: limited.url, NATS_USER: 'critic', NATS_PASSWORD: 'pw' })).toMatch(
      /Permissions Violation for Subscription to "_INBOX\.[\s\S]*\nrefused no reply on \$JS\.API\.INFO/,
    );
  }, 60_000);
});
