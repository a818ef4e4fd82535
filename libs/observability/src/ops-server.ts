import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Registry } from 'prom-client';
import { describeError } from '@rloop/contracts';

/** One readiness check: resolves when the dependency is fine, throws (with the reason) when not. */
export type ReadinessCheck = () => Promise<void>;

/** Extra routes (the console's pages and API): return true when the request was answered. */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, { readonly ok: boolean; readonly detail?: string }>>;
}

/** Runs every check (each bounded by `timeoutMs`) and reports them all. */
export async function checkReadiness(
  checks: Readonly<Record<string, ReadinessCheck>>,
  timeoutMs: number,
): Promise<ReadinessReport> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return [name, { ok: true }] as const;
      } catch (error) {
        return [name, { ok: false, detail: describeError(error) }] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const byName: Record<string, { readonly ok: boolean; readonly detail?: string }> = {};
  for (const [name, result] of results) byName[name] = result;
  return { ready: results.every(([, r]) => r.ok), checks: byName };
}

export interface OpsServerOptions {
  readonly host: string;
  /** 0: any free port (see `port` once started). */
  readonly port: number;
  readonly registry: Registry;
  /** The checks /readyz runs; empty until the service has started (it answers 503 "starting" before). */
  readonly readiness: () => Readonly<Record<string, ReadinessCheck>> | null;
  readonly checkTimeoutMs?: number;
}

/**
 * A service's operations endpoint: `GET /healthz` (the process answers), `GET /readyz` (NATS
 * connected, the journal reachable, consumers bound: 200 or 503 with every check), `GET /metrics`
 * (Prometheus text format). Other routes can be added (the console serves its pages here).
 */
export class OpsServer {
  private readonly server: Server;
  private routes: RouteHandler | null = null;

  private constructor(private readonly options: OpsServerOptions) {
    this.server = createServer((request, response) => {
      this.answer(request, response).catch((error: unknown) => {
        if (!response.headersSent)
          send(response, 500, 'text/plain; charset=utf-8', `internal error: ${describeError(error)}\n`);
        else response.destroy();
      });
    });
  }

  /** Listens on host:port; rejects when the port is taken (EADDRINUSE) or not allowed. */
  static async start(options: OpsServerOptions): Promise<OpsServer> {
    const ops = new OpsServer(options);
    await new Promise<void>((resolve, reject) => {
      ops.server.once('error', reject);
      ops.server.listen(options.port, options.host, () => {
        ops.server.off('error', reject);
        resolve();
      });
    });
    return ops;
  }

  /** The port it listens on. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Adds routes answered before the built-in ones are looked up for anything else. */
  route(handler: RouteHandler): void {
    this.routes = handler;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' || request.method === 'HEAD') {
      switch (path) {
        case '/healthz':
          send(response, 200, 'application/json', '{"status":"ok"}\n');
          return;
        case '/readyz': {
          const checks = this.options.readiness();
          if (checks === null) {
            send(
              response,
              503,
              'application/json',
              `${JSON.stringify({ ready: false, checks: { started: { ok: false, detail: 'starting' } } })}\n`,
            );
            return;
          }
          const report = await checkReadiness(checks, this.options.checkTimeoutMs ?? 3_000);
          send(response, report.ready ? 200 : 503, 'application/json', `${JSON.stringify(report)}\n`);
          return;
        }
        case '/metrics':
          send(response, 200, this.options.registry.contentType, await this.options.registry.metrics());
          return;
        default:
          break;
      }
    }
    if (this.routes !== null && (await this.routes(request, response))) return;
    send(response, 404, 'text/plain; charset=utf-8', 'not found\n');
  }
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
}
