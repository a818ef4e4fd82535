import type { LoggerService } from '@nestjs/common';
import { type ConsumerMessages, DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { BUS_ERROR_CODES, BusConnectionError, BusRequestError, JetStreamClient } from '@rloop/bus';
import { DEFAULT_NAMESPACE, type RloopEvent, type Subjects, parseEvent, subjectsFor } from '@rloop/contracts';
import { JournalClient } from '@rloop/journal-client';
import { CliError } from '../program.js';

/** Where the CLI finds the fleet: flags first, then NATS_URL / RLOOP_NAMESPACE, then the defaults. */
export interface BusFlags {
  readonly natsUrl?: string;
  readonly namespace?: string;
}

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

export function resolveBusFlags(flags: BusFlags): { readonly natsUrl: string; readonly namespace: string } {
  return { natsUrl: flags.natsUrl ?? process.env['NATS_URL'] ?? DEFAULT_NATS_URL, namespace: flags.namespace ?? process.env['RLOOP_NAMESPACE'] ?? DEFAULT_NAMESPACE };
}

/** The CLI prints its own messages; the bus's log lines would only repeat them. */
const quiet: LoggerService = { log: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, verbose: () => undefined };

export interface CliBus {
  readonly client: JetStreamClient;
  readonly journal: JournalClient;
  readonly subjects: Subjects;
  readonly connection: NatsConnection;
  close(): Promise<void>;
}

/** The one line a user needs when NATS is not there. */
export function natsUnreachable(natsUrl: string): CliError {
  return new CliError(`cannot reach NATS at ${natsUrl} — start it with \`nats-server -js\` (JetStream on), or point NATS_URL / --nats-url at yours`);
}

/**
 * The one line a user needs when NATS is there but the fleet is not: no service listens on the
 * subject (nothing started, or another namespace), or none replied in time.
 */
export function fleetNotAnswering(error: BusRequestError): CliError {
  const what = error.code === BUS_ERROR_CODES.noResponders ? `no service answers ${error.subject}` : error.message;
  return new CliError(`${what} — is the fleet running? start it with \`rloop up\`, or point --namespace / RLOOP_NAMESPACE at the one it uses`);
}

/** What the CLI prints for an error a command did not handle itself. */
export function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof BusRequestError && error.code !== BUS_ERROR_CODES.requestFailed) return fleetNotAnswering(error);
  return new CliError(error instanceof Error ? error.message : String(error));
}

/** Connects to the fleet's NATS; a missing server is one clear line, not a stack trace. */
export async function connectCli(flags: BusFlags, options: { readonly connectTimeoutMs?: number; readonly requestTimeoutMs?: number } = {}): Promise<CliBus> {
  const { natsUrl, namespace } = resolveBusFlags(flags);
  const client = new JetStreamClient(
    { service: 'cli', servers: natsUrl, namespace, connect: { timeoutMs: options.connectTimeoutMs ?? 2_000 }, requestTimeoutMs: options.requestTimeoutMs ?? 10_000 },
    quiet,
  );
  let connection: NatsConnection;
  try {
    connection = await client.connect();
  } catch (error) {
    if (error instanceof BusConnectionError) throw natsUnreachable(natsUrl);
    throw error;
  }
  return { client, journal: new JournalClient(client, options.requestTimeoutMs ?? 10_000), subjects: subjectsFor(namespace), connection, close: () => client.close() };
}

export interface FollowOptions {
  /** Subject filter, e.g. `<ns>.v1.events.*.<plan>`. */
  readonly filter: string;
  /** Only events published after this time (default: everything the stream still holds). */
  readonly since?: Date;
  /** Only new events from now on. */
  readonly onlyNew?: boolean;
}

/**
 * Follows events on the events stream through an ordered (ephemeral) consumer. Messages that fail
 * their contract are skipped here: the consumers that own them dead-letter them.
 */
export async function followEvents(bus: CliBus, options: FollowOptions): Promise<{ readonly events: AsyncIterable<RloopEvent>; stop(): Promise<void> }> {
  const js = jetstream(bus.connection);
  const consumer = await js.consumers.get(bus.subjects.streams.events, {
    filter_subjects: options.filter,
    ...(options.onlyNew === true
      ? { deliver_policy: DeliverPolicy.New }
      : options.since === undefined
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
  return { events: events(), stop: async () => void (await messages.close()) };
}
