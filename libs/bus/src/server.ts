import { EventEmitter } from 'node:events';
import { Logger, type LoggerService } from '@nestjs/common';
import { type BaseRpcContext, type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { type RloopEvent, RloopError, type Subjects, describeError, subjectsFor } from '@rloop/contracts';
import { isObservable, lastValueFrom } from 'rxjs';
import { encodeJson } from './codec.js';
import { type BusStatus, type ErrorReply, toErrorReply } from './replies.js';
import { connectWithRetry, watchConnection } from './connection.js';
import { type BatchContext, type DeliveryInfo, type EventContext, RequestContext } from './context.js';
import { ConsumerRunner, type HandlerOutcome, headersToRecord } from './consumer-runner.js';
import { HandlerFailure, type HandlerSpec, JETSTREAM_TRANSPORT, readHandlerSpec } from './decorators.js';
import { BUS_ERROR_CODES, BusConfigError } from './errors.js';
import { type BusOptions, type ResolvedBusOptions, mergePolicy, resolveBusOptions } from './options.js';
import { type RequestOperation, consumerTarget, durableName, requestSubject } from './routing.js';
import { type DurableConfig, consumerConfig, ensureConsumer, provisionStreams } from './streams.js';
import { logContextOf, withLogContext } from './log-context.js';
import { type BusObserver } from './observer.js';
import { MemoryDeliveryLedger, openDeliveryLedger } from './delivery-ledger.js';

type Handler = MessageHandler<unknown, BaseRpcContext<unknown>, unknown>;
type EventsMap = { status: (status: BusStatus) => void };

interface Binding {
  readonly spec: HandlerSpec;
  readonly handler: Handler;
  readonly pattern: string;
}

/**
 * NestJS transport over NATS JetStream: durable pull consumers for `@OnEvent` / `@OnEventBatch`
 * handlers and queue-group subscriptions for `@OnRequest` handlers.
 *
 * @example
 *   const app = await NestFactory.createMicroservice(AppModule, { strategy: new JetStreamServer(options) });
 *   await app.listen();
 */
export class JetStreamServer extends Server<EventsMap, BusStatus> implements CustomTransportStrategy {
  override readonly transportId = JETSTREAM_TRANSPORT;
  readonly options: ResolvedBusOptions;
  private readonly subjects: Subjects;
  private readonly log: LoggerService;
  private readonly events = new EventEmitter();
  private readonly abort = new AbortController();
  private connection: NatsConnection | null = null;
  private watching: Promise<void> | null = null;
  private runners: ConsumerRunner[] = [];
  private subscriptions: Subscription[] = [];
  private readonly requestsInFlight = new Set<Promise<void>>();
  private closing: Promise<void> | null = null;
  private boundConsumers: readonly string[] = [];

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

  /** Durable consumer names bound at start, one per event handler. */
  get consumers(): readonly string[] {
    return this.boundConsumers;
  }

  /** Request subjects answered by this service. */
  get requestSubjects(): readonly string[] {
    return this.subscriptions.map((s) => s.getSubject());
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      await this.start();
    } catch (error) {
      await this.close().catch((closeError: unknown) => {
        this.log.error(`${this.options.service}: cleanup after a failed start failed: ${describeError(closeError)}`);
      });
      callback(error);
      return;
    }
    callback();
  }

  /** Stops pulling, waits (bounded) for running handlers to finish and settle, then drains the connection. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  on<K extends keyof EventsMap>(event: K, callback: EventsMap[K]): void {
    this.events.on(event, callback);
  }

  unwrap<T>(): T {
    if (this.connection === null)
      throw new RloopError(BUS_ERROR_CODES.notConnected, 'JetStreamServer is not listening');
    return this.connection as T;
  }

  /** After a reconnect: the streams and this service's durable consumers, created again where missing. */
  private async reprovision(provision: () => Promise<void>): Promise<void> {
    try {
      await provision();
    } catch (error) {
      // The pulls keep retrying; the next reconnect (or a restart) provisions again.
      this.log.warn(
        `${this.options.service}: checking streams and consumers after a reconnect failed: ${describeError(error)}`,
      );
    }
  }

  private setStatus(status: BusStatus): void {
    this._status$.next(status);
    this.events.emit('status', status);
  }

  private collectBindings(): Binding[] {
    const bindings: Binding[] = [];
    for (const [pattern, handler] of this.messageHandlers) {
      const spec = readHandlerSpec(handler.extras);
      if (spec === null) {
        throw new BusConfigError(
          BUS_ERROR_CODES.invalidHandler,
          `handler for pattern ${pattern} is not declared with @OnEvent, @OnEventBatch or @OnRequest`,
          [{ path: pattern, message: 'unknown handler' }],
        );
      }
      if (handler.next !== undefined) {
        throw new BusConfigError(
          BUS_ERROR_CODES.invalidHandler,
          `two handlers are both named ${spec.handler}; give one a distinct { name }`,
          [{ path: spec.handler, message: 'duplicate handler name' }],
        );
      }
      bindings.push({ spec, handler: handler as Handler, pattern });
    }
    const operations = bindings.flatMap((b) => (b.spec.kind === 'request' ? [b.spec.operation] : []));
    const duplicate = operations.find((op, i) => operations.indexOf(op) !== i);
    if (duplicate !== undefined) {
      throw new BusConfigError(BUS_ERROR_CODES.invalidHandler, `more than one @OnRequest handler for ${duplicate}`, [
        { path: duplicate, message: 'duplicate operation' },
      ]);
    }
    return bindings;
  }

  private async start(): Promise<void> {
    const bindings = this.collectBindings();
    const connection = await connectWithRetry(this.options, this.log, 'server', this.abort.signal);
    if (this.abort.signal.aborted) {
      await connection.close();
      throw new RloopError(BUS_ERROR_CODES.notConnected, 'closed while starting');
    }
    this.connection = connection;
    this.setStatus('connected');
    const jsm = await jetstreamManager(connection);
    const js = jetstream(connection, { timeout: this.options.publishTimeoutMs });
    const durables: { stream: string; config: DurableConfig }[] = [];
    const provision = async (): Promise<void> => {
      if (this.options.provisionStreams) await provisionStreams(jsm, this.subjects, this.options.streams);
      for (const { stream, config } of durables) await ensureConsumer(jsm, stream, config);
    };
    this.watching = watchConnection(
      connection,
      this.log,
      this.options.service,
      (s) => {
        this.setStatus(s);
        // A server that came back without its store (run without a volume) has no streams or
        // consumers: provisioning is idempotent, so every reconnect checks them and the pulls resume.
        if (s === 'connected') void this.reprovision(provision);
      },
      this.options.inboxPrefix,
    ).catch((error: unknown) => {
      this.log.error(`${this.options.service}: connection watcher stopped: ${describeError(error)}`);
    });
    await provision();
    const ledger = bindings.some((b) => b.spec.kind !== 'request')
      ? await openDeliveryLedger(
          connection,
          this.subjects,
          this.log,
          this.options.service,
          this.options.streams.replicas,
        )
      : null;

    const consumers: { runner: ConsumerRunner; stream: string }[] = [];
    for (const { spec, handler } of bindings) {
      if (spec.kind === 'request') continue;
      const name = durableName(this.options.service, spec.handler);
      if (consumers.some((c) => c.runner.name === name)) {
        throw new BusConfigError(
          BUS_ERROR_CODES.invalidHandler,
          `two handlers map to the consumer ${name}; give one a distinct { name }`,
          [{ path: name, message: 'duplicate consumer' }],
        );
      }
      const { ackWaitOverrideMs } = this.options;
      const merged = mergePolicy(
        this.options.consumer,
        ackWaitOverrideMs === null ? spec.options : { ...spec.options, ackWaitMs: ackWaitOverrideMs },
        spec.handler,
      );
      // A batch consumer holds at least two batches, so the next one fills while one runs.
      const policy =
        spec.kind === 'batch' ? { ...merged, maxBuffered: Math.max(merged.maxBuffered, spec.options.max * 2) } : merged;
      const { stream, filter } = consumerTarget(this.subjects, spec.selector);
      const config = consumerConfig(name, filter, policy, `${this.options.service}: ${spec.handler}`);
      await ensureConsumer(jsm, stream, config);
      durables.push({ stream, config });
      const runner = new ConsumerRunner({
        name,
        stream,
        subjects: this.subjects,
        policy,
        js,
        connection,
        logger: this.log,
        publishTimeoutMs: this.options.publishTimeoutMs,
        observer: this.observer,
        ledger: ledger ?? new MemoryDeliveryLedger(),
        mode:
          spec.kind === 'batch'
            ? {
                kind: 'batch',
                max: spec.options.max,
                lingerMs: spec.options.lingerMs ?? 20,
                partitions: spec.options.partitions ?? 1,
                invoke: (events: RloopEvent[], context: BatchContext) =>
                  this.observed(name, events, context.deliveries, () => invokeHandler(handler, events, context)),
              }
            : {
                kind: 'event',
                invoke: (event: RloopEvent, context: EventContext) =>
                  this.observed(name, [event], [context.delivery], () => invokeHandler(handler, event, context)),
              },
      });
      consumers.push({ runner, stream });
    }
    // close() may have run while the consumers were being set up: start nothing after it.
    if (this.abort.signal.aborted) throw new RloopError(BUS_ERROR_CODES.notConnected, 'closed while starting');
    for (const { spec, handler } of bindings) {
      if (spec.kind === 'request') this.subscribeRequests(connection, spec.operation, handler);
    }
    for (const { runner, stream } of consumers) {
      runner.start(await js.consumers.get(stream, runner.name));
      this.runners.push(runner);
    }
    this.boundConsumers = Object.freeze(this.runners.map((r) => r.name));
  }

  private subscribeRequests(connection: NatsConnection, operation: RequestOperation, handler: Handler): void {
    const subject = requestSubject(this.subjects, operation);
    const subscription = connection.subscribe(subject, {
      queue: this.options.service,
      callback: (error, msg) => {
        if (error !== null) {
          this.log.error(`${this.options.service}: subscription to ${subject} failed: ${describeError(error)}`);
          return;
        }
        const task = this.answer(msg, handler).finally(() => this.requestsInFlight.delete(task));
        this.requestsInFlight.add(task);
      },
    });
    this.subscriptions.push(subscription);
  }

  private async answer(msg: Msg, handler: Handler): Promise<void> {
    const expectsReply = msg.reply !== undefined && msg.reply !== '';
    const headers = headersToRecord(msg.headers);
    const context = new RequestContext([msg.subject, headers, expectsReply]);
    const call = (): Promise<HandlerOutcome> => invokeHandler(handler, msg.data, context);
    const outcome = await (this.observer.request === undefined
      ? call()
      : this.observer.request(msg.subject, headers, call));
    let reply: unknown;
    if (outcome.ok) {
      reply = outcome.value ?? null;
    } else {
      reply = toErrorReply(outcome.error);
      if (!(outcome.error instanceof RloopError)) {
        const stack =
          outcome.error instanceof Error && outcome.error.stack !== undefined ? `\n${outcome.error.stack}` : '';
        this.log.error(
          `${this.options.service}: request handler for ${msg.subject} crashed: ${describeError(outcome.error)}${stack}`,
        );
      }
    }
    if (!expectsReply) {
      if (!outcome.ok)
        this.log.warn(
          `${this.options.service}: a plain publish on ${msg.subject} failed and had no reply subject to hear it: ${describeError(outcome.error)}`,
        );
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = encodeJson(reply);
    } catch (error) {
      this.log.error(
        `${this.options.service}: reply on ${msg.subject} is not JSON-serialisable: ${describeError(error)}`,
      );
      bytes = encodeJson({
        status: 'error',
        code: BUS_ERROR_CODES.unserializableReply,
        message: describeError(error),
        retryable: false,
      } satisfies ErrorReply);
    }
    const maxPayload = this.connection?.info?.max_payload ?? Number.POSITIVE_INFINITY;
    if (bytes.byteLength > maxPayload) {
      // NATS would drop it and the caller would only see a timeout: say what happened instead.
      const message = `the reply on ${msg.subject} is ${bytes.byteLength} bytes, over the server's max_payload of ${maxPayload}; ask for less (a page)`;
      this.log.error(`${this.options.service}: ${message}`);
      bytes = encodeJson({
        status: 'error',
        code: BUS_ERROR_CODES.replyTooLarge,
        message,
        retryable: false,
      } satisfies ErrorReply);
    }
    msg.respond(bytes);
  }

  /** A handler call inside its log context (one event: its plan, run, round, id) and the observer's wrapper. */
  private observed(
    consumer: string,
    events: readonly RloopEvent[],
    deliveries: readonly DeliveryInfo[],
    call: () => Promise<HandlerOutcome>,
  ): Promise<HandlerOutcome> {
    const [first] = events;
    const wrapped = (): Promise<HandlerOutcome> =>
      this.observer.handle === undefined ? call() : this.observer.handle(consumer, events, deliveries, call);
    return events.length === 1 && first !== undefined ? withLogContext(logContextOf(first), wrapped) : wrapped();
  }

  private async shutdown(): Promise<void> {
    this.abort.abort();
    const connection = this.connection;
    if (connection === null) return;
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    await Promise.all(this.runners.map((r) => r.stopPulling()));
    const timeoutMs = this.options.shutdownTimeoutMs;
    const running = this.runners.reduce((n, r) => n + r.running, 0) + this.requestsInFlight.size;
    if (running > 0)
      this.log.log(
        `${this.options.service}: stopped pulling; waiting up to ${timeoutMs} ms for ${running} running handler(s)`,
      );
    const idle = await Promise.all([
      ...this.runners.map((r) => r.whenIdle(timeoutMs)),
      waitFor([...this.requestsInFlight], timeoutMs),
    ]);
    if (idle.some((ok) => !ok)) {
      const still = this.runners.reduce((n, r) => n + r.running, 0) + this.requestsInFlight.size;
      this.log.warn(
        `${this.options.service}: ${still} handler(s) still running after ${timeoutMs} ms; closing anyway, their messages will be redelivered`,
      );
    }
    for (const runner of this.runners) runner.dispose();
    try {
      await connection.drain();
    } catch (error) {
      this.log.warn(`${this.options.service}: draining the NATS connection failed: ${describeError(error)}`);
    }
    await this.watching;
    this.connection = null;
    this.setStatus('closed');
  }
}

/** Calls a Nest-wrapped handler and reports what it came to (never throws). */
async function invokeHandler(
  handler: Handler,
  payload: unknown,
  context: BaseRpcContext<unknown>,
): Promise<HandlerOutcome> {
  try {
    const result: unknown = await handler(payload, context);
    const value: unknown = isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result;
    if (value instanceof HandlerFailure) return { ok: false, error: value.error };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

async function waitFor(tasks: readonly Promise<unknown>[], timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.allSettled(tasks).then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
