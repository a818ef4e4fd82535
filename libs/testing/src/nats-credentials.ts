// Credentials of every kind NATS accepts, made fresh for a test: an operator with one account and
// its users (JWT + nkey creds files, as `nsc` writes them), and a small PKI for TLS (openssl).
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KeyPair, createAccount, createOperator, createUser } from '@nats-io/nkeys';

function base64url(bytes: Uint8Array | string): string {
  return Buffer.from(bytes).toString('base64url');
}

/** A NATS JWT (v2 claims), signed by `issuer` with its nkey (`alg: ed25519-nkey`). */
function signJwt(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const claims: Record<string, unknown> = {
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject,
    nats: { ...nats, version: 2 },
  };
  claims['jti'] = createHash('sha256')
    .update(JSON.stringify(claims))
    .update(randomBytes(8))
    .digest('base64url')
    .slice(0, 52)
    .toUpperCase();
  const unsigned = `${base64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }))}.${base64url(JSON.stringify(claims))}`;
  return `${unsigned}.${base64url(issuer.sign(new TextEncoder().encode(unsigned)))}`;
}

const UNLIMITED = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
  mem_storage: -1,
  disk_storage: -1,
  streams: -1,
  consumer: -1,
};

/** What a user may publish and subscribe to (NATS JWT user claims). */
export interface JwtUserPermissions {
  readonly pub?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  readonly sub?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
}

export interface NatsOperator {
  /** Server configuration: the operator, and a memory resolver preloaded with the account. */
  readonly config: string;
  /** A credentials file's text for a new user of the account (JWT + seed). */
  userCreds(name: string, permissions?: JwtUserPermissions): string;
}

/** An operator, one account (JetStream unlimited) and a way to mint its users' creds files. */
export function natsOperator(): NatsOperator {
  const operator = createOperator();
  const account = createAccount();
  // JetStream needs a system account in operator mode.
  const system = createAccount();
  const operatorJwt = signJwt(operator, operator.getPublicKey(), 'test-operator', {
    type: 'operator',
    system_account: system.getPublicKey(),
  });
  const accountJwt = signJwt(operator, account.getPublicKey(), 'test-account', {
    type: 'account',
    limits: UNLIMITED,
    default_permissions: { pub: {}, sub: {} },
  });
  const systemJwt = signJwt(operator, system.getPublicKey(), 'SYS', {
    type: 'account',
    limits: { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 },
    default_permissions: { pub: {}, sub: {} },
  });
  return {
    config: [
      `operator: ${operatorJwt}`,
      `system_account: ${system.getPublicKey()}`,
      'resolver: MEMORY',
      `resolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }`,
      '',
    ].join('\n'),
    userCreds: (name, permissions = {}) => {
      const user = createUser();
      const jwt = signJwt(account, user.getPublicKey(), name, {
        type: 'user',
        pub: permissions.pub ?? {},
        sub: permissions.sub ?? {},
        subs: -1,
        data: -1,
        payload: -1,
      });
      const seed = new TextDecoder().decode(user.getSeed());
      return `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`;
    },
  };
}

export interface TestPki {
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** A second CA that signed nothing here: trusting it instead fails the handshake. */
  readonly otherCaFile: string;
}

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, made by openssl in `dir`. */
export function makeTestPki(dir: string): TestPki {
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]): void =>
    void execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ca = (name: string): void =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
    );
  ca('ca');
  ca('other-ca');
  const issue = (name: string, ext: string): void => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    );
  };
  issue('server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issue('client', 'extendedKeyUsage=clientAuth\n');
  return {
    caFile: join(dir, 'ca.pem'),
    serverCertFile: join(dir, 'server.pem'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client.key'),
    otherCaFile: join(dir, 'other-ca.pem'),
  };
}
