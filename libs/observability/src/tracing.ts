import { createHash, randomBytes } from 'node:crypto';
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  TraceFlags,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/** The W3C header that carries the trace context in NATS message headers. */
export const TRACEPARENT = 'traceparent';

/** Hex ids derived from a run id: every span of a plan run shares one trace, rooted at one span. */
export function runTraceIds(runId: string): { readonly traceId: string; readonly rootSpanId: string } {
  return {
    traceId: createHash('sha256').update(`rloop-trace:${runId}`).digest('hex').slice(0, 32),
    rootSpanId: createHash('sha256').update(`rloop-root:${runId}`).digest('hex').slice(0, 16),
  };
}

/**
 * Random ids, except for the one span a caller asks to have given ids (a run's root span): the
 * SDK draws a root span's ids synchronously inside startSpan, so setting `next` just before and
 * clearing it just after names exactly that span.
 */
class RunIdGenerator implements IdGenerator {
  next: { readonly traceId: string; readonly spanId: string } | null = null;

  generateTraceId(): string {
    return this.next?.traceId ?? randomBytes(16).toString('hex');
  }

  generateSpanId(): string {
    return this.next?.spanId ?? randomBytes(8).toString('hex');
  }
}

export interface TracingOptions {
  readonly service: string;
  /** OTLP/HTTP traces endpoint, e.g. `http://collector:4318/v1/traces`. */
  readonly endpoint?: string;
  /** Replaces the OTLP exporter (tests: an InMemorySpanExporter). */
  readonly exporter?: SpanExporter;
}

let contextManagerInstalled = false;

/**
 * OpenTelemetry tracing for one service: spans exported over OTLP/HTTP (batched), the W3C trace
 * context carried in NATS headers. Off unless a service is configured with an endpoint.
 */
export class Tracing {
  private readonly provider: BasicTracerProvider;
  private readonly ids = new RunIdGenerator();
  private readonly propagator = new W3CTraceContextPropagator();
  readonly tracer: Tracer;

  constructor(options: TracingOptions) {
    const exporter =
      options.exporter ?? new OTLPTraceExporter(options.endpoint === undefined ? {} : { url: options.endpoint });
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': `rloop-${options.service}`, 'service.namespace': 'rloop' }),
      idGenerator: this.ids,
      // Tests read spans as soon as they end; a real exporter gets them in batches.
      spanProcessors: [
        options.exporter === undefined ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter),
      ],
    });
    this.tracer = this.provider.getTracer('rloop');
    if (!contextManagerInstalled) {
      // Spans follow async work (a handler's awaits) through AsyncLocalStorage.
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(this.propagator);
      contextManagerInstalled = true;
    }
  }

  /** The context a run's spans hang from when nothing better is known: its root span (remote). */
  runContext(runId: string): Context {
    const { traceId, rootSpanId } = runTraceIds(runId);
    return trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId: rootSpanId,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
  }

  /**
   * The parent for work on a run's message: the sender's span from the `traceparent` header when
   * it is in the run's trace, otherwise the run's root.
   */
  parentFor(runId: string, headers: Readonly<Record<string, readonly string[]>> | undefined): Context {
    const header = headers?.[TRACEPARENT]?.[0];
    const extracted = header === undefined ? null : this.extract(header);
    if (extracted !== null && trace.getSpanContext(extracted)?.traceId === runTraceIds(runId).traceId) return extracted;
    return this.runContext(runId);
  }

  /** The context a `traceparent` header names, or null when it is not a valid one. */
  extract(header: string): Context | null {
    const carrier: Record<string, string> = { [TRACEPARENT]: header };
    const extracted = this.propagator.extract(ROOT_CONTEXT, carrier, {
      get: (c: Record<string, string>, key: string) => c[key],
      keys: (c: Record<string, string>) => Object.keys(c),
    });
    return trace.getSpanContext(extracted) === undefined ? null : extracted;
  }

  /** The context active here when it belongs to the run's trace, else the run's root. */
  activeFor(runId: string): Context {
    const active = trace.getSpanContext(context.active());
    return active !== undefined && active.traceId === runTraceIds(runId).traceId
      ? context.active()
      : this.runContext(runId);
  }

  /** The `traceparent` header for a context. */
  headersOf(ctx: Context): Record<string, string> {
    const carrier: Record<string, string> = {};
    this.propagator.inject(ctx, carrier, {
      set: (c: Record<string, string>, key: string, value: string) => void (c[key] = value),
    });
    return carrier;
  }

  /** The run's root span: started and ended at once (the run goes on in other processes), with the run's fixed ids. */
  recordRunRoot(runId: string, name: string, attributes: Record<string, string | number>, at: Date): void {
    const { traceId, rootSpanId } = runTraceIds(runId);
    this.ids.next = { traceId, spanId: rootSpanId };
    let span: Span;
    try {
      span = this.tracer.startSpan(
        name,
        { root: true, kind: SpanKind.PRODUCER, attributes, startTime: at },
        ROOT_CONTEXT,
      );
    } finally {
      this.ids.next = null;
    }
    span.end(at);
  }

  /** A span for work that already happened (a critic's run, a fix, a round), timed from the event. */
  recordPast(
    name: string,
    parent: Context,
    attributes: Record<string, string | number | boolean>,
    start: Date,
    end: Date,
    failed = false,
  ): void {
    const span = this.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, startTime: start }, parent);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(end);
  }

  /** Runs `fn` inside a new span under `parent`; the span ends when `fn` settles. */
  async inSpan<T>(
    name: string,
    kind: SpanKind,
    parent: Context,
    attributes: Record<string, string | number>,
    fn: (span: Span) => Promise<T>,
  ): Promise<T> {
    const span = this.tracer.startSpan(name, { kind, attributes }, parent);
    try {
      return await context.with(trace.setSpan(parent, span), () => fn(span));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  }

  /** Exports what is buffered and stops. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }

  /** Exports what is buffered. */
  async flush(): Promise<void> {
    await this.provider.forceFlush();
  }
}
