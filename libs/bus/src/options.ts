import { DEFAULT_NAMESPACE, type Issue } from '@rloop/contracts';
import { type BusCredentials, type BusTls, withoutUserInfo } from './auth.js';
import { BUS_ERROR_CODES, BusConfigError } from './errors.js';

/** Exponential backoff: attempt n waits min(maxMs, initialMs · 2^(n-1)). */
export interface BackoffOptions {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** How long to keep each stream's messages and how wide the deduplication window is. */
export interface StreamLimits {
  /** Nats-Msg-Id deduplication window of every stream (default 2 min). */
  readonly duplicateWindowMs: number;
  readonly eventsMaxAgeMs: number;
  readonly commitsMaxAgeMs: number;
  readonly criticsMaxAgeMs: number;
  /** Registry traffic keeps only the last few messages per critic and kind. */
  readonly criticsMaxMsgsPerSubject: number;
  readonly deadLettersMaxAgeMs: number;
  /**
   * Copies of every stream and KV bucket on a JetStream cluster (`RLOOP_STREAM_REPLICAS`; 3 on a
   * three-node cluster). null (unset): new streams get one copy and existing ones keep theirs, so a
   * process that was not told leaves an operator's choice alone; a number is applied to existing
   * streams too (up or down). More than 1 needs a cluster with at least that many JetStream nodes.
   */
  readonly replicas: number | null;
}

/** Consumer behaviour; every field can be overridden per handler in OnEvent/OnEventBatch. */
export interface ConsumerPolicy {
  /** Server-side ack wait; in-progress heartbeats are sent at a third of it while a handler runs. */
  readonly ackWaitMs: number;
  /** Deliveries after which a failing message is dead-lettered (reason max_deliver). */
  readonly maxDeliver: number;
  /** Nak delay after a retryable failure. */
  readonly backoff: BackoffOptions;
  /**
   * How long a message may keep failing with a TransientError (a dependency down: NATS, PostgreSQL,
   * the journal) before it is dead-lettered. Those failures are retried with the backoff but do not
   * use up maxDeliver: an outage is not the message's fault, and a loop must outlive a restart.
   */
  readonly maxOutageMs: number;
  /** Plans handled at the same time (messages of one plan are always sequential). */
  readonly concurrency: number;
  /** Messages pulled and held in memory at most (queued behind their plan or running). */
  readonly maxBuffered: number;
  /** Lifetime of one pull request; also bounds how long a stopped pull can linger. Min 1000. */
  readonly pullExpiresMs: number;
}

export interface ConnectOptions {
  /** Give up after this long at start (default 30 s): the service then exits non-zero. */
  readonly timeoutMs: number;
  readonly backoff: BackoffOptions;
}

/** Everything the bus needs; plain values, parsed by each service's config.ts (libraries never read the environment). */
export interface BusOptions {
  /** The service's name: prefix of its durable consumers, its request queue group, its connection name. */
  readonly service: string;
  readonly servers: string | readonly string[];
  /** How the client authenticates (default: none). */
  readonly credentials?: BusCredentials | null;
  /** TLS settings; set (even `{}`) to require an encrypted connection. */
  readonly tls?: BusTls | null;
  /**
   * Prefix of the client's reply inboxes (default `_INBOX`). A NATS user whose subscribe
   * permissions are limited to its own inboxes (`_INBOX.<user>.>`) sets `_INBOX.<user>`.
   */
  readonly inboxPrefix?: string | null;
  /** Subject namespace (`RLOOP_NAMESPACE`); default `rloop`. */
  readonly namespace?: string;
  readonly connect?: Partial<Omit<ConnectOptions, 'backoff'>> & { readonly backoff?: Partial<BackoffOptions> };
  readonly streams?: Partial<StreamLimits>;
  readonly consumer?: Partial<Omit<ConsumerPolicy, 'backoff'>> & { readonly backoff?: Partial<BackoffOptions> };
  /** Bound on waiting for in-flight handlers at close (default 10 s). */
  readonly shutdownTimeoutMs?: number;
  /** Default timeout of `request()` (default 5 s). */
  readonly requestTimeoutMs?: number;
  /** Timeout for a PubAck (default 5 s). */
  readonly publishTimeoutMs?: number;
  /** Create or update the streams when connecting (default true). */
  readonly provisionStreams?: boolean;
  /**
   * The ack wait of every consumer of the service, over what its handlers ask for: how soon a
   * message held by a process that died (kill -9, a lost host) goes to another. Handlers still
   * working keep their messages through heartbeats, so it bounds only the recovery after a crash.
   * Min 1000.
   */
  readonly ackWaitOverrideMs?: number;
}

export interface ResolvedBusOptions {
  readonly service: string;
  /** Server URLs without user info (safe to print). */
  readonly servers: readonly string[];
  readonly credentials: BusCredentials | null;
  readonly tls: BusTls | null;
  readonly inboxPrefix: string | null;
  readonly namespace: string;
  readonly connect: ConnectOptions;
  readonly streams: StreamLimits;
  readonly consumer: ConsumerPolicy;
  readonly shutdownTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly publishTimeoutMs: number;
  readonly provisionStreams: boolean;
  readonly ackWaitOverrideMs: number | null;
}

/** NATS subject tokens: no wildcards, no whitespace, no empty token. */
const INBOX_PREFIX = /^[^\s.*>]+(\.[^\s.*>]+)*$/;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const DEFAULT_STREAM_LIMITS: StreamLimits = Object.freeze({
  duplicateWindowMs: 2 * MINUTE,
  eventsMaxAgeMs: 7 * DAY,
  commitsMaxAgeMs: DAY,
  criticsMaxAgeMs: HOUR,
  // TODO(calibration): 5 keeps a short history per critic; settle it once registry traffic is observed.
  criticsMaxMsgsPerSubject: 5,
  deadLettersMaxAgeMs: 30 * DAY,
  replicas: null,
});

/** JetStream's own bound on a stream's replicas. */
export const MAX_STREAM_REPLICAS = 5;

export const DEFAULT_CONSUMER_POLICY: ConsumerPolicy = Object.freeze({
  ackWaitMs: 30_000,
  maxDeliver: 5,
  // TODO(calibration): 1 s doubling to 1 min is a guess; tune from dead-letter and retry counts.
  backoff: Object.freeze({ initialMs: 1_000, maxMs: 60_000 }),
  // TODO(calibration): 15 min outlives a restart of NATS or PostgreSQL and most maintenance.
  maxOutageMs: 15 * 60_000,
  concurrency: 8,
  maxBuffered: 256,
  pullExpiresMs: 5_000,
});

export const DEFAULT_CONNECT: ConnectOptions = Object.freeze({
  timeoutMs: 30_000,
  backoff: Object.freeze({ initialMs: 250, maxMs: 5_000 }),
});

function check(issues: Issue[], path: string, value: number, min: number): void {
  if (!Number.isFinite(value) || value < min)
    issues.push({ path, message: `must be a number >= ${min}, got ${String(value)}` });
}

function mergeBackoff(base: BackoffOptions, override: Partial<BackoffOptions> | undefined): BackoffOptions {
  return Object.freeze({ ...base, ...override });
}

/** Merges a handler's overrides into a consumer policy (and checks them). */
export function mergePolicy(
  base: ConsumerPolicy,
  override: ConsumerOverrides | undefined,
  where: string,
): ConsumerPolicy {
  const merged: ConsumerPolicy = Object.freeze({
    ...base,
    ...override,
    backoff: mergeBackoff(base.backoff, override?.backoff),
  });
  const issues: Issue[] = [];
  checkPolicy(issues, where, merged);
  if (issues.length > 0)
    throw new BusConfigError(
      BUS_ERROR_CODES.invalidOptions,
      `invalid consumer options for ${where}: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
    );
  return merged;
}

/** Per-handler overrides of the consumer policy. */
export type ConsumerOverrides = Partial<Omit<ConsumerPolicy, 'backoff'>> & {
  readonly backoff?: Partial<BackoffOptions>;
};

function checkPolicy(issues: Issue[], prefix: string, p: ConsumerPolicy): void {
  check(issues, `${prefix}.ackWaitMs`, p.ackWaitMs, 1_000);
  check(issues, `${prefix}.maxDeliver`, p.maxDeliver, 1);
  check(issues, `${prefix}.backoff.initialMs`, p.backoff.initialMs, 1);
  check(issues, `${prefix}.backoff.maxMs`, p.backoff.maxMs, p.backoff.initialMs);
  check(issues, `${prefix}.maxOutageMs`, p.maxOutageMs, 0);
  check(issues, `${prefix}.concurrency`, p.concurrency, 1);
  check(issues, `${prefix}.maxBuffered`, p.maxBuffered, 1);
  check(issues, `${prefix}.pullExpiresMs`, p.pullExpiresMs, 1_000);
}

/** Fills in defaults and checks every number; throws BusConfigError naming each bad field. */
export function resolveBusOptions(options: BusOptions): ResolvedBusOptions {
  const issues: Issue[] = [];
  if (typeof options.service !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(options.service)) {
    issues.push({ path: 'service', message: 'must be 1-64 of [A-Za-z0-9_-], starting with a letter or digit' });
  }
  const given = typeof options.servers === 'string' ? [options.servers] : [...options.servers];
  if (given.length === 0 || given.some((s) => s.length === 0))
    issues.push({ path: 'servers', message: 'must name at least one NATS URL' });
  // Credentials belong in `credentials`: a URL's user info would be printed wherever the URL is.
  if (given.some((s) => withoutUserInfo(s) !== s))
    issues.push({ path: 'servers', message: 'must not carry user info (user:password@); pass credentials instead' });
  const servers = given.map(withoutUserInfo);
  const inboxPrefix = options.inboxPrefix ?? null;
  if (inboxPrefix !== null && !INBOX_PREFIX.test(inboxPrefix))
    issues.push({
      path: 'inboxPrefix',
      message: 'must be dot-separated tokens without wildcards or spaces, e.g. _INBOX.gate',
    });
  const connect: ConnectOptions = Object.freeze({
    timeoutMs: options.connect?.timeoutMs ?? DEFAULT_CONNECT.timeoutMs,
    backoff: mergeBackoff(DEFAULT_CONNECT.backoff, options.connect?.backoff),
  });
  check(issues, 'connect.timeoutMs', connect.timeoutMs, 0);
  check(issues, 'connect.backoff.initialMs', connect.backoff.initialMs, 1);
  check(issues, 'connect.backoff.maxMs', connect.backoff.maxMs, connect.backoff.initialMs);
  const streams: StreamLimits = Object.freeze({ ...DEFAULT_STREAM_LIMITS, ...options.streams });
  check(issues, 'streams.duplicateWindowMs', streams.duplicateWindowMs, 1);
  for (const key of ['eventsMaxAgeMs', 'commitsMaxAgeMs', 'criticsMaxAgeMs', 'deadLettersMaxAgeMs'] as const) {
    check(issues, `streams.${key}`, streams[key], streams.duplicateWindowMs);
  }
  check(issues, 'streams.criticsMaxMsgsPerSubject', streams.criticsMaxMsgsPerSubject, 1);
  if (
    streams.replicas !== null &&
    !(Number.isInteger(streams.replicas) && streams.replicas >= 1 && streams.replicas <= MAX_STREAM_REPLICAS)
  ) {
    issues.push({
      path: 'streams.replicas',
      message: `must be an integer from 1 to ${MAX_STREAM_REPLICAS}, got ${String(streams.replicas)}`,
    });
  }
  const consumer: ConsumerPolicy = Object.freeze({
    ...DEFAULT_CONSUMER_POLICY,
    ...options.consumer,
    backoff: mergeBackoff(DEFAULT_CONSUMER_POLICY.backoff, options.consumer?.backoff),
  });
  checkPolicy(issues, 'consumer', consumer);
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
  check(issues, 'shutdownTimeoutMs', shutdownTimeoutMs, 0);
  check(issues, 'requestTimeoutMs', requestTimeoutMs, 1);
  check(issues, 'publishTimeoutMs', publishTimeoutMs, 1);
  const ackWaitOverrideMs = options.ackWaitOverrideMs ?? null;
  if (ackWaitOverrideMs !== null) check(issues, 'ackWaitOverrideMs', ackWaitOverrideMs, 1_000);
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  if (!/^[a-z][a-z0-9_-]{0,31}$/.test(namespace))
    issues.push({ path: 'namespace', message: 'must be 1-32 of [a-z0-9_-], starting with a letter' });
  if (issues.length > 0) {
    throw new BusConfigError(
      BUS_ERROR_CODES.invalidOptions,
      `invalid bus options: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
    );
  }
  return Object.freeze({
    service: options.service,
    servers: Object.freeze(servers),
    credentials: options.credentials ?? null,
    tls: options.tls ?? null,
    inboxPrefix,
    namespace,
    connect,
    streams,
    consumer,
    shutdownTimeoutMs,
    requestTimeoutMs,
    publishTimeoutMs,
    provisionStreams: options.provisionStreams ?? true,
    ackWaitOverrideMs,
  });
}
