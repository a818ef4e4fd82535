import { readFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  EVENT_PUBLISHER,
  type EventPublisher,
  JetStreamClient,
  SERVICE_IDENTITY,
  type ServiceIdentity,
  findCriticHealthBucket,
  readCriticRegistry,
} from '@rloop/bus';
import { RloopError, ValidationError, describeError } from '@rloop/contracts';
import { type LoopState, buildLoopReport } from '@rloop/domain';
import { JournalClient, type LoopControlPorts, resumeLoop, stopLoop } from '@rloop/journal-client';
import { z } from 'zod';
import { accessOf } from '../access/access.js';
import type { ConsoleConfig } from '../config.js';
import { CommittedFeed } from '../feed/committed-feed.js';
import { CONSOLE_CONFIG } from '../tokens.js';

const WEB_DIR = fileURLToPath(new URL('../../src/web/', import.meta.url));
const CHART_JS = join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');

/** The page's own files and the chart library, served from this machine (no CDN). */
const ASSETS: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  '/': { file: join(WEB_DIR, 'index.html'), type: 'text/html; charset=utf-8' },
  '/app.js': { file: join(WEB_DIR, 'app.js'), type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: join(WEB_DIR, 'app.css'), type: 'text/css; charset=utf-8' },
  '/vendor/chart.umd.min.js': { file: CHART_JS, type: 'text/javascript; charset=utf-8' },
};

/** Scripts and styles from this origin only; nothing from the data can run as code. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

const MAX_BODY_BYTES = 16 * 1024;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const LETTER_ID = /^[0-9A-Za-z_-]{1,80}$/;

const ResumeBody = z
  .object({
    note: z.string().max(4000).optional(),
    raise_cap: z.int().min(1).max(100).optional(),
    by: z.string().max(100).optional(),
  })
  .strict();
const StopBody = z.object({ note: z.string().max(4000).optional(), by: z.string().max(100).optional() }).strict();

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...SECURITY_HEADERS });
  response.end(JSON.stringify(body));
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  // A cross-site form cannot send JSON without a CORS preflight, which this server never grants.
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
    throw new HttpError(415, 'send application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
}

/** RloopErrors as HTTP answers: a wrong state is a conflict, an unknown plan is not found. */
function statusOf(error: RloopError): number {
  if (error.code === 'LOOP.NOT_FOUND' || error.code === 'JOURNAL.NOT_FOUND') return 404;
  if (error.code === 'LOOP.NOT_ESCALATED' || error.code === 'LOOP.ENDED') return 409;
  if (error instanceof ValidationError) return 400;
  return error.retryable ? 503 : 500;
}

/**
 * The console's pages and API. It reads only through the journal's queries and the committed
 * feed (and the critic registry on the bus), never the database, and records decisions through
 * the same code as `rloop resume` / `rloop stop`.
 */
@Injectable()
export class ConsoleRoutes {
  private readonly log = new Logger('Console');

  constructor(
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JetStreamClient) private readonly client: JetStreamClient,
    @Inject(CommittedFeed) private readonly feed: CommittedFeed,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  /** Answers a request when it is one of the console's; false otherwise (the ops server then says 404). */
  readonly handle = async (request: IncomingMessage, response: ServerResponse): Promise<boolean> => {
    const url = new URL(request.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    try {
      if (request.method === 'GET' && path === '/favicon.ico') {
        response.writeHead(204, SECURITY_HEADERS);
        response.end();
        return true;
      }
      if (request.method === 'GET' && Object.hasOwn(ASSETS, path)) {
        await this.asset(response, path);
        return true;
      }
      if (!path.startsWith('/api/')) return false;
      if (request.method === 'GET') await this.read(request, response, path, url.searchParams);
      else if (request.method === 'POST') await this.act(request, response, path);
      else throw new HttpError(405, 'method not allowed');
      return true;
    } catch (error) {
      if (response.headersSent) {
        response.destroy();
        return true;
      }
      if (error instanceof HttpError) sendJson(response, error.status, { error: error.message });
      else if (error instanceof RloopError)
        sendJson(response, statusOf(error), { error: error.message, code: error.code });
      else {
        this.log.error(`${request.method ?? '?'} ${path} failed: ${describeError(error)}`);
        sendJson(response, 500, { error: 'internal error' });
      }
      return true;
    }
  };

  private async asset(response: ServerResponse, path: string): Promise<void> {
    const asset = ASSETS[path];
    if (asset === undefined) throw new HttpError(404, 'not found');
    const body = await readFile(asset.file);
    response.writeHead(200, { 'content-type': asset.type, ...SECURITY_HEADERS });
    response.end(body);
  }

  private async read(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<void> {
    if (path === '/api/session') {
      const access = accessOf(request.headers, this.config.access);
      sendJson(
        response,
        200,
        access.canAct
          ? { can_act: true, via: access.via, by: access.by }
          : { can_act: false, reason: access.reason, token_configured: this.config.access.token !== null },
      );
      return;
    }
    if (path === '/api/loops') {
      const plans = await this.journal.status();
      const status = query.get('status');
      sendJson(response, 200, {
        plans: status === null || status === '' ? plans : plans.filter((p) => p.status === status),
      });
      return;
    }
    if (path === '/api/escalations') {
      const escalations = await this.journal.escalations({ open: query.get('all') !== 'true', limit: 200 });
      sendJson(response, 200, { escalations: escalations.map((e) => summariseEscalation(e.plan, e.open, e.event)) });
      return;
    }
    if (path === '/api/critics') {
      sendJson(response, 200, await this.critics());
      return;
    }
    if (path === '/api/events') {
      this.stream(request, response);
      return;
    }
    const loop = /^\/api\/loops\/([^/]+)$/.exec(path);
    if (loop?.[1] !== undefined) {
      sendJson(response, 200, await this.loop(decodeURIComponent(loop[1])));
      return;
    }
    const letter = /^\/api\/letters\/([^/]+)$/.exec(path);
    if (letter?.[1] !== undefined) {
      if (!LETTER_ID.test(letter[1])) throw new HttpError(400, 'not a letter id');
      const found = await this.journal.findLetter(letter[1]);
      if (found === null) throw new HttpError(404, `no letter ${letter[1]}`);
      sendJson(response, 200, { letter: found });
      return;
    }
    throw new HttpError(404, 'not found');
  }

  /** A loop's page: where it stands, its report (rounds, critics, fixes, escalation) and the soft caps for the chart. */
  private async loop(plan: string): Promise<unknown> {
    if (!SLUG.test(plan)) throw new HttpError(400, 'not a plan slug');
    const [{ state }, { entries }] = await Promise.all([this.journal.loopState(plan), this.journal.events(plan)]);
    if (state === null || state.run_id === null || entries.length === 0)
      throw new HttpError(404, `no plan ${plan} in the journal`);
    const s: LoopState = state;
    return {
      plan,
      status: s.status,
      phase: s.phase,
      round: s.round,
      soft_caps: this.config.softCaps,
      cap_bonus: s.cap_bonus,
      report: buildLoopReport(entries.map((e) => e.event)),
    };
  }

  private async critics(): Promise<unknown> {
    const connection = await this.client.connect();
    const bucket = await findCriticHealthBucket(connection, this.client.options.namespace);
    const registry = bucket === null ? { critics: [], invalid: [] } : await readCriticRegistry(bucket);
    const stats = await this.journal.criticStats();
    const byId = new Map(stats.critics.map((c) => [c.critic_id, c]));
    const ids = [
      ...new Set([...registry.critics.map((c) => c.critic_id), ...stats.critics.map((c) => c.critic_id)]),
    ].sort();
    return {
      rounds_looked_at: stats.rounds,
      critics: ids.map((id) => {
        const live = registry.critics.find((c) => c.critic_id === id);
        const s = byId.get(id);
        return {
          critic_id: id,
          evidence: live?.evidence ?? null,
          health: live?.health ?? 'gone',
          instances: live?.instances.length ?? 0,
          last_heartbeat: live?.last_seen ?? null,
          dispatched: s?.dispatched ?? 0,
          failed: s?.failed ?? 0,
          failure_rate: s === undefined || s.dispatched === 0 ? null : s.failed / s.dispatched,
          reasons: s?.reasons ?? {},
        };
      }),
    };
  }

  /** Server-sent events: one `loop` event per journal announcement, for as long as the page is open. */
  private stream(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
      ...SECURITY_HEADERS,
    });
    response.write('retry: 2000\n\n');
    const unsubscribe = this.feed.listen((update) =>
      response.write(`event: loop\ndata: ${JSON.stringify(update)}\n\n`),
    );
    // After a NATS reconnect the page reads again from the journal: announcements made meanwhile are not replayed.
    const unsubscribeResync = this.feed.onResync(() => response.write('event: resync\ndata: {}\n\n'));
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), 15_000);
    keepAlive.unref();
    request.on('close', () => {
      clearInterval(keepAlive);
      unsubscribe();
      unsubscribeResync();
    });
  }

  private async act(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const match = /^\/api\/loops\/([^/]+)\/(resume|stop)$/.exec(path);
    if (match?.[1] === undefined) throw new HttpError(404, 'not found');
    const plan = decodeURIComponent(match[1]);
    if (!SLUG.test(plan)) throw new HttpError(400, 'not a plan slug');
    const raw = await readJsonBody(request);
    const ports: LoopControlPorts = {
      journal: this.journal,
      publish: (event) => this.publisher.publish(event),
      producer: this.identity.producer,
    };
    if (match[2] === 'resume') {
      const body = ResumeBody.safeParse(raw);
      if (!body.success)
        throw new HttpError(
          400,
          body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
        );
      const access = accessOf(request.headers, this.config.access, body.data.by);
      if (!access.canAct) throw new HttpError(403, access.reason);
      const { event, now } = await resumeLoop(ports, plan, {
        by: access.by,
        ...(body.data.note === undefined ? {} : { note: body.data.note }),
        ...(body.data.raise_cap === undefined ? {} : { raiseCap: body.data.raise_cap }),
      });
      this.log.log(`${access.by} resumed ${plan} (escalation ${event.data.escalation_id})`);
      sendJson(response, 200, { resumed: plan, event_id: event.event_id, status: now.status });
      return;
    }
    const body = StopBody.safeParse(raw);
    if (!body.success)
      throw new HttpError(400, body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
    const access = accessOf(request.headers, this.config.access, body.data.by);
    if (!access.canAct) throw new HttpError(403, access.reason);
    const { event } = await stopLoop(ports, plan, {
      by: access.by,
      ...(body.data.note === undefined ? {} : { note: body.data.note }),
    });
    this.log.log(`${access.by} stopped ${plan}`);
    sendJson(response, 200, { stopped: plan, event_id: event.event_id, status: 'stopped' });
  }
}

/** What the inbox shows of an escalation (the full report opens on the loop's page). */
function summariseEscalation(plan: string, open: boolean, event: Readonly<Record<string, unknown>>): unknown {
  const data = (event['data'] ?? {}) as {
    reason?: unknown;
    round?: unknown;
    phase?: unknown;
    report?: { recommended_action?: unknown; trigger?: { detail?: unknown } };
  };
  return {
    plan,
    open,
    event_id: event['event_id'],
    raised_at: event['occurred_at'],
    reason: data.reason,
    round: data.round,
    phase: data.phase,
    detail: data.report?.trigger?.detail ?? null,
    recommended_action: data.report?.recommended_action ?? null,
  };
}
