// A whole loop with tracing on: the fleet exports over OTLP/HTTP (the real exporter, JSON) to a
// collector this spec runs, which keeps the spans in memory. One plan run must be one connected
// trace: every span in the run's trace hangs, hop by hop, from the run's root span.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { runTraceIds } from '@rloop/observability';
import { eventually } from '@rloop/testing';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly service: string;
}

interface OtlpValue {
  readonly stringValue?: string;
}

interface OtlpExport {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly { readonly key: string; readonly value: OtlpValue }[] };
    readonly scopeSpans?: readonly {
      readonly spans?: readonly { traceId: string; spanId: string; parentSpanId?: string; name: string }[];
    }[];
  }[];
}

/** OTLP/JSON ids are hex; accept base64 too, as some encoders write it. */
function hex(id: string | undefined): string {
  if (id === undefined || id === '') return '';
  return /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');
}

const spans: CollectedSpan[] = [];
let collector: Server;
let t: TestFleet;

beforeAll(async () => {
  collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces' && (request.headers['content-type'] ?? '').includes('json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resource of body.resourceSpans ?? []) {
          const service = resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resource.scopeSpans ?? []) {
            for (const s of scope.spans ?? [])
              spans.push({
                traceId: hex(s.traceId),
                spanId: hex(s.spanId),
                parentSpanId: hex(s.parentSpanId),
                name: s.name,
                service,
              });
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
        return;
      }
      response.writeHead(415);
      response.end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  t = await startTestFleet({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
}, 120_000);

afterAll(async () => {
  await t?.stop();
  collector?.closeAllConnections();
  await new Promise<void>((resolve) => collector?.close(() => resolve()));
}, 60_000);

describe('tracing a loop across the fleet', () => {
  it('makes one plan run one connected trace, with spans per round, critic, synthesis, fix and journal append', async () => {
    const repo = await t.sampleRepo('fixable');
    const reply = await t.submit(samplePlan('traced-fixable', repo));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const state = await t.outcome('traced-fixable', reply.event_id);
    expect(state.status).toBe('converged');
    const { traceId, rootSpanId } = runTraceIds(reply.event_id);
    // Spans reach the collector in batches (every few seconds): wait until the trace holds the last round and every parent.
    const trace = await eventually(
      () => {
        const ours = spans.filter((s) => s.traceId === traceId);
        const ids = new Set(ours.map((s) => s.spanId));
        const complete =
          ours.some((s) => s.name === `round ${state.round}`) &&
          ours.every((s) => s.parentSpanId === '' || ids.has(s.parentSpanId));
        return complete ? ours : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'a complete trace of the run' },
    );
    const roots = trace.filter((s) => s.parentSpanId === '');
    expect(roots.map((s) => [s.name, s.spanId])).toEqual([['plan run traced-fixable', rootSpanId]]);
    const names = new Set(trace.map((s) => s.name));
    for (let round = 1; round <= state.round; round += 1) {
      expect(names).toContain(`round ${round}`);
      expect(names).toContain(`synthesis round ${round}`);
    }
    expect(names).toContain('critic toolchain/compiler-linter');
    expect(names).toContain('fix round 1');
    expect(names).toContain('journal append');
    expect(names).toContain('panel JournalCommitted');
    expect(new Set(trace.map((s) => s.service))).toEqual(
      new Set([
        'rloop-gate',
        'rloop-journal',
        'rloop-panel',
        'rloop-critic-runner',
        'rloop-synthesizer',
        'rloop-implementer',
      ]),
    );
    // Nothing of this run leaked into another trace.
    expect(spans.filter((s) => s.traceId !== traceId && s.name.includes('traced-fixable'))).toEqual([]);
  }, 240_000);
});
