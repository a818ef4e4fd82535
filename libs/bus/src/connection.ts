import { type LoggerService } from '@nestjs/common';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { describeError } from '@rloop/contracts';
import { backoffDelay } from './disposition.js';
import { BusConnectionError } from './errors.js';
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

/**
 * Connects to NATS, retrying with exponential backoff and one log line per failed attempt, until
 * `connect.timeoutMs` has passed; then rejects with BusConnectionError. Once connected, the
 * client reconnects by itself forever; `watchConnection` logs what happens.
 */
export async function connectWithRetry(
  options: Pick<ResolvedBusOptions, 'servers' | 'connect' | 'service'>,
  logger: LoggerService,
  role: string,
  signal?: AbortSignal,
): Promise<NatsConnection> {
  const started = Date.now();
  const where = options.servers.join(', ');
  for (let attempt = 1; ; attempt += 1) {
    const remaining = options.connect.timeoutMs - (Date.now() - started);
    try {
      return await connect({
        servers: [...options.servers],
        name: `${options.service}:${role}`,
        // One attempt per call: the loop below owns the retry policy and its log lines.
        waitOnFirstConnect: false,
        timeout: Math.max(250, Math.min(remaining, 5_000)),
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: options.connect.backoff.initialMs,
      });
    } catch (error) {
      const elapsed = Date.now() - started;
      const delay = backoffDelay(attempt, options.connect.backoff);
      if (signal?.aborted === true || elapsed + delay > options.connect.timeoutMs) {
        logger.error(`${options.service}: NATS at ${where} unreachable (attempt ${attempt}): ${describeError(error)}; giving up after ${elapsed} ms`, 'Bus');
        throw new BusConnectionError(options.servers, attempt, elapsed, { cause: error });
      }
      logger.warn(`${options.service}: NATS at ${where} unreachable (attempt ${attempt}): ${describeError(error)}; retrying in ${delay} ms`, 'Bus');
      await sleep(delay, signal);
      if (isAborted(signal)) throw new BusConnectionError(options.servers, attempt, Date.now() - started, { cause: error });
    }
  }
}

/** Logs disconnects, reconnects and errors of a live connection until it closes. */
export async function watchConnection(
  connection: NatsConnection,
  logger: LoggerService,
  service: string,
  onChange?: (state: 'connected' | 'disconnected' | 'reconnecting') => void,
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
        logger.error(`${service}: NATS error: ${describeError(status.error)}`, 'Bus');
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
