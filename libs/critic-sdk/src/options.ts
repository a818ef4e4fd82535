import { createHash } from 'node:crypto';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import {
  type BusCredentials,
  type BusTls,
  CRITIC_HEALTH_DEFAULTS,
  LOG_FORMATS,
  type LogFormat,
  NatsEnvironment,
  natsConnectionSettings,
  withoutUserInfo,
} from '@rloop/bus';
import { DEFAULT_NAMESPACE, type EventOf, type Issue, ValidationError, subjectToken, toIssues } from '@rloop/contracts';
import { z } from 'zod';
import { CRITIC_SDK_ERROR_CODES } from './errors.js';

/** Where a critic service gets the files of the commit under review. */
export type CheckoutProvider = (round: EventOf<'RoundStarted'>['data'], workRoot: string) => Promise<string>;

export interface CriticServiceOptions {
  /** NATS of the fleet, e.g. `nats://127.0.0.1:4222`. */
  readonly natsUrl: string | readonly string[];
  /** How the critic authenticates to NATS (a creds file, an nkey seed, user/password, a token; default none). */
  readonly credentials?: BusCredentials | null;
  /** TLS to NATS (CA, client certificate); set to require it. */
  readonly tls?: BusTls | null;
  /** Reply inbox prefix, for a NATS user limited to its own inboxes (e.g. `_INBOX.critic-<id>`). */
  readonly inboxPrefix?: string | null;
  /** The fleet's subject namespace (default `rloop`). */
  readonly namespace?: string;
  /** This replica's name in the registry (default `<host>:<pid>`); replicas of one critic need distinct ones. */
  readonly instanceId?: string;
  /** Default 5 000 ms; shortened when the fleet's registry bucket expires entries sooner. */
  readonly heartbeatIntervalMs?: number;
  /** Read-only checkouts and caches (default `<tmp>/rloop-critics`). */
  readonly workRoot?: string;
  /** Rounds of different plans reviewed at once (default 2). */
  readonly concurrency?: number;
  /**
   * Files larger than this are not read (reported as skipped, `too_large`). Unset: the critics'
   * default bound, and a file skipped for its size keeps the round from counting as clean.
   */
  readonly maxFileBytes?: number;
  /** Announced in the registry. */
  readonly version?: string;
  /** How long to retry an unreachable NATS at start (default 10 000 ms). */
  readonly connectTimeoutMs?: number;
  /** Bound on finishing running reviews at stop (default 10 000 ms). */
  readonly shutdownTimeoutMs?: number;
  readonly logFormat?: LogFormat;
  readonly logger?: LoggerService;
  /** Withdraw and drain on SIGTERM/SIGINT, then exit (default true). */
  readonly handleSignals?: boolean;
  /**
   * Default: a read-only checkout of `round.commit` from `round.repo_path`, which works when the
   * critic runs where the fleet's repositories are. A remote critic passes its own (a clone of a
   * URL it can reach, a shared volume).
   */
  readonly checkout?: CheckoutProvider;
}

export interface ResolvedCriticServiceOptions {
  /** Server URLs without user info (safe to print). */
  readonly servers: readonly string[];
  readonly credentials: BusCredentials | null;
  readonly tls: BusTls | null;
  readonly inboxPrefix: string | null;
  readonly namespace: string;
  readonly instanceId: string;
  readonly heartbeatIntervalMs: number;
  readonly workRoot: string;
  readonly concurrency: number;
  /** null: the default bound (not chosen by the operator). */
  readonly maxFileBytes: number | null;
  readonly version: string;
  readonly connectTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly logFormat: LogFormat;
  readonly handleSignals: boolean;
}

const Options = z.object({
  servers: z.array(z.string().min(1)).min(1),
  namespace: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'use 1-32 of [a-z0-9_-], starting with a letter'),
  instanceId: z.string().min(1).max(128),
  heartbeatIntervalMs: z.int().min(100).max(600_000),
  workRoot: z.string().min(1),
  concurrency: z.int().min(1).max(64),
  maxFileBytes: z.int().min(1).nullable(),
  version: z.string().max(64),
  connectTimeoutMs: z.int().min(0),
  shutdownTimeoutMs: z.int().min(0),
  logFormat: z.enum(LOG_FORMATS),
  handleSignals: z.boolean(),
});

/** Fills in the defaults and checks every option; throws ValidationError naming each bad one. */
export function resolveCriticServiceOptions(options: CriticServiceOptions): ResolvedCriticServiceOptions {
  const parsed = Options.safeParse({
    servers: typeof options.natsUrl === 'string' ? [options.natsUrl] : [...options.natsUrl],
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    instanceId: options.instanceId ?? `${hostname()}:${process.pid}`,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? CRITIC_HEALTH_DEFAULTS.heartbeatIntervalMs,
    workRoot: options.workRoot ?? join(tmpdir(), 'rloop-critics'),
    concurrency: options.concurrency ?? 2,
    maxFileBytes: options.maxFileBytes ?? null,
    version: options.version ?? '0.0.0',
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    logFormat: options.logFormat ?? 'plain',
    handleSignals: options.handleSignals ?? true,
  });
  if (!parsed.success) {
    const issues: Issue[] = toIssues(parsed.error);
    throw new ValidationError(
      CRITIC_SDK_ERROR_CODES.invalidOptions,
      `bad critic service options: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  // Credentials travel in `credentials`, never in a URL that ends up in log lines.
  const servers = parsed.data.servers.map(withoutUserInfo);
  if (servers.some((s, i) => s !== parsed.data.servers[i])) {
    throw new ValidationError(
      CRITIC_SDK_ERROR_CODES.invalidOptions,
      'bad critic service options: natsUrl: must not carry user info (user:password@); pass credentials instead',
      [{ path: 'natsUrl', message: 'carries user info' }],
    );
  }
  return Object.freeze({
    ...parsed.data,
    servers,
    credentials: options.credentials ?? null,
    tls: options.tls ?? null,
    inboxPrefix: options.inboxPrefix ?? null,
  });
}

const Environment = NatsEnvironment.extend({
  RLOOP_NAMESPACE: z.string().default(DEFAULT_NAMESPACE),
  RLOOP_CRITIC_INSTANCE_ID: z.string().optional(),
  RLOOP_CRITIC_HEARTBEAT_MS: z.coerce.number().int().optional(),
  RLOOP_CRITIC_WORK_ROOT: z.string().optional(),
  RLOOP_CRITIC_CONCURRENCY: z.coerce.number().int().optional(),
  RLOOP_MAX_FILE_BYTES: z.coerce.number().int().optional(),
  RLOOP_NATS_CONNECT_TIMEOUT_MS: z.coerce.number().int().optional(),
  RLOOP_LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
});

/**
 * Reads the usual variables (NATS_URL, RLOOP_NAMESPACE, RLOOP_CRITIC_INSTANCE_ID,
 * RLOOP_CRITIC_HEARTBEAT_MS, RLOOP_CRITIC_WORK_ROOT, RLOOP_CRITIC_CONCURRENCY, RLOOP_MAX_FILE_BYTES,
 * RLOOP_NATS_CONNECT_TIMEOUT_MS, RLOOP_LOG_FORMAT) and the NATS credentials and TLS variables
 * every service reads (NATS_CREDS, NATS_NKEY, NATS_USER + NATS_PASSWORD[_FILE],
 * NATS_TOKEN[_FILE], NATS_CA, NATS_CERT + NATS_KEY, NATS_INBOX_PREFIX) from the environment the
 * caller passes.
 *
 * @example
 *   await runCriticService(critic, criticServiceOptionsFromEnv(process.env));
 */
export function criticServiceOptionsFromEnv(env: NodeJS.ProcessEnv): CriticServiceOptions {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = Environment.safeParse(cleaned);
  if (!parsed.success) {
    const issues = toIssues(parsed.error);
    throw new ValidationError(
      CRITIC_SDK_ERROR_CODES.invalidOptions,
      `bad environment: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  const e = parsed.data;
  let nats;
  try {
    nats = natsConnectionSettings(e, 'critic');
  } catch (error) {
    const issues = error instanceof ValidationError ? error.issues : [];
    throw new ValidationError(
      CRITIC_SDK_ERROR_CODES.invalidOptions,
      `bad environment: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
      { cause: error },
    );
  }
  return {
    natsUrl: nats.servers,
    credentials: nats.credentials,
    tls: nats.tls,
    inboxPrefix: nats.inboxPrefix,
    namespace: e.RLOOP_NAMESPACE,
    ...(e.RLOOP_CRITIC_INSTANCE_ID === undefined ? {} : { instanceId: e.RLOOP_CRITIC_INSTANCE_ID }),
    ...(e.RLOOP_CRITIC_HEARTBEAT_MS === undefined ? {} : { heartbeatIntervalMs: e.RLOOP_CRITIC_HEARTBEAT_MS }),
    ...(e.RLOOP_CRITIC_WORK_ROOT === undefined ? {} : { workRoot: e.RLOOP_CRITIC_WORK_ROOT }),
    ...(e.RLOOP_CRITIC_CONCURRENCY === undefined ? {} : { concurrency: e.RLOOP_CRITIC_CONCURRENCY }),
    ...(e.RLOOP_MAX_FILE_BYTES === undefined ? {} : { maxFileBytes: e.RLOOP_MAX_FILE_BYTES }),
    ...(e.RLOOP_NATS_CONNECT_TIMEOUT_MS === undefined ? {} : { connectTimeoutMs: e.RLOOP_NATS_CONNECT_TIMEOUT_MS }),
    ...(e.RLOOP_LOG_FORMAT === undefined ? {} : { logFormat: e.RLOOP_LOG_FORMAT }),
  };
}

/**
 * The bus service name of a critic (its durable consumer's prefix): `critic-<id as a token>`,
 * shortened with a hash when the id is long (names are at most 64 characters).
 */
export function criticServiceName(criticId: string): string {
  const token = subjectToken(criticId);
  if (token.length <= 56) return `critic-${token}`;
  return `critic-${token.slice(0, 46)}-${createHash('sha256').update(criticId).digest('hex').slice(0, 8)}`;
}
