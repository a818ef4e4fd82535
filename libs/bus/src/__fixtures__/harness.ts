import { type DynamicModule, type LogLevel, type Type } from '@nestjs/common';
import { uniqueNamespace, TEST_NATS_URL, connectTestNats, type TestNats } from '@rloop/testing';
import {
  type ConsumerOverrides,
  DEFAULT_STREAM_LIMITS,
  type RunningService,
  ServiceLogger,
  provisionStreams,
  startService,
} from '../index.js';

/** Log lines a service wrote, kept for assertions instead of being printed. */
export class CapturedLog {
  readonly lines: { readonly level: LogLevel; readonly line: string }[] = [];

  logger(service: string): ServiceLogger {
    return new ServiceLogger(service, {
      levels: ['log', 'warn', 'error', 'fatal', 'debug'],
      sink: (line, level) => this.lines.push({ level, line }),
    });
  }

  matching(pattern: RegExp, level?: LogLevel): string[] {
    return this.lines
      .filter((l) => (level === undefined || l.level === level) && pattern.test(l.line))
      .map((l) => l.line);
  }
}

/** Small backoffs so retries happen in milliseconds. */
export const FAST_CONSUMER: ConsumerOverrides = {
  backoff: { initialMs: 50, maxMs: 200 },
  ackWaitMs: 5_000,
  pullExpiresMs: 1_000,
};

export interface Scenario {
  readonly namespace: string;
  readonly nats: TestNats;
  readonly log: CapturedLog;
  /** Creates the namespace's streams, for tests that publish before any service starts. */
  provision(): Promise<void>;
  start(name: string, module: Type<unknown> | DynamicModule, consumer?: ConsumerOverrides): Promise<RunningService>;
  /** Stops every service started here and deletes the namespace's streams. */
  dispose(): Promise<void>;
}

/** A namespace of its own, a raw NATS connection, and services started through startService. */
export async function openScenario(): Promise<Scenario> {
  const namespace = uniqueNamespace('bus');
  const nats = await connectTestNats(namespace);
  const log = new CapturedLog();
  const running: RunningService[] = [];
  return {
    namespace,
    nats,
    log,
    provision: async () => {
      await provisionStreams(nats.jsm, nats.subjects, DEFAULT_STREAM_LIMITS);
    },
    start: async (name, module, consumer = {}) => {
      const service = await startService({
        name,
        module,
        bus: {
          servers: TEST_NATS_URL,
          namespace,
          consumer: { ...FAST_CONSUMER, ...consumer },
          shutdownTimeoutMs: 5_000,
        },
        logger: log.logger(name),
        handleSignals: false,
        exitOnFailure: false,
      });
      running.push(service);
      return service;
    },
    dispose: async () => {
      try {
        await Promise.all(running.map((s) => s.stop()));
      } finally {
        await nats.cleanup();
      }
    },
  };
}

/** A promise with its resolve function, for holding a handler until the test lets it go. */
export function deferred<T = void>(): { readonly promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
