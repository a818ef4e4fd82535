import type { LoggerService } from '@nestjs/common';
import { type ConsumerMessages, DeliverPolicy, jetstream } from '@nats-io/jetstream';
import { type NatsConnection, PermissionViolationError } from '@nats-io/transport-node';
import {
  BUS_ERROR_CODES,
  BusAuthError,
  BusConnectionError,
  BusPermissionError,
  BusRequestError,
  JetStreamClient,
  NatsEnvironment,
  type NatsConnectionSettings,
  natsConnectionSettings,
} from '@rloop/bus';
import {
  DEFAULT_NAMESPACE,
  type RloopEvent,
  type Subjects,
  ValidationError,
  parseEvent,
  subjectsFor,
} from '@rloop/contracts';
import { JournalClient } from '@rloop/journal-client';
import { CliError } from '../program.js';

/** Where the CLI finds the fleet: flags first, then NATS_URL / RLOOP_NAMESPACE, then the defaults. */
export interface BusFlags {
  readonly natsUrl?: string;
  readonly namespace?: string;
}

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

export interface ResolvedBusFlags {
  /** As given (it may carry user info): for the environment of services the CLI starts, never for printing. */
  readonly natsUrl: string;
  readonly namespace: string;
  /** Servers without user info, credentials, TLS and inbox prefix, from the NATS_* variables. */
  readonly nats: NatsConnectionSettings;
}

/**
 * The fleet's NATS and namespace, and the credentials from NATS_CREDS, NATS_NKEY, NATS_USER +
 * NATS_PASSWORD[_FILE], NATS_TOKEN[_FILE], NATS_CA, NATS_CERT + NATS_KEY and NATS_INBOX_PREFIX
 * (as every service reads them). A bad variable is one line naming it.
 */
export function resolveBusFlags(flags: BusFlags, env: NodeJS.ProcessEnv = process.env): ResolvedBusFlags {
  const natsUrl = flags.natsUrl ?? env['NATS_URL'] ?? DEFAULT_NATS_URL;
  const cleaned = Object.fromEntries(
    Object.entries({ ...env, NATS_URL: natsUrl }).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = NatsEnvironment.safeParse(cleaned);
  if (!parsed.success)
    throw new CliError(
      `bad NATS settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  let nats: NatsConnectionSettings;
  try {
    nats = natsConnectionSettings(parsed.data, 'rloop');
  } catch (error) {
    if (error instanceof ValidationError) throw new CliError(error.message.replace(/^rloop: /, ''));
    throw error;
  }
  return { natsUrl, namespace: flags.namespace ?? env['RLOOP_NAMESPACE'] ?? DEFAULT_NAMESPACE, nats };
}

/** The CLI prints its own messages; the bus's log lines would only repeat them. */
const quiet: LoggerService = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

export interface CliBus {
  readonly client: JetStreamClient;
  readonly journal: JournalClient;
  readonly subjects: Subjects;
  readonly connection: NatsConnection;
  close(): Promise<void>;
}

/** The one line a user needs when NATS is not there. `servers` are printed: never pass a URL with user info. */
export function natsUnreachable(servers: readonly string[]): CliError {
  return new CliError(
    `cannot reach NATS at ${servers.join(', ')} — start it with \`nats-server -js\` (JetStream on), or point NATS_URL / --nats-url at yours`,
  );
}

/**
 * The one line a user needs when NATS is there but the fleet is not: no service listens on the
 * subject (nothing started, or another namespace), or none replied in time.
 */
export function fleetNotAnswering(error: BusRequestError): CliError {
  const what = error.code === BUS_ERROR_CODES.noResponders ? `no service answers ${error.subject}` : error.message;
  return new CliError(
    `${what} — is the fleet running? start it with \`rloop up\`, or point --namespace / RLOOP_NAMESPACE at the one it uses`,
  );
}

/** The NATS permission violation behind an error, if that is what it is. */
export function permissionViolationOf(error: unknown): PermissionViolationError | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    if (e instanceof PermissionViolationError) return e;
  }
  return null;
}

/** What the CLI prints for an error a command did not handle itself. */
export function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  const violation = permissionViolationOf(error);
  if (error instanceof BusPermissionError || violation !== null) {
    const what =
      error instanceof BusPermissionError
        ? error.message
        : `NATS refused: this client's user may not ${violation?.operation === 'subscription' ? 'subscribe to' : 'publish to'} ${violation?.subject ?? '?'}`;
    return new CliError(
      `${what} — this command needs another NATS user (docs/security.md#the-bus: submitter posts plans; ops reads, resumes and stops)`,
    );
  }
  if (error instanceof BusRequestError && error.code !== BUS_ERROR_CODES.requestFailed) return fleetNotAnswering(error);
  return new CliError(error instanceof Error ? error.message : String(error));
}

/** Connects to the fleet's NATS; a missing server is one clear line, not a stack trace. */
export async function connectCli(
  flags: BusFlags,
  options: {
    readonly connectTimeoutMs?: number;
    readonly requestTimeoutMs?: number;
    readonly env?: NodeJS.ProcessEnv;
  } = {},
): Promise<CliBus> {
  const { namespace, nats } = resolveBusFlags(flags, options.env);
  const client = new JetStreamClient(
    {
      service: 'cli',
      ...nats,
      namespace,
      connect: { timeoutMs: options.connectTimeoutMs ?? 2_000 },
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      // The fleet owns the streams; a submitter or ops user may not create or change them.
      provisionStreams: false,
    },
    quiet,
  );
  let connection: NatsConnection;
  try {
    connection = await client.connect();
  } catch (error) {
    if (error instanceof BusConnectionError) throw natsUnreachable(nats.servers);
    if (error instanceof BusAuthError)
      throw new CliError(
        `${error.message} — check NATS_CREDS, NATS_NKEY, NATS_USER/NATS_PASSWORD, NATS_TOKEN or the TLS variables`,
      );
    throw error;
  }
  return {
    client,
    journal: new JournalClient(client, options.requestTimeoutMs ?? 10_000),
    subjects: subjectsFor(namespace),
    connection,
    close: () => client.close(),
  };
}

export interface FollowOptions {
  /** Subject filter, e.g. `<ns>.v1.events.escalation_raised.*` (one per consumer on NATS 2.9). */
  readonly filter: string;
  /** Which stream (default: the events stream; `commits` for the journal's announcements). */
  readonly channel?: 'events' | 'commits';
  /** Only events published after this time (default: everything the stream still holds). */
  readonly since?: Date;
  /** Only new events from now on. */
  readonly onlyNew?: boolean;
}

/**
 * Follows events on the events (or commits) stream through an ordered (ephemeral) consumer, or,
 * for only new events, a plain subscription. Messages that fail their contract are skipped here:
 * the consumers that own them dead-letter them.
 */
export async function followEvents(
  bus: CliBus,
  options: FollowOptions,
): Promise<{ readonly events: AsyncIterable<RloopEvent>; stop(): Promise<void> }> {
  if (options.onlyNew === true) return followLive(bus, options.filter);
  const js = jetstream(bus.connection);
  const consumer = await js.consumers.get(bus.subjects.streams[options.channel ?? 'events'], {
    filter_subjects: options.filter,
    ...(options.since === undefined
      ? { deliver_policy: DeliverPolicy.All }
      : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: options.since.toISOString() }),
  });
  const messages: ConsumerMessages = await consumer.consume();
  async function* events(): AsyncGenerator<RloopEvent> {
    for await (const msg of messages) {
      let raw: unknown;
      try {
        raw = msg.json();
      } catch {
        continue;
      }
      const parsed = parseEvent(raw);
      if (parsed.ok) yield parsed.event;
    }
  }
  // stop(), not close(): close() waits for the iterator to see the end, which never comes when nobody reads it.
  return { events: events(), stop: () => Promise.resolve(messages.stop()) };
}

/**
 * New events only, as they are published: a plain subscription, no JetStream consumer. So a NATS
 * user allowed to subscribe to `…escalation_raised.*` (ops) follows escalations without any right
 * on the streams. A re-published duplicate (same event id) is shown once.
 */
function followLive(
  bus: CliBus,
  filter: string,
): { readonly events: AsyncIterable<RloopEvent>; stop(): Promise<void> } {
  const subscription = bus.connection.subscribe(filter);
  const seen = new Set<string>();
  async function* events(): AsyncGenerator<RloopEvent> {
    for await (const msg of subscription) {
      let raw: unknown;
      try {
        raw = msg.json();
      } catch {
        continue;
      }
      const parsed = parseEvent(raw);
      if (!parsed.ok || seen.has(parsed.event.event_id)) continue;
      seen.add(parsed.event.event_id);
      yield parsed.event;
    }
  }
  // Leaving the loop over `events` closes the subscription already.
  return {
    events: events(),
    stop: async () => void (subscription.isClosed() ? undefined : await subscription.drain()),
  };
}
