import { Logger, type LoggerService } from '@nestjs/common';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { type JetStreamClient as NatsJetStream, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  NoRespondersError,
  PermissionViolationError,
  RequestError,
  TimeoutError,
  headers as natsHeaders,
} from '@nats-io/transport-node';
import {
  type RloopEvent,
  type Subjects,
  ValidationError,
  describeError,
  isEventType,
  parseEvent,
  subjectsFor,
} from '@rloop/contracts';
import { maskSecretsDeep } from '@rloop/domain';
import { decodeUtf8, encodeJson } from './codec.js';
import { connectWithRetry, watchConnection } from './connection.js';
import {
  BUS_ERROR_CODES,
  BusPermissionError,
  BusPublishError,
  BusRequestError,
  RemoteError,
  RemoteTransientError,
} from './errors.js';
import { type BusOptions, type ResolvedBusOptions, resolveBusOptions } from './options.js';
import { type RequestOperation, isRequestOperation, requestSubject, subjectOf } from './routing.js';
import { type BusStatus, isErrorReply } from './replies.js';
import { provisionStreams } from './streams.js';
import { type BusObserver } from './observer.js';

/** What the server said about a publish. `duplicate`: the event id was already stored (nothing new). */
export interface PublishReceipt {
  readonly stream: string;
  readonly seq: number;
  readonly duplicate: boolean;
}

/** The port handlers depend on to publish: validates, deduplicates by event id, awaits the PubAck. */
export interface EventPublisher {
  publish(event: RloopEvent): Promise<PublishReceipt>;
}

export interface RequestOptions {
  /** Default: the bus's requestTimeoutMs. */
  readonly timeoutMs?: number;
}

/** The port for core request/reply (posting a plan, querying the journal). */
export interface Requester {
  /**
   * Sends `body` (JSON-encoded; a Uint8Array is sent as is) and resolves with the decoded JSON
   * reply. Error replies reject with RemoteError (the responder's code); no reply in time or
   * nobody listening rejects with BusRequestError.
   */
  request(operation: RequestOperation, body: unknown, options?: RequestOptions): Promise<unknown>;
}

/**
 * NestJS ClientProxy over JetStream. `publish(event)` / `emit(type, event)` publish an event;
 * `request(op, body)` / `send(op, body)` do core request/reply.
 */
export class JetStreamClient extends ClientProxy<Record<never, never>, BusStatus> implements EventPublisher, Requester {
  readonly options: ResolvedBusOptions;
  private readonly subjects: Subjects;
  private readonly log: LoggerService;
  private connecting: Promise<{ connection: NatsConnection; js: NatsJetStream }> | null = null;
  private connection: NatsConnection | null = null;
  private watching: Promise<void> | null = null;

  constructor(
    options: BusOptions,
    logger?: LoggerService,
    private readonly observer: BusObserver = {},
  ) {
    super();
    this.options = resolveBusOptions(options);
    this.subjects = subjectsFor(this.options.namespace);
    this.log = logger ?? new Logger(`bus:${this.options.service}`);
  }

  /** Connects (retrying within the connect bound) and provisions the streams; idempotent. */
  async connect(): Promise<NatsConnection> {
    return (await this.open()).connection;
  }

  async close(): Promise<void> {
    const pending = this.connecting;
    this.connecting = null;
    if (pending === null) return;
    const { connection } = await pending;
    this.connection = null;
    try {
      await connection.drain();
    } catch (error) {
      this.log.warn(`${this.options.service}: draining the publisher connection failed: ${describeError(error)}`);
    }
    await this.watching;
    this._status$.next('closed');
  }

  unwrap<T>(): T {
    if (this.connection === null)
      throw new BusRequestError(BUS_ERROR_CODES.requestFailed, '(none)', 'JetStreamClient is not connected');
    return this.connection as T;
  }

  /**
   * Publishes an event. The overload with a callback is Nest's request path (`send`), which
   * ClientProxy routes through `publish(packet, callback)`.
   */
  publish(event: RloopEvent): Promise<PublishReceipt>;
  publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void;
  publish(
    eventOrPacket: RloopEvent | ReadPacket,
    callback?: (packet: WritePacket) => void,
  ): Promise<PublishReceipt> | (() => void) {
    if (callback === undefined) return this.publishEvent(eventOrPacket);
    return this.sendRequest(eventOrPacket as ReadPacket, callback);
  }

  /**
   * Masks secrets in the event's data (the secrets detector's rules: a patch deleting a key, a
   * command's output, a model's words), validates (after upcasting) and publishes with
   * Nats-Msg-Id = messageIdOf(event); throws ValidationError before sending anything. Masking is
   * deterministic, so a redelivered decision still publishes the same event.
   */
  async publishEvent(event: unknown): Promise<PublishReceipt> {
    const parsed = parseEvent(maskEventData(event));
    if (!parsed.ok) throw parsed.error;
    const { js } = await this.open();
    const subject = subjectOf(this.subjects, parsed.event);
    try {
      const ack = await js.publish(subject, encodeJson(parsed.event), {
        msgID: messageIdOf(parsed.event),
        timeout: this.options.publishTimeoutMs,
        ...this.traceHeaders(parsed.event),
      });
      this.observer.published?.(parsed.event, ack.duplicate);
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      if (isPermissionViolation(error)) throw new BusPermissionError(subject, { cause: error });
      throw new BusPublishError(subject, describeError(error), { cause: error });
    }
  }

  async request(operation: RequestOperation, body: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (!isRequestOperation(operation)) {
      throw new ValidationError(
        BUS_ERROR_CODES.invalidOptions,
        `unknown request operation ${JSON.stringify(operation)}`,
        [{ path: 'operation', message: 'unknown operation' }],
      );
    }
    const { connection } = await this.open();
    const subject = requestSubject(this.subjects, operation);
    const timeout = options.timeoutMs ?? this.options.requestTimeoutMs;
    let reply: Msg;
    try {
      reply = await connection.request(subject, body instanceof Uint8Array ? body : encodeJson(body), {
        timeout,
        ...this.traceHeaders(null),
      });
    } catch (error) {
      if (isPermissionViolation(error)) throw new BusPermissionError(subject, { cause: error });
      throw toRequestError(subject, timeout, error);
    }
    const text = decodeUtf8(reply.data);
    let value: unknown;
    try {
      if (text === null) throw new Error('not UTF-8');
      value = JSON.parse(text);
    } catch (error) {
      throw new ValidationError(
        BUS_ERROR_CODES.invalidReply,
        `reply on ${subject} is not JSON: ${describeError(error)}`,
        [{ path: '(root)', message: describeError(error) }],
      );
    }
    if (isErrorReply(value)) {
      if (value.transient === true) throw new RemoteTransientError(subject, value.code, value.message);
      throw new RemoteError(subject, value.code, value.message, value.retryable === true, value.issues ?? []);
    }
    return value;
  }

  /** The observer's headers (trace context) for a publish or a request, when it has any. */
  private traceHeaders(event: RloopEvent | null): { headers?: MsgHdrs } {
    const extra = this.observer.outgoingHeaders?.(event);
    if (extra === undefined || Object.keys(extra).length === 0) return {};
    const headers = natsHeaders();
    for (const [key, value] of Object.entries(extra)) headers.set(key, value);
    return { headers };
  }

  protected async dispatchEvent<T = PublishReceipt>(packet: ReadPacket): Promise<T> {
    const data: unknown = packet.data;
    const type = typeof data === 'object' && data !== null ? (data as { type?: unknown }).type : undefined;
    if (isEventType(packet.pattern) && packet.pattern !== type) {
      throw new ValidationError(
        BUS_ERROR_CODES.patternMismatch,
        `emit(${String(packet.pattern)}) was given a ${String(type)} event`,
        [{ path: 'type', message: `expected ${String(packet.pattern)}` }],
      );
    }
    return (await this.publishEvent(data)) as T;
  }

  private sendRequest(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    let cancelled = false;
    const operation = packet.pattern as RequestOperation;
    this.request(operation, packet.data).then(
      (response) => {
        if (!cancelled) callback({ response, isDisposed: true });
      },
      (error: unknown) => {
        if (!cancelled) callback({ err: error, isDisposed: true });
      },
    );
    return () => {
      cancelled = true;
    };
  }

  private open(): Promise<{ connection: NatsConnection; js: NatsJetStream }> {
    this.connecting ??= this.openOnce().catch((error: unknown) => {
      this.connecting = null;
      throw error;
    });
    return this.connecting;
  }

  private async openOnce(): Promise<{ connection: NatsConnection; js: NatsJetStream }> {
    const connection = await connectWithRetry(this.options, this.log, 'client');
    this.connection = connection;
    this._status$.next('connected');
    this.watching = watchConnection(
      connection,
      this.log,
      this.options.service,
      (s) => this._status$.next(s),
      this.options.inboxPrefix,
    ).catch((error: unknown) => {
      this.log.error(`${this.options.service}: connection watcher stopped: ${describeError(error)}`);
    });
    try {
      if (this.options.provisionStreams)
        await provisionStreams(await jetstreamManager(connection), this.subjects, this.options.streams);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return { connection, js: jetstream(connection, { timeout: this.options.publishTimeoutMs }) };
  }
}

/**
 * The Nats-Msg-Id of an event: its id, and for a decision the version it was made on too. Two
 * replicas deciding the same step on the same state send the same message (the server keeps one);
 * the same step decided again on a later state, after the journal refused the first, is a new
 * message the server must not drop as a duplicate (the journal dedupes by event id).
 */
export function messageIdOf(event: RloopEvent): string {
  return event.decision === undefined ? event.event_id : `${event.event_id}@${event.decision.expected_version}`;
}

function isPermissionViolation(error: unknown): boolean {
  return (
    error instanceof PermissionViolationError ||
    (error instanceof Error && error.cause instanceof PermissionViolationError)
  );
}

function toRequestError(subject: string, timeoutMs: number, error: unknown): BusRequestError {
  const cause = error instanceof Error ? error.cause : undefined;
  if (
    error instanceof NoRespondersError ||
    cause instanceof NoRespondersError ||
    (error instanceof RequestError && error.isNoResponders())
  ) {
    return new BusRequestError(BUS_ERROR_CODES.noResponders, subject, `no service answers ${subject}`, {
      cause: error,
    });
  }
  if (error instanceof TimeoutError || cause instanceof TimeoutError) {
    return new BusRequestError(
      BUS_ERROR_CODES.requestTimeout,
      subject,
      `no reply on ${subject} within ${timeoutMs} ms`,
      { cause: error },
    );
  }
  return new BusRequestError(
    BUS_ERROR_CODES.requestFailed,
    subject,
    `request on ${subject} failed: ${describeError(error)}`,
    { cause: error },
  );
}

/** The event with maskSecretsDeep applied to its data; anything that is not an event object is left to validation. */
function maskEventData(event: unknown): unknown {
  if (typeof event !== 'object' || event === null || !('data' in event)) return event;
  return { ...event, data: maskSecretsDeep(event.data) };
}
