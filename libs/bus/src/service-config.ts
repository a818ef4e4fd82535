import { accessSync, constants, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_NAMESPACE, type Issue, ValidationError, toIssues } from '@rloop/contracts';
import { z } from 'zod';
import { type BusCredentials, type BusTls, Secret, withoutUserInfo } from './auth.js';
import { LOG_FORMATS, LOG_LEVEL_NAMES, type LogLevelName } from './logger.js';
import { MAX_STREAM_REPLICAS } from './options.js';

/**
 * How a client reaches and authenticates to NATS, with the variable names of the `nats` CLI.
 * Every service, the CLI and the critic SDK read these (see the README's table).
 */
export const NatsEnvironment = z.object({
  /** One URL or several, comma-separated; `tls://` requires TLS; `user:password@` or `token@` is accepted and never printed. */
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  /** A file holding the password (Docker and Kubernetes secrets). */
  NATS_PASSWORD_FILE: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  NATS_TOKEN_FILE: z.string().optional(),
  /** A credentials file: user JWT and nkey seed. */
  NATS_CREDS: z.string().optional(),
  /** A file holding a user nkey seed (`SU…`). */
  NATS_NKEY: z.string().optional(),
  NATS_CA: z.string().optional(),
  NATS_CERT: z.string().optional(),
  NATS_KEY: z.string().optional(),
  /** Reply inboxes under this prefix, for a NATS user that may only subscribe to its own (`_INBOX.<user>`). */
  NATS_INBOX_PREFIX: z.string().optional(),
});
export type NatsEnvironment = z.infer<typeof NatsEnvironment>;

/** Where NATS is and how to authenticate: plain values for BusOptions (servers without user info). */
export interface NatsConnectionSettings {
  readonly servers: readonly string[];
  readonly credentials: BusCredentials | null;
  readonly tls: BusTls | null;
  readonly inboxPrefix: string | null;
}

const URL_PARTS = /^(?<scheme>[a-z][a-z0-9+.-]*:\/\/)?(?:(?<userinfo>[^@/]*)@)?(?<rest>.*)$/i;

function readableFile(
  issues: Issue[],
  variable: string,
  path: string | undefined,
  check?: (text: string) => string | null,
): void {
  if (path === undefined) return;
  try {
    accessSync(path, constants.R_OK);
    if (check !== undefined) {
      const problem = check(readFileSync(path, 'utf8'));
      if (problem !== null) issues.push({ path: variable, message: `${path} ${problem}` });
    }
  } catch (error) {
    issues.push({
      path: variable,
      message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    });
  }
}

function secretFrom(
  issues: Issue[],
  value: string | undefined,
  file: string | undefined,
  variable: string,
): Secret | undefined {
  if (value !== undefined && file !== undefined) {
    issues.push({ path: `${variable}_FILE`, message: `give ${variable} or ${variable}_FILE, not both` });
    return undefined;
  }
  if (file === undefined) return value === undefined ? undefined : new Secret(value);
  try {
    return new Secret(readFileSync(file, 'utf8').replace(/\r?\n$/, ''));
  } catch (error) {
    issues.push({
      path: `${variable}_FILE`,
      message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    });
    return undefined;
  }
}

/**
 * Turns the NATS variables into connection settings: at most one kind of credentials (a creds
 * file, an nkey seed, user and password, a token — or user info in NATS_URL), TLS when the URL
 * says `tls://` or a CA or client certificate is given, and the inbox prefix. Files are checked
 * now, so a wrong path is a start error naming its variable. Throws ValidationError
 * (CONFIG.INVALID_ENVIRONMENT) listing every problem; never puts a secret in a message.
 */
export function natsConnectionSettings(env: NatsEnvironment, who: string): NatsConnectionSettings {
  const issues: Issue[] = [];
  const urls = env.NATS_URL.split(',')
    .map((u) => u.trim())
    .filter((u) => u.length > 0);
  if (urls.length === 0) issues.push({ path: 'NATS_URL', message: 'names no server' });
  let fromUrl: BusCredentials | null = null;
  let tlsScheme = false;
  for (const url of urls) {
    const parts = URL_PARTS.exec(url)?.groups ?? {};
    if (parts['scheme']?.toLowerCase() === 'tls://') tlsScheme = true;
    const info = parts['userinfo'];
    if (info === undefined) continue;
    const colon = info.indexOf(':');
    const found: BusCredentials =
      colon === -1
        ? { kind: 'token', token: new Secret(decodeURIComponent(info)) }
        : {
            kind: 'user',
            user: decodeURIComponent(info.slice(0, colon)),
            password: new Secret(decodeURIComponent(info.slice(colon + 1))),
          };
    if (fromUrl !== null && JSON.stringify(describeForCompare(fromUrl)) !== JSON.stringify(describeForCompare(found))) {
      issues.push({ path: 'NATS_URL', message: 'its URLs carry different credentials' });
    }
    fromUrl = found;
  }
  const password = secretFrom(issues, env.NATS_PASSWORD, env.NATS_PASSWORD_FILE, 'NATS_PASSWORD');
  const token = secretFrom(issues, env.NATS_TOKEN, env.NATS_TOKEN_FILE, 'NATS_TOKEN');
  if (env.NATS_USER !== undefined && password === undefined && !issues.some((i) => i.path === 'NATS_PASSWORD_FILE'))
    issues.push({ path: 'NATS_USER', message: 'needs NATS_PASSWORD or NATS_PASSWORD_FILE' });
  if (env.NATS_USER === undefined && password !== undefined)
    issues.push({ path: 'NATS_PASSWORD', message: 'needs NATS_USER' });
  const kinds: BusCredentials[] = [];
  const named: string[] = [];
  if (fromUrl !== null) {
    kinds.push(fromUrl);
    named.push('user info in NATS_URL');
  }
  if (env.NATS_CREDS !== undefined) {
    readableFile(issues, 'NATS_CREDS', env.NATS_CREDS, (text) =>
      /-----BEGIN NATS USER JWT-----/.test(text) && /-----BEGIN USER NKEY SEED-----/.test(text)
        ? null
        : 'is not a credentials file (a user JWT and an nkey seed)',
    );
    kinds.push({ kind: 'creds', file: env.NATS_CREDS });
    named.push('NATS_CREDS');
  }
  if (env.NATS_NKEY !== undefined) {
    readableFile(issues, 'NATS_NKEY', env.NATS_NKEY, (text) =>
      /^SU[A-Z2-7]{50,}$/.test(text.trim()) ? null : 'does not hold a user nkey seed (SU…)',
    );
    kinds.push({ kind: 'nkey', seedFile: env.NATS_NKEY });
    named.push('NATS_NKEY');
  }
  if (env.NATS_USER !== undefined && password !== undefined) {
    kinds.push({ kind: 'user', user: env.NATS_USER, password });
    named.push('NATS_USER');
  }
  if (token !== undefined) {
    kinds.push({ kind: 'token', token });
    named.push('NATS_TOKEN');
  }
  if (kinds.length > 1)
    issues.push({
      path: named[1] ?? 'NATS_URL',
      message: `give one kind of NATS credentials, not ${named.join(' and ')}`,
    });
  readableFile(issues, 'NATS_CA', env.NATS_CA);
  readableFile(issues, 'NATS_CERT', env.NATS_CERT);
  readableFile(issues, 'NATS_KEY', env.NATS_KEY);
  if ((env.NATS_CERT === undefined) !== (env.NATS_KEY === undefined))
    issues.push({
      path: env.NATS_CERT === undefined ? 'NATS_CERT' : 'NATS_KEY',
      message: 'a client certificate needs both NATS_CERT and NATS_KEY',
    });
  const inboxPrefix = env.NATS_INBOX_PREFIX ?? null;
  if (inboxPrefix !== null && !/^[^\s.*>]+(\.[^\s.*>]+)*$/.test(inboxPrefix))
    issues.push({
      path: 'NATS_INBOX_PREFIX',
      message: 'must be dot-separated tokens without wildcards or spaces, e.g. _INBOX.gate',
    });
  if (issues.length > 0) {
    throw new ValidationError(
      'CONFIG.INVALID_ENVIRONMENT',
      `${who}: bad environment: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  const tlsWanted = tlsScheme || env.NATS_CA !== undefined || env.NATS_CERT !== undefined;
  const tls: BusTls | null = tlsWanted
    ? Object.freeze({
        ...(env.NATS_CA === undefined ? {} : { caFile: env.NATS_CA }),
        ...(env.NATS_CERT === undefined ? {} : { certFile: env.NATS_CERT }),
        ...(env.NATS_KEY === undefined ? {} : { keyFile: env.NATS_KEY }),
      })
    : null;
  return Object.freeze({
    servers: Object.freeze(urls.map(withoutUserInfo)),
    credentials: kinds[0] ?? null,
    tls,
    inboxPrefix,
  });
}

/** Credentials as plain values, to compare two of them (never printed). */
function describeForCompare(credentials: BusCredentials): readonly string[] {
  switch (credentials.kind) {
    case 'user':
      return [credentials.kind, credentials.user, credentials.password.reveal()];
    case 'token':
      return [credentials.kind, credentials.token.reveal()];
    case 'creds':
      return [credentials.kind, credentials.file];
    case 'nkey':
      return [credentials.kind, credentials.seedFile];
  }
}

/** Environment every service reads. Service config.ts files extend it with their own variables. */
export const CommonEnvironment = NatsEnvironment.extend({
  RLOOP_NAMESPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'use 1-32 of [a-z0-9_-], starting with a letter')
    .default(DEFAULT_NAMESPACE),
  RLOOP_LOG_FORMAT: z.enum(LOG_FORMATS).default('plain'),
  /** Where services keep local state: worktrees, caches, the embedded journal. */
  RLOOP_HOME: z.string().min(1).default('.rloop'),
  /** Directory of refinement-triggers.yaml and critics.yaml. */
  RLOOP_CONFIG_DIR: z.string().min(1).optional(),
  /** How long a service keeps retrying an unreachable NATS at start before it exits. */
  RLOOP_NATS_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Copies of every stream and KV bucket on a JetStream cluster (3 on a three-node cluster); unset:
   * new streams get one and existing ones keep theirs. Applied to existing streams when set.
   */
  RLOOP_STREAM_REPLICAS: z.coerce.number().int().min(1).max(MAX_STREAM_REPLICAS).optional(),
  /** How soon a message held by a service that died is delivered again (every consumer's ack wait). */
  RLOOP_ACK_WAIT_MS: z.coerce.number().int().min(1_000).optional(),
  /** The lowest log level written. */
  RLOOP_LOG_LEVEL: z.enum(LOG_LEVEL_NAMES).default('info'),
  /** Port of /healthz, /readyz and /metrics (the console's pages too); 0 = off. `rloop up` gives each service its own. */
  RLOOP_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /** Address that port listens on. */
  RLOOP_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  /** OTLP/HTTP collector (e.g. `http://collector:4318`): traces go to `<it>/v1/traces`. Unset: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** The full traces URL, over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
});
export type CommonEnvironment = z.infer<typeof CommonEnvironment>;

/**
 * Parses a service's environment once, at start. On a bad or missing variable it throws a
 * ValidationError whose message names every variable at fault, so the service exits with one
 * clear line. Empty strings count as unset.
 */
export function parseEnvironment<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv,
  service: string,
): Readonly<z.infer<S>> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issues = toIssues(parsed.error);
    throw new ValidationError(
      'CONFIG.INVALID_ENVIRONMENT',
      `${service}: bad environment: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  return Object.freeze(parsed.data);
}

/** Resolves a directory setting against the working directory. */
export function resolveDir(path: string): string {
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}

/** The repository's config/ directory, next to the services. */
export const DEFAULT_CONFIG_DIR = fileURLToPath(new URL('../../../config', import.meta.url));

/**
 * Reads and validates a YAML config file (config/critics.yaml, config/refinement-triggers.yaml).
 * A missing file, bad YAML or a schema violation is a ValidationError naming the file and the
 * place in it.
 */
export async function loadYamlConfig<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ValidationError(
      'CONFIG.UNREADABLE',
      `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
      [{ path, message: 'unreadable' }],
    );
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, { uniqueKeys: true });
  } catch (error) {
    throw new ValidationError(
      'CONFIG.INVALID_YAML',
      `${path} is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      [{ path, message: 'invalid YAML' }],
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = toIssues(parsed.error);
    throw new ValidationError(
      'CONFIG.INVALID',
      `${path}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  return parsed.data;
}

/** What every service derives from the common environment. */
export interface CommonSettings {
  readonly bus: NatsConnectionSettings & {
    readonly namespace: string;
    readonly connect: { readonly timeoutMs: number };
    readonly ackWaitOverrideMs?: number;
    readonly streams?: { readonly replicas: number };
  };
  readonly logFormat: (typeof LOG_FORMATS)[number];
  readonly logLevel: LogLevelName;
  readonly ops: OpsSettings;
  /** Absolute path of RLOOP_HOME. */
  readonly home: string;
  /** Absolute path of the config directory. */
  readonly configDir: string;
}

/** Health, metrics and traces of a service. */
export interface OpsSettings {
  /** null: no HTTP endpoint. */
  readonly http: { readonly host: string; readonly port: number } | null;
  /** OTLP/HTTP traces URL; null: tracing off. */
  readonly tracesEndpoint: string | null;
}

function tracesEndpoint(env: CommonEnvironment): string | null {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined) return null;
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}

/** Derives the common settings; throws ValidationError for bad NATS credentials or TLS variables (named). */
export function commonSettings(env: CommonEnvironment, service: string): CommonSettings {
  return {
    bus: {
      ...natsConnectionSettings(env, service),
      namespace: env.RLOOP_NAMESPACE,
      connect: { timeoutMs: env.RLOOP_NATS_CONNECT_TIMEOUT_MS },
      ...(env.RLOOP_ACK_WAIT_MS === undefined ? {} : { ackWaitOverrideMs: env.RLOOP_ACK_WAIT_MS }),
      ...(env.RLOOP_STREAM_REPLICAS === undefined ? {} : { streams: { replicas: env.RLOOP_STREAM_REPLICAS } }),
    },
    logFormat: env.RLOOP_LOG_FORMAT,
    logLevel: env.RLOOP_LOG_LEVEL,
    ops: {
      http: env.RLOOP_HTTP_PORT === 0 ? null : { host: env.RLOOP_HTTP_HOST, port: env.RLOOP_HTTP_PORT },
      tracesEndpoint: tracesEndpoint(env),
    },
    home: resolveDir(env.RLOOP_HOME),
    configDir: env.RLOOP_CONFIG_DIR === undefined ? DEFAULT_CONFIG_DIR : resolveDir(env.RLOOP_CONFIG_DIR),
  };
}
