import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What every log line written while handling a message about a plan carries: the plan, its run
 * (the correlation id), the round, the event id and, when tracing is on, the trace id.
 */
export interface LogContext {
  readonly plan?: string;
  readonly run_id?: string;
  readonly round?: number;
  readonly event_id?: string;
  readonly trace_id?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` added to the log context (merged over the one already in force). */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/** The log context in force here (empty outside a handler). */
export function currentLogContext(): LogContext {
  return storage.getStore() ?? {};
}

/** The log context of an event: its plan (not a `_registry` key), run and round when it has one. */
export function logContextOf(event: {
  readonly event_id: string;
  readonly plan: string;
  readonly correlation_id: string;
  readonly data: unknown;
}): LogContext {
  const data = event.data as { round?: unknown; letter?: { round?: unknown } } | null;
  const round =
    typeof data?.round === 'number'
      ? data.round
      : typeof data?.letter?.round === 'number'
        ? data.letter.round
        : undefined;
  return {
    ...(event.plan.startsWith('_') ? {} : { plan: event.plan }),
    run_id: event.correlation_id,
    ...(round === undefined ? {} : { round }),
    event_id: event.event_id,
  };
}
