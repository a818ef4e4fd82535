import 'reflect-metadata';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { PARAM_ARGS_METADATA } from '@nestjs/microservices/constants.js';
import { type Channel, type EVENT_CATALOGUE, type EventOf, type EventType } from '@rloop/contracts';
import { type BatchContext, type EventContext, type RequestContext } from './context.js';
import { type ConsumerOverrides } from './options.js';
import { type EventSelector, type RequestOperation, isEventSelector, isRequestOperation } from './routing.js';

/** The transport id of JetStreamServer; handlers declared here bind to no other transport. */
export const JETSTREAM_TRANSPORT: unique symbol = Symbol.for('rloop.bus.jetstream');

const SPEC_KEY = 'rloopBus';

type TypesOfChannel<C extends Channel> = {
  [K in EventType]: (typeof EVENT_CATALOGUE)[K]['channel'] extends C ? K : never;
}[EventType];

/** The events a selector delivers: one type, or every type of a channel. */
export type SelectedEvent<S extends EventSelector> = S extends EventType
  ? EventOf<S>
  : S extends `channel:${infer C extends Channel}`
    ? EventOf<TypesOfChannel<C>>
    : never;

export interface OnEventOptions extends ConsumerOverrides {
  /**
   * Pins the handler part of the durable consumer name (default `<Class>.<method>`), so renaming
   * the method does not create a new consumer that replays the stream.
   */
  readonly name?: string;
}

export interface OnEventBatchOptions extends Omit<OnEventOptions, 'concurrency'> {
  /** Most events handed to one call. */
  readonly max: number;
  /** How long a batch waits for more messages before it starts with fewer than `max` (default 20 ms). */
  readonly lingerMs?: number;
  /**
   * Batches run one at a time per partition; a plan always maps to the same partition, so its
   * events stay in stream order while other partitions' batches run concurrently (default 1).
   */
  readonly partitions?: number;
}

type PatternDecorator = (pattern: string, transport: symbol, extras: Record<string, unknown>) => MethodDecorator;
// Nest's typed overloads expect `(data, ...args)` handlers; ours are checked by OnEvent's own signature.
const eventPattern = EventPattern as PatternDecorator;
const messagePattern = MessagePattern as PatternDecorator;

/** What the server needs to bind a decorated method; carried in Nest's pattern extras. */
export type HandlerSpec =
  | {
      readonly kind: 'event';
      readonly selector: EventSelector;
      readonly handler: string;
      readonly options: OnEventOptions;
    }
  | {
      readonly kind: 'batch';
      readonly selector: EventSelector;
      readonly handler: string;
      readonly options: OnEventBatchOptions;
    }
  | { readonly kind: 'request'; readonly operation: RequestOperation; readonly handler: string };

/**
 * A thrown handler error, returned as a value so it reaches the server as it was thrown: Nest's
 * exception filters would otherwise replace it with a generic `{status, message}` and log it.
 */
export class HandlerFailure {
  constructor(readonly error: unknown) {}
}

type Method = (this: unknown, ...args: never[]) => unknown;

function wrapErrors(target: object, key: string | symbol, descriptor: PropertyDescriptor): void {
  const original: unknown = descriptor.value;
  if (typeof original !== 'function')
    throw new TypeError(`${describeTarget(target, key)}: bus decorators apply to methods only`);
  const method = original as Method;
  const wrapped = async function (this: unknown, ...args: never[]): Promise<unknown> {
    try {
      return await method.apply(this, args);
    } catch (error) {
      return new HandlerFailure(error);
    }
  };
  // Metadata other decorators put on the original function (applied before this one) must follow it.
  for (const metadataKey of Reflect.getOwnMetadataKeys(method) as unknown[]) {
    Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, method), wrapped);
  }
  Object.defineProperty(wrapped, 'name', { value: method.name });
  descriptor.value = wrapped;
}

/**
 * Nest passes only the payload unless parameters are decorated; a method without @Payload/@Ctx
 * gets (payload, context), which is what OnEvent's signature promises.
 */
function defaultParameters(target: object, key: string | symbol): void {
  if (Reflect.getMetadata(PARAM_ARGS_METADATA, target.constructor, key) !== undefined) return;
  Payload()(target, key, 0);
  Ctx()(target, key, 1);
}

function describeTarget(target: object, key: string | symbol): string {
  const owner = typeof target === 'function' ? target.name : target.constructor.name;
  return `${owner}.${String(key)}`;
}

function checkSelector(selector: EventSelector, target: object, key: string | symbol): void {
  if (!isEventSelector(selector))
    throw new TypeError(`${describeTarget(target, key)}: unknown event selector ${JSON.stringify(selector)}`);
}

/** Makes the method a Nest handler of the bus transport, its spec in the pattern's extras. */
function bindHandler(spec: HandlerSpec, target: object, key: string | symbol, descriptor: PropertyDescriptor): void {
  defaultParameters(target, key);
  wrapErrors(target, key, descriptor);
  const [pattern, subject] = spec.kind === 'request' ? [messagePattern, spec.operation] : [eventPattern, spec.selector];
  // The handler is part of the pattern so a second handler for the same operation is reported
  // at start instead of silently replacing the first (Nest keeps one message handler per pattern).
  pattern(`rloop-bus:${spec.kind}:${subject}:${spec.handler}`, JETSTREAM_TRANSPORT, { [SPEC_KEY]: spec })(
    target,
    key,
    descriptor,
  );
}

type EventMethod<E> = (event: E, context: EventContext) => unknown;
type BatchMethod<E> = (events: E[], context: BatchContext) => unknown;
type RequestMethod = (body: Uint8Array, context: RequestContext) => unknown;

/**
 * Handles one event type (or a whole channel, e.g. `ALL_JOURNALED_EVENTS`) through its own durable
 * consumer. The method receives the validated, upcast event and an EventContext; the message is
 * acked after it resolves. Throw RetryLaterError to be called again later, a non-retryable
 * RloopError to reject the message (dead letter), anything else to have it retried.
 *
 * @example
 *   \@OnEvent('RoundStarted')
 *   async onRoundStarted(event: EventOf<'RoundStarted'>, ctx: EventContext) { … }
 */
export function OnEvent<S extends EventSelector>(selector: S, options: OnEventOptions = {}) {
  return <H extends EventMethod<SelectedEvent<S>>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<H>,
  ): TypedPropertyDescriptor<H> => {
    checkSelector(selector, target, key);
    const handler = options.name ?? describeTarget(target, key);
    bindHandler({ kind: 'event', selector, handler, options }, target, key, descriptor);
    return descriptor;
  };
}

/**
 * Like OnEvent, but the method receives the events that arrived together (up to `max`, in stream
 * order) and they are all acked after it resolves; a failure applies to the whole batch.
 */
export function OnEventBatch<S extends EventSelector>(selector: S, options: OnEventBatchOptions) {
  return <H extends BatchMethod<SelectedEvent<S>>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<H>,
  ): TypedPropertyDescriptor<H> => {
    checkSelector(selector, target, key);
    if (!Number.isInteger(options.max) || options.max < 1)
      throw new TypeError(`${describeTarget(target, key)}: batch max must be a positive integer`);
    if (options.lingerMs !== undefined && !(options.lingerMs >= 0))
      throw new TypeError(`${describeTarget(target, key)}: batch lingerMs must be >= 0`);
    if (options.partitions !== undefined && (!Number.isInteger(options.partitions) || options.partitions < 1))
      throw new TypeError(`${describeTarget(target, key)}: batch partitions must be a positive integer`);
    const handler = options.name ?? describeTarget(target, key);
    bindHandler({ kind: 'batch', selector, handler, options }, target, key, descriptor);
    return descriptor;
  };
}

/**
 * Answers core NATS requests on an operation's subject (queue group = the service, so replicas
 * share the load). The method receives the raw body (check size, UTF-8 and shape yourself, e.g.
 * with `decodeJsonBody`); its return value is sent as JSON; a thrown error becomes
 * `{status:'error', code, message, retryable}`.
 */
export function OnRequest(operation: RequestOperation) {
  return <H extends RequestMethod>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<H>,
  ): TypedPropertyDescriptor<H> => {
    if (!isRequestOperation(operation))
      throw new TypeError(`${describeTarget(target, key)}: unknown request operation ${JSON.stringify(operation)}`);
    const handler = describeTarget(target, key);
    bindHandler({ kind: 'request', operation, handler }, target, key, descriptor);
    return descriptor;
  };
}

/** The spec a bus decorator left in a handler's extras, or null for any other handler. */
export function readHandlerSpec(extras: Readonly<Record<string, unknown>> | undefined): HandlerSpec | null {
  const spec = extras?.[SPEC_KEY];
  return typeof spec === 'object' && spec !== null && 'kind' in spec ? (spec as HandlerSpec) : null;
}
