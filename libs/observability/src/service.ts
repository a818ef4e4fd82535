import { type LoggerService } from '@nestjs/common';
import { jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection } from '@nats-io/transport-node';
import {
  type BusStatus,
  JetStreamClient,
  type LogFormat,
  type LogLevelName,
  type OpsSettings,
  type RunningService,
  ServiceLogger,
  type StartServiceOptions,
  nestLevelsFrom,
  startService,
  stopOnSignals,
} from '@rloop/bus';
import { describeError, subjectsFor } from '@rloop/contracts';
import { FleetObserver, type FleetObserverOptions } from './fleet-observer.js';
import { FleetMetrics } from './metrics.js';
import { OpsServer, type ReadinessCheck } from './ops-server.js';
import { Tracing } from './tracing.js';

export interface ObservedServiceOptions extends Omit<StartServiceOptions, 'observer' | 'logLevels' | 'logFormat'> {
  readonly logFormat: LogFormat;
  readonly logLevel: LogLevelName;
  readonly ops: OpsSettings;
  readonly observe?: FleetObserverOptions;
  /** Readiness checks besides NATS, the journal and the consumers (e.g. the journal's own database). */
  readonly checks?: Readonly<Record<string, ReadinessCheck>>;
  /** Whether /readyz asks the journal (default true; a service that answers for it can say false). */
  readonly checkJournal?: boolean;
  /** The service's metrics, when it records some of its own before it starts (the journal's appends). */
  readonly metrics?: FleetMetrics;
  /** Replaces the tracing built from `ops.tracesEndpoint` (tests: an in-memory exporter). */
  readonly tracing?: Tracing;
}

export interface ObservedService extends RunningService {
  readonly metrics: FleetMetrics;
  readonly logger: LoggerService;
  /** The operations endpoint, when RLOOP_HTTP_PORT is set. */
  readonly http: OpsServer | null;
}

/** A cheap committed read: proves the journal answers its queries (and reaches its database). */
const JOURNAL_PROBE = { plan: 'rloop-readyz-probe' };

/**
 * startService with the operations side: a pino logger at the configured level, Prometheus
 * metrics and (when configured) OpenTelemetry tracing through a bus observer, and /healthz,
 * /readyz, /metrics on RLOOP_HTTP_PORT. /healthz answers from the first moment; /readyz only
 * once the service has bound its consumers, and then only while NATS is connected and the
 * journal answers.
 */
export async function startObservedService(options: ObservedServiceOptions): Promise<ObservedService> {
  const logger =
    options.logger ??
    new ServiceLogger(options.name, { format: options.logFormat, levels: nestLevelsFrom(options.logLevel) });
  const metrics = options.metrics ?? new FleetMetrics(options.name);
  const tracing =
    options.tracing ??
    (options.ops.tracesEndpoint === null
      ? null
      : new Tracing({ service: options.name, endpoint: options.ops.tracesEndpoint }));
  const observer = new FleetObserver(options.name, metrics, tracing, options.observe);
  let checks: Readonly<Record<string, ReadinessCheck>> | null = null;
  let http: OpsServer | null = null;
  if (options.ops.http !== null) {
    try {
      http = await OpsServer.start({ ...options.ops.http, registry: metrics.registry, readiness: () => checks });
    } catch (error) {
      logger.error(
        `${options.name}: cannot serve /healthz, /readyz and /metrics on ${options.ops.http.host}:${options.ops.http.port}: ${describeError(error)}`,
        'Bootstrap',
      );
      if (options.exitOnFailure ?? true) process.exit(1);
      throw error;
    }
    logger.log(
      `${options.name}: health and metrics on http://${options.ops.http.host}:${http.port}/ (/healthz, /readyz, /metrics)`,
      'Bootstrap',
    );
  }
  let running: RunningService;
  try {
    // Signals are handled below, so a stop also closes the HTTP endpoint and exports the last spans.
    running = await startService({ ...options, logger, observer, handleSignals: false });
  } catch (error) {
    await http?.close();
    await tracing?.shutdown();
    throw error;
  }
  let status: BusStatus = 'connected';
  running.server.on('status', (s) => {
    status = s;
  });
  const client = running.app.get(JetStreamClient);
  const subjects = subjectsFor(running.server.options.namespace);
  checks = {
    nats: () => (status === 'connected' ? Promise.resolve() : Promise.reject(new Error(`NATS is ${status}`))),
    consumers: async () => {
      // The durable consumers this service bound still exist on the server (a server that lost its store has none until the next reprovision).
      if (running.consumers.length === 0) return;
      const jsm = await jetstreamManager(running.server.unwrap<NatsConnection>());
      const present = new Set<string>();
      for (const stream of [subjects.streams.events, subjects.streams.commits, subjects.streams.critics]) {
        for await (const consumer of jsm.consumers.list(stream)) present.add(consumer.name);
      }
      const missing = running.consumers.filter((name) => !present.has(name));
      if (missing.length > 0) throw new Error(`durable consumers missing on the server: ${missing.join(', ')}`);
    },
    ...(options.checkJournal === false
      ? {}
      : {
          journal: async (): Promise<void> => {
            await client.request('journal.loop_state', JOURNAL_PROBE, { timeoutMs: 2_000 });
          },
        }),
    ...options.checks,
  };
  let stopping: Promise<void> | null = null;
  let releaseSignals = (): void => undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      releaseSignals();
      await running.stop();
      await http?.close();
      // A tracing the caller passed in is theirs to shut down; it is only flushed here.
      await (options.tracing === undefined ? tracing?.shutdown() : tracing?.flush())?.catch((error: unknown) => {
        logger.warn(`${options.name}: exporting the last spans failed: ${describeError(error)}`, 'Bootstrap');
      });
    })();
    return stopping;
  };
  if (options.handleSignals ?? true) releaseSignals = stopOnSignals(options.name, stop, logger);
  return { ...running, metrics, logger, http, stop };
}
