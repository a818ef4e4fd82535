import { readFileSync } from 'node:fs';
import {
  type Authenticator,
  type ConnectionOptions,
  credsAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node';

const REDACTED = '[redacted]';

/**
 * A password or token. It never prints: `String()`, template literals, JSON and `util.inspect`
 * all show `[redacted]`; only `reveal()` hands the value to the NATS client.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Secret(${REDACTED})`;
  }
}

/**
 * How a client proves who it is to NATS — the standard kinds, one at a time:
 * - `creds`: a credentials file (user JWT + nkey seed, as `nsc` writes it);
 * - `nkey`: a file holding an nkey seed (`SU…`), for servers that list users by public nkey;
 * - `user`: user name and password; `token`: a bearer token.
 * Files are read at every (re)connect, so a rotated file is picked up without a restart.
 */
export type BusCredentials =
  | { readonly kind: 'creds'; readonly file: string }
  | { readonly kind: 'nkey'; readonly seedFile: string }
  | { readonly kind: 'user'; readonly user: string; readonly password: Secret }
  | { readonly kind: 'token'; readonly token: Secret };

/**
 * TLS to NATS. Present (even empty) means the connection must be encrypted: `caFile` is the CA
 * that signs the server's certificate (default: the system's), `certFile` + `keyFile` a client
 * certificate for servers that verify clients.
 */
export interface BusTls {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** Who the credentials say the client is, for log lines: the kind and the user name, never a secret. */
export function describeCredentials(credentials: BusCredentials | null): string {
  if (credentials === null) return 'no credentials';
  switch (credentials.kind) {
    case 'creds':
      return `credentials file ${credentials.file}`;
    case 'nkey':
      return `nkey seed ${credentials.seedFile}`;
    case 'user':
      return `user ${credentials.user}`;
    case 'token':
      return 'a token';
  }
}

function readText(path: string): string {
  return readFileSync(path, 'utf8').trim();
}

function authenticator(credentials: BusCredentials): Authenticator {
  switch (credentials.kind) {
    case 'creds':
      return credsAuthenticator(() => readFileSync(credentials.file));
    case 'nkey':
      return nkeyAuthenticator(() => new TextEncoder().encode(readText(credentials.seedFile)));
    case 'user':
      return usernamePasswordAuthenticator(credentials.user, () => credentials.password.reveal());
    case 'token':
      return tokenAuthenticator(() => credentials.token.reveal());
  }
}

/** The NATS client options for credentials, TLS and the inbox prefix (nothing when none is set). */
export function securityOptions(security: {
  readonly credentials: BusCredentials | null;
  readonly tls: BusTls | null;
  readonly inboxPrefix: string | null;
}): Partial<ConnectionOptions> {
  return {
    ...(security.credentials === null ? {} : { authenticator: authenticator(security.credentials) }),
    ...(security.tls === null ? {} : { tls: { ...security.tls } }),
    ...(security.inboxPrefix === null ? {} : { inboxPrefix: security.inboxPrefix }),
  };
}

/**
 * A server URL without its user info: `nats://user:pass@host:4222` → `nats://host:4222`, for
 * log lines and error messages (and for the NATS client, which ignores user info anyway).
 */
export function withoutUserInfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}
