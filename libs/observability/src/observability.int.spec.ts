// Services started in this process on the real NATS server: their /healthz, /readyz and /metrics,
// and the trace context carried in NATS headers from hop to hop (spans read from an in-memory exporter).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Inject, Logger, Module } from '@nestjs/common';
import { jetstreamManager } from '@nats-io/jetstream';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { EVENT_PUBLISHER, type EventPublisher, JetStreamClient, OnEvent, OnRequest, ServiceLogger } from '@rloop/bus';
import { type EventOf, type RloopEvent, subjectsFor } from '@rloop/contracts';
import { TEST_NATS_URL, connectTestNats, eventually, uniqueNamespace } from '@rloop/testing';
import { ulid } from 'ulid';
import { type ObservedService, Tracing, runTraceIds, startObservedService } from './index.js';

const namespace = uniqueNamespace('obs');
const exporter = new InMemorySpanExporter();
const tracing = new Tracing({ service: 'obs-spec', exporter });
const seen: RloopEvent[] = [];
const logged: string[] = [];

function stopped(runId: string): EventOf<'LoopStopped'> {
  return {
    event_id: ulid(),
    schema_version: 1,
    type: 'LoopStopped',
    plan: 'obs-plan',
    correlation_id: runId,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    producer: 'obs-spec',
    data: { by: 'spec' },
  };
}

/** The first hop: answers the journal's readiness probe, and turns a LoopStopped into a LoopResumed (same run). */
@Controller()
class FirstHop {
  constructor(@Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher) {}

  @OnRequest('journal.loop_state')
  loopState(): unknown {
    return { plan: 'rloop-readyz-probe', version: 0, state: null };
  }

  @OnEvent('LoopStopped')
  async relay(event: EventOf<'LoopStopped'>): Promise<void> {
    new Logger('Relay').log(`relaying ${event.event_id}`);
    await this.publisher.publish({
      ...event,
      event_id: ulid(),
      type: 'LoopResumed',
      causation_id: event.event_id,
      data: { escalation_id: event.event_id, by: 'first-hop' },
    });
  }
}

@Controller()
class SecondHop {
  @OnEvent('LoopResumed')
  record(event: EventOf<'LoopResumed'>): void {
    seen.push(event);
  }
}

@Module({ controllers: [FirstHop] })
class FirstModule {}

@Module({ controllers: [SecondHop] })
class SecondModule {}

function start(name: string, module: typeof FirstModule, inNamespace = namespace): Promise<ObservedService> {
  return startObservedService({
    name,
    module,
    bus: {
      servers: TEST_NATS_URL,
      namespace: inNamespace,
      consumer: { backoff: { initialMs: 50, maxMs: 200 }, pullExpiresMs: 1_000 },
    },
    logFormat: 'json',
    logLevel: 'warn',
    logger: new ServiceLogger(name, {
      format: 'json',
      levels: ['log', 'warn', 'error'],
      sink: (line) => logged.push(line),
    }),
    ops: { http: { host: '127.0.0.1', port: 0 }, tracesEndpoint: null },
    tracing,
    handleSignals: false,
    exitOnFailure: false,
  });
}

async function get(service: ObservedService, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${service.http?.port ?? 0}${path}`);
  return { status: response.status, text: await response.text() };
}

let first: ObservedService;
let second: ObservedService;

beforeAll(async () => {
  first = await start('first', FirstModule);
  second = await start('second', SecondModule);
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  // cleanup() deletes the namespace's streams.
  const nats = await connectTestNats(namespace);
  await nats.cleanup();
}, 30_000);

describe('health and metrics endpoints', () => {
  it('answers /healthz, and /readyz with every check once NATS, the journal and the consumers are there', async () => {
    await expect(get(first, '/healthz')).resolves.toEqual({ status: 200, text: '{"status":"ok"}\n' });
    const ready = await get(second, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({
      ready: true,
      checks: { nats: { ok: true }, consumers: { ok: true }, journal: { ok: true } },
    });
  });

  it('exports delivery, settlement and publish metrics in the Prometheus text format', async () => {
    const runId = ulid();
    await first.app.get(JetStreamClient).publish(stopped(runId));
    await eventually(() => (seen.some((e) => e.correlation_id === runId) ? true : undefined), {
      timeoutMs: 20_000,
      description: 'the second hop',
    });
    const metrics = await eventually(
      async () => {
        const { text } = await get(first, '/metrics');
        return text.includes(
          'rloop_bus_messages_settled_total{consumer="first-FirstHop_relay",settlement="acked",service="first"} 1',
        )
          ? text
          : undefined;
      },
      { timeoutMs: 10_000, description: 'the ack counted' },
    );
    expect(metrics).toContain('# TYPE rloop_bus_deliveries_total counter');
    expect(metrics).toContain('rloop_bus_deliveries_total{consumer="first-FirstHop_relay",service="first"} 1');
    expect(metrics).toContain(
      'rloop_bus_events_published_total{type="LoopResumed",duplicate="false",service="first"} 1',
    );
    expect(metrics).toMatch(
      /rloop_bus_handler_duration_seconds_count\{service="first",consumer="first-FirstHop_relay"\} 1/,
    );
    expect(metrics).toContain('rloop_process_cpu_seconds_total');
  });

  it('says on /readyz when a durable consumer is gone from the server, and when the journal does not answer', async () => {
    const jsm = await jetstreamManager(second.server.unwrap());
    const subjects = subjectsFor(namespace);
    const config = (await jsm.consumers.info(subjects.streams.events, 'second-SecondHop_record')).config;
    await jsm.consumers.delete(subjects.streams.events, 'second-SecondHop_record');
    try {
      const missing = await get(second, '/readyz');
      expect(missing.status).toBe(503);
      expect(JSON.parse(missing.text)).toMatchObject({
        ready: false,
        checks: {
          consumers: { ok: false, detail: expect.stringContaining('second-SecondHop_record') },
          journal: { ok: true },
        },
      });
    } finally {
      await jsm.consumers.add(subjects.streams.events, config);
    }
    const lonely = await start('lonely', SecondModule, uniqueNamespace('obs'));
    try {
      // Nobody answers the journal's queries in this namespace.
      const unready = await get(lonely, '/readyz');
      expect(unready.status).toBe(503);
      expect(JSON.parse(unready.text)).toMatchObject({
        checks: { nats: { ok: true }, journal: { ok: false, detail: expect.stringMatching(/no service answers/) } },
      });
    } finally {
      await lonely.stop();
      const nats = await connectTestNats(lonely.server.options.namespace);
      await nats.cleanup();
    }
  });
});

describe('trace context across hops', () => {
  it("puts every span of a run in the run's trace, each hop under the span that sent it", async () => {
    exporter.reset();
    const runId = ulid();
    tracing.recordRunRoot(runId, 'plan run obs-plan', {}, new Date());
    await first.app.get(JetStreamClient).publish(stopped(runId));
    await eventually(() => (seen.some((e) => e.correlation_id === runId) ? true : undefined), {
      timeoutMs: 20_000,
      description: 'the second hop',
    });
    const { traceId, rootSpanId } = runTraceIds(runId);
    const spans: ReadableSpan[] = await eventually(
      () => {
        const ended = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
        return ended.length >= 3 ? ended : undefined;
      },
      { timeoutMs: 10_000, description: 'three spans' },
    );
    const byName = new Map(spans.map((s) => [s.name, s]));
    const root = byName.get('plan run obs-plan');
    const relay = byName.get('first LoopStopped');
    const record = byName.get('second LoopResumed');
    expect(root?.spanContext().spanId).toBe(rootSpanId);
    expect(root?.parentSpanContext).toBeUndefined();
    // The first hop had no sender span (the spec published outside any): it hangs from the run's root.
    expect(relay?.parentSpanContext?.spanId).toBe(rootSpanId);
    // The second hop's parent came in the message's traceparent header: the first hop's span.
    expect(record?.parentSpanContext?.spanId).toBe(relay?.spanContext().spanId);
    expect(record?.attributes).toMatchObject({
      'rloop.plan': 'obs-plan',
      'rloop.run_id': runId,
      'rloop.event_type': 'LoopResumed',
    });
    // A handler's log line carries the plan, the run, the event and the trace it works in.
    const line = logged
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('relaying') && l['run_id'] === runId);
    expect(line).toMatchObject({
      context: 'Relay',
      plan: 'obs-plan',
      run_id: runId,
      event_id: expect.any(String),
      trace_id: traceId,
    });
  });
});
