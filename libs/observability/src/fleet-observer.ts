import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { type BusObserver, type DeliveryInfo, type Settlement, withLogContext } from '@rloop/bus';
import { EVENT_CATALOGUE, type RloopEvent } from '@rloop/contracts';
import { type FleetMetrics } from './metrics.js';
import { type Tracing } from './tracing.js';

/** The run a message belongs to, for tracing: its correlation id, or for an announcement the run it announces. Registry traffic has none. */
export function runOf(event: RloopEvent): string | null {
  if (EVENT_CATALOGUE[event.type].channel === 'critics') return null;
  if (event.type === 'JournalCommitted') {
    return event.data.loop_state?.run_id ?? null;
  }
  return event.correlation_id;
}

function roundOf(event: RloopEvent): number | undefined {
  const data = event.data as { round?: unknown; letter?: { round?: unknown } };
  if (typeof data.round === 'number') return data.round;
  return typeof data.letter?.round === 'number' ? data.letter.round : undefined;
}

function attributesOf(event: RloopEvent): Record<string, string | number> {
  const round = roundOf(event);
  return {
    'rloop.plan': event.plan,
    'rloop.event_id': event.event_id,
    'rloop.event_type': event.type,
    ...(round === undefined ? {} : { 'rloop.round': round }),
  };
}

function failed(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { ok?: unknown }).ok === false;
}

export interface FleetObserverOptions {
  /**
   * Count loop outcomes and round durations from the JournalCommitted events this service
   * handles. Exactly one service of the fleet does (the panel), so nothing is counted twice.
   */
  readonly countCommitted?: boolean;
}

/**
 * The bus observer of a service: Prometheus metrics for publishes, deliveries and settlements,
 * and (when tracing is on) a span per handled message, the trace context in every outgoing
 * message's headers, and spans for work the events report (a critic's run, a fix, a round).
 */
export class FleetObserver implements BusObserver {
  constructor(
    private readonly service: string,
    private readonly metrics: FleetMetrics,
    private readonly tracing: Tracing | null,
    private readonly options: FleetObserverOptions = {},
  ) {}

  outgoingHeaders(event: RloopEvent | null): Readonly<Record<string, string>> {
    if (this.tracing === null) return {};
    if (event === null)
      return trace.getSpanContext(context.active()) === undefined ? {} : this.tracing.headersOf(context.active());
    const runId = runOf(event);
    return runId === null ? {} : this.tracing.headersOf(this.tracing.activeFor(runId));
  }

  published(event: RloopEvent, duplicate: boolean): void {
    this.metrics.recordPublished(event, duplicate);
    if (this.tracing === null || duplicate) return;
    const runId = runOf(event);
    if (runId === null) return;
    const at = new Date(event.occurred_at);
    const parent = this.tracing.activeFor(runId);
    const attributes = attributesOf(event);
    switch (event.type) {
      case 'PlanSubmitted':
        this.tracing.recordRunRoot(runId, `plan run ${event.plan}`, { ...attributes, 'rloop.run_id': runId }, at);
        return;
      case 'FindingsReported':
        this.tracing.recordPast(
          `critic ${event.data.critic_id}`,
          parent,
          { ...attributes, 'rloop.critic': event.data.critic_id, 'rloop.findings': event.data.findings.length },
          new Date(at.getTime() - event.data.duration_ms),
          at,
        );
        return;
      case 'CriticFailed':
        this.tracing.recordPast(
          `critic ${event.data.critic_id}`,
          parent,
          { ...attributes, 'rloop.critic': event.data.critic_id, 'rloop.failure': event.data.reason },
          new Date(at.getTime() - (event.data.duration_ms ?? 0)),
          at,
          true,
        );
        return;
      case 'LetterWritten':
        this.tracing.recordPast(
          `synthesis round ${event.data.letter.round}`,
          parent,
          {
            ...attributes,
            'rloop.findings': event.data.letter.findings.length,
            'rloop.complete': event.data.letter.complete,
          },
          at,
          at,
        );
        return;
      case 'FixApplied':
        this.tracing.recordPast(
          `fix round ${event.data.round}`,
          parent,
          { ...attributes, 'rloop.fix_outcome': event.data.outcome, 'rloop.strategy': event.data.strategy },
          new Date(at.getTime() - event.data.duration_ms),
          at,
          event.data.outcome === 'failed',
        );
        return;
      default:
        return;
    }
  }

  async handle<T>(
    consumer: string,
    events: readonly RloopEvent[],
    deliveries: readonly DeliveryInfo[],
    run: () => Promise<T>,
  ): Promise<T> {
    this.metrics.deliveries.inc({ consumer }, deliveries.length);
    const again = deliveries.filter((d) => d.deliveries > 1).length;
    if (again > 0) this.metrics.redeliveries.inc({ consumer }, again);
    const timer = this.metrics.handlerDuration.startTimer({ consumer });
    try {
      const result = await this.traced(consumer, events, deliveries, run);
      const [first] = events;
      if (events.length === 1 && first !== undefined && !failed(result)) this.afterCommitted(first);
      return result;
    } finally {
      timer();
    }
  }

  private async traced<T>(
    consumer: string,
    events: readonly RloopEvent[],
    deliveries: readonly DeliveryInfo[],
    run: () => Promise<T>,
  ): Promise<T> {
    const tracing = this.tracing;
    const [first] = events;
    if (tracing === null || first === undefined) return run();
    if (events.length > 1) return this.batchSpans(tracing, consumer, events, deliveries, run);
    const runId = runOf(first);
    if (runId === null) return run();
    const parent = tracing.parentFor(runId, deliveries[0]?.headers);
    return tracing.inSpan(
      `${this.service} ${first.type}`,
      SpanKind.CONSUMER,
      parent,
      {
        ...attributesOf(first),
        'rloop.run_id': runId,
        'messaging.system': 'nats',
        'messaging.consumer.group.name': consumer,
      },
      async (span) => {
        const value = await withLogContext({ trace_id: span.spanContext().traceId }, run);
        if (failed(value)) span.setStatus({ code: SpanStatusCode.ERROR });
        return value;
      },
    );
  }

  async request<T>(
    subject: string,
    headers: Readonly<Record<string, readonly string[]>>,
    run: () => Promise<T>,
  ): Promise<T> {
    const header = headers['traceparent']?.[0];
    // Only requests made inside a traced piece of work get a span (the CLI's queries carry none).
    if (this.tracing === null || header === undefined) return run();
    const parent = this.tracing.extract(header);
    if (parent === null) return run();
    return this.tracing.inSpan(
      `${this.service} ${subject.split('.').slice(-2).join('.')}`,
      SpanKind.SERVER,
      parent,
      { 'messaging.system': 'nats', 'messaging.destination.name': subject },
      async (span) => {
        const value = await withLogContext({ trace_id: span.spanContext().traceId }, run);
        if (failed(value)) span.setStatus({ code: SpanStatusCode.ERROR });
        return value;
      },
    );
  }

  settled(consumer: string, how: Settlement, count: number): void {
    this.metrics.settled.inc({ consumer, settlement: how }, count);
  }

  /**
   * A batch (the journal's append) spans several runs: after it, one span per run in that run's
   * trace, under the span that sent the run's first event of the batch.
   */
  private async batchSpans<T>(
    tracing: Tracing,
    consumer: string,
    events: readonly RloopEvent[],
    deliveries: readonly DeliveryInfo[],
    run: () => Promise<T>,
  ): Promise<T> {
    const started = new Date();
    const result = await run();
    const ended = new Date();
    const runs = new Map<string, { index: number; count: number; plan: string }>();
    events.forEach((event, index) => {
      const runId = runOf(event);
      if (runId === null) return;
      const seen = runs.get(runId);
      runs.set(runId, seen === undefined ? { index, count: 1, plan: event.plan } : { ...seen, count: seen.count + 1 });
    });
    for (const [runId, { index, count, plan }] of runs) {
      const name = consumer.includes('journal') ? 'journal append' : `${this.service} batch`;
      tracing.recordPast(
        name,
        tracing.parentFor(runId, deliveries[index]?.headers),
        {
          'rloop.plan': plan,
          'rloop.run_id': runId,
          'rloop.events': count,
          'rloop.batch_size': events.length,
          'messaging.consumer.group.name': consumer,
        },
        started,
        ended,
        failed(result),
      );
    }
    return result;
  }

  /** Loop outcomes and round durations (and a span per round) from an announcement the service handled. */
  private afterCommitted(event: RloopEvent): void {
    const tracing = this.tracing;
    if (this.options.countCommitted !== true || event.type !== 'JournalCommitted') return;
    this.metrics.recordCommitted(event);
    const runId = runOf(event);
    if (tracing === null || runId === null || !event.data.events.some((e) => e.type === 'LetterWritten')) return;
    const current = event.data.loop_state?.current;
    if (current === null || current === undefined || current.letter === null) return;
    tracing.recordPast(
      `round ${current.round}`,
      tracing.runContext(runId),
      { 'rloop.plan': event.plan, 'rloop.run_id': runId, 'rloop.round': current.round, 'rloop.phase': current.phase },
      new Date(current.started_at),
      new Date(current.letter.occurred_at),
    );
  }
}
