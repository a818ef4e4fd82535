import {
  type DynamicModule,
  type INestMicroservice,
  type LogLevel,
  type LoggerService,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type CustomStrategy } from '@nestjs/microservices';
import { RloopError, describeError } from '@rloop/contracts';
import { type LogFormat, ServiceLogger } from './logger.js';
import { BusModule } from './module.js';
import { type BusObserver } from './observer.js';
import { type BusOptions } from './options.js';
import { RuntimeModule, processIdentity } from './runtime.js';
import { JetStreamServer } from './server.js';

export interface StartServiceOptions {
  /** The service's name: its consumers' prefix, its queue group, the first word of its log lines. */
  readonly name: string;
  /** The service's root module (its handlers); BusModule and RuntimeModule (clock, identity) are added beside it. */
  readonly module: Type<unknown> | DynamicModule;
  readonly bus: Omit<BusOptions, 'service'>;
  readonly logFormat?: LogFormat;
  readonly logLevels?: readonly LogLevel[];
  /** Replaces the ServiceLogger built from logFormat/logLevels. */
  readonly logger?: LoggerService;
  /** Close the app on SIGTERM/SIGINT, then exit (default true). */
  readonly handleSignals?: boolean;
  /** Watches publishes, handler calls and settlements (metrics, tracing); see BusObserver. */
  readonly observer?: BusObserver;
  /** On a start failure print one line and exit(1) (default true); false rethrows instead. */
  readonly exitOnFailure?: boolean;
}

export interface RunningService {
  readonly app: INestMicroservice;
  readonly server: JetStreamServer;
  /** Durable consumers bound, one per event handler. */
  readonly consumers: readonly string[];
  /** Graceful stop: stop pulling, let handlers finish, drain. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a service: a Nest microservice on the JetStream transport with BusModule, a one-line
 * logger, graceful SIGTERM/SIGINT handling and a `<name>: ready (<n> consumers bound)` line.
 *
 * @example
 *   await startService({ name: 'panel', module: PanelModule, bus: { servers: config.natsUrl, namespace: config.namespace } });
 */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const logger =
    options.logger ??
    new ServiceLogger(options.name, {
      format: options.logFormat ?? 'plain',
      ...(options.logLevels === undefined ? {} : { levels: options.logLevels }),
    });
  let app: INestMicroservice | undefined;
  try {
    const bus: BusOptions = { ...options.bus, service: options.name };
    const server = new JetStreamServer(bus, logger, options.observer);
    const created = await NestFactory.createMicroservice<CustomStrategy>(
      {
        imports: [
          BusModule.forRoot(bus, options.observer),
          RuntimeModule.forRoot(processIdentity(options.name)),
          options.module,
        ],
      },
      { strategy: server, logger, abortOnError: false },
    );
    app = created;
    await created.listen();
    logger.log(`${options.name}: ready (${server.consumers.length} consumers bound)`, 'Bootstrap');
    let stopping: Promise<void> | null = null;
    let releaseSignals = (): void => undefined;
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        releaseSignals();
        await created.close();
        logger.log(`${options.name}: stopped`, 'Bootstrap');
      })();
      return stopping;
    };
    if (options.handleSignals ?? true) releaseSignals = stopOnSignals(options.name, stop, logger);
    return { app: created, server, consumers: server.consumers, stop };
  } catch (error) {
    const code = error instanceof RloopError ? `${error.code}: ` : '';
    logger.error(`${options.name}: failed to start: ${code}${describeError(error)}`, 'Bootstrap');
    if (app !== undefined) {
      await app.close().catch((closeError: unknown) => {
        logger.error(
          `${options.name}: cleanup after the failed start failed: ${describeError(closeError)}`,
          'Bootstrap',
        );
      });
    }
    if (options.exitOnFailure ?? true) process.exit(1);
    throw error;
  }
}

/**
 * Runs `stop` on the first SIGTERM or SIGINT, then exits 0 (1 when the stop fails, with why).
 * Returns what takes the handlers off again (a stop that began some other way).
 */
export function stopOnSignals(name: string, stop: () => Promise<void>, logger: LoggerService): () => void {
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.log(`${name}: ${signal} received, stopping`, 'Bootstrap');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`${name}: stop failed: ${describeError(error)}`, 'Bootstrap');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
