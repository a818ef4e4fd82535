import { type LoggerService } from '@nestjs/common';
import {
  AuthorizationError,
  type NatsConnection,
  PermissionViolationError,
  UserAuthenticationExpiredError,
  connect,
} from '@nats-io/transport-node';
import { describeError } from '@rloop/contracts';
import { describeCredentials, securityOptions } from './auth.js';
import { backoffDelay } from './disposition.js';
import { BusAuthError, BusConnectionError } from './errors.js';
import { type ResolvedBusOptions } from './options.js';

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Resolves after `ms`, or at once when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Node's codes for a TLS handshake that cannot succeed with these settings (unknown CA, bad name, no client certificate). */
const TLS_FAILURE = /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|ERR_OSSL/;

function errorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : '';
}

/** Whether a failed connect says the credentials or the TLS settings are wrong (not worth retrying). */
export function isAuthFailure(error: unknown): boolean {
  for (
    let e: unknown = error, depth = 0;
    e !== undefined && e !== null && depth < 5;
    e = (e as { cause?: unknown }).cause, depth += 1
  ) {
    if (e instanceof AuthorizationError || e instanceof UserAuthenticationExpiredError) return true;
    if (TLS_FAILURE.test(errorCode(e))) return true;
    const message = e instanceof Error ? e.message : '';
    if (
      /authorization violation|authentication (timeout|expired)|tls is not available|server does not support 'tls'|certificate/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

/**
 * The log line for a permissions violation, with the likely cause: replies to a client whose NATS
 * user may only subscribe to its own inboxes need NATS_INBOX_PREFIX.
 */
export function describeNatsError(error: unknown, inboxPrefix: string | null): string {
  const text = describeError(error);
  if (
    error instanceof PermissionViolationError &&
    error.operation === 'subscription' &&
    error.subject.startsWith('_INBOX') &&
    inboxPrefix === null
  ) {
    return `${text} — this NATS user may not receive replies on the default inboxes; set NATS_INBOX_PREFIX to the prefix it may subscribe to (e.g. _INBOX.<user>)`;
  }
  return text;
}

/**
 * Connects to NATS, retrying with exponential backoff and one log line per failed attempt, until
 * `connect.timeoutMs` has passed; then rejects with BusConnectionError. Once connected, the
 * client reconnects by itself forever; `watchConnection` logs what happens.
 */
export async function connectWithRetry(
  options: Pick<ResolvedBusOptions, 'servers' | 'connect' | 'service' | 'credentials' | 'tls' | 'inboxPrefix'>,
  logger: LoggerService,
  role: string,
  signal?: AbortSignal,
): Promise<NatsConnection> {
  const started = Date.now();
  const where = options.servers.join(', ');
  for (let attempt = 1; ; attempt += 1) {
    const remaining = options.connect.timeoutMs - (Date.now() - started);
    const timeout = Math.max(250, Math.min(remaining, 5_000));
    try {
      return await connect({
        servers: [...options.servers],
        name: `${options.service}:${role}`,
        // One attempt per call: the loop below owns the retry policy and its log lines.
        waitOnFirstConnect: false,
        timeout,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: options.connect.backoff.initialMs,
        ...securityOptions(options),
      });
    } catch (caught) {
      // A server that rejects the client's certificate ends the handshake with an alert, which a
      // reconnecting client reports only as a timeout: one plain attempt says what really happened.
      const error =
        options.tls !== null && !isAuthFailure(caught) ? await diagnose(options, role, timeout, caught) : caught;
      const elapsed = Date.now() - started;
      if (isAuthFailure(error)) {
        const message = `NATS at ${where} refused the connection of ${options.service} (${describeCredentials(options.credentials)}${options.tls === null ? '' : ', TLS'}): ${describeError(error)}`;
        logger.error(`${options.service}: ${message}`, 'Bus');
        throw new BusAuthError(options.servers, message, { cause: error });
      }
      const delay = backoffDelay(attempt, options.connect.backoff);
      if (signal?.aborted === true || elapsed + delay > options.connect.timeoutMs) {
        logger.error(
          `${options.service}: NATS at ${where} unreachable (attempt ${attempt}): ${describeError(error)}; giving up after ${elapsed} ms`,
          'Bus',
        );
        throw new BusConnectionError(options.servers, attempt, elapsed, { cause: error });
      }
      logger.warn(
        `${options.service}: NATS at ${where} unreachable (attempt ${attempt}): ${describeError(error)}; retrying in ${delay} ms`,
        'Bus',
      );
      await sleep(delay, signal);
      if (isAborted(signal))
        throw new BusConnectionError(options.servers, attempt, Date.now() - started, { cause: error });
    }
  }
}

/** The error of one attempt without reconnects (or `fallback` when that one connects after all). */
async function diagnose(
  options: Parameters<typeof connectWithRetry>[0],
  role: string,
  timeout: number,
  fallback: unknown,
): Promise<unknown> {
  try {
    const probe = await connect({
      servers: [...options.servers],
      name: `${options.service}:${role}`,
      timeout,
      reconnect: false,
      ...securityOptions(options),
    });
    await probe.close();
    return fallback;
  } catch (error) {
    return error;
  }
}

/** Logs disconnects, reconnects and errors of a live connection until it closes. */
export async function watchConnection(
  connection: NatsConnection,
  logger: LoggerService,
  service: string,
  onChange?: (state: 'connected' | 'disconnected' | 'reconnecting') => void,
  inboxPrefix: string | null = null,
): Promise<void> {
  for await (const status of connection.status()) {
    switch (status.type) {
      case 'disconnect':
        logger.warn(`${service}: disconnected from NATS at ${status.server}; reconnecting`, 'Bus');
        onChange?.('disconnected');
        break;
      case 'reconnecting':
        onChange?.('reconnecting');
        break;
      case 'reconnect':
        logger.log(`${service}: reconnected to NATS at ${status.server}`, 'Bus');
        onChange?.('connected');
        break;
      case 'error':
        logger.error(`${service}: NATS error: ${describeNatsError(status.error, inboxPrefix)}`, 'Bus');
        break;
      case 'ldm':
        logger.warn(`${service}: NATS server ${status.server} entered lame duck mode`, 'Bus');
        break;
      case 'staleConnection':
        logger.warn(`${service}: NATS connection went stale`, 'Bus');
        break;
      case 'slowConsumer':
        logger.warn(`${service}: slow consumer on ${status.sub.getSubject()} (${status.pending} pending)`, 'Bus');
        break;
      case 'update':
      case 'ping':
      case 'forceReconnect':
      case 'close':
        break;
    }
  }
}
