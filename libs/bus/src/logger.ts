import { type LogLevel, type LoggerService } from '@nestjs/common';
import { maskSecrets } from '@rloop/domain';
import { type Logger as Pino, type LevelWithSilent, pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { currentLogContext } from './log-context.js';

/** `json`: one JSON object per line (for log shippers); `plain`: pino-pretty's one-line text. */
export const LOG_FORMATS = ['json', 'plain'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The lowest level written (`RLOOP_LOG_LEVEL`). */
export const LOG_LEVEL_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

/** Where a log line goes; the default writes errors and warnings to stderr, the rest to stdout. */
export type LogSink = (line: string, level: LogLevel) => void;

const defaultSink: LogSink = (line, level) => {
  (level === 'error' || level === 'fatal' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
};

const PINO_LEVEL: Readonly<Record<LogLevel, Exclude<LevelWithSilent, 'silent'>>> = {
  verbose: 'trace',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};
const NEST_LEVEL_BY_NUMBER: ReadonlyMap<number, LogLevel> = new Map([
  [10, 'verbose'],
  [20, 'debug'],
  [30, 'log'],
  [40, 'warn'],
  [50, 'error'],
  [60, 'fatal'],
]);

/** Nest's levels at or above a pino level name. */
export function nestLevelsFrom(level: LogLevelName): LogLevel[] {
  const order: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
  return order.slice(LOG_LEVEL_NAMES.indexOf(level));
}

export interface ServiceLoggerOptions {
  readonly format?: LogFormat;
  /** Default: log, warn, error, fatal. */
  readonly levels?: readonly LogLevel[];
  readonly sink?: LogSink;
}

/**
 * The NestJS logger of a service, written through pino: JSON lines (`time`, `level`, `service`,
 * `context`, `msg`, plus `plan`, `run_id`, `round`, `event_id` and `trace_id` while a handler works
 * on a plan's message) or the same as one line of text. Nest's own messages go through it too.
 * Secrets are masked in every message and stack.
 */
export class ServiceLogger implements LoggerService {
  private levels: Set<LogLevel>;
  private readonly pino: Pino;

  constructor(
    private readonly service: string,
    options: ServiceLoggerOptions = {},
  ) {
    this.levels = new Set(options.levels ?? ['log', 'warn', 'error', 'fatal']);
    const sink = options.sink ?? defaultSink;
    const pretty =
      options.format === 'json'
        ? null
        : prettyFactory({
            colorize: false,
            singleLine: true,
            translateTime: 'SYS:standard',
            ignore: 'pid,hostname,level_name,service,context',
            messageFormat: '{service}{if context} [{context}]{end} {msg}',
          });
    const destination = {
      write(line: string): void {
        const record = JSON.parse(line) as { level: number };
        const level = NEST_LEVEL_BY_NUMBER.get(record.level) ?? 'log';
        sink(pretty === null ? line.trimEnd() : pretty(record).trimEnd(), level);
      },
    };
    this.pino = pino(
      {
        base: { service },
        level: 'trace',
        messageKey: 'msg',
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label, number) => ({ level: number, level_name: label }) },
        mixin: () => ({ ...currentLogContext() }),
      },
      destination,
    );
  }

  log(message: unknown, ...optional: unknown[]): void {
    this.write('log', message, optional);
  }

  error(message: unknown, ...optional: unknown[]): void {
    this.write('error', message, optional);
  }

  warn(message: unknown, ...optional: unknown[]): void {
    this.write('warn', message, optional);
  }

  debug(message: unknown, ...optional: unknown[]): void {
    this.write('debug', message, optional);
  }

  verbose(message: unknown, ...optional: unknown[]): void {
    this.write('verbose', message, optional);
  }

  fatal(message: unknown, ...optional: unknown[]): void {
    this.write('fatal', message, optional);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.levels = new Set(levels);
  }

  private write(level: LogLevel, message: unknown, optional: unknown[]): void {
    if (!this.levels.has(level)) return;
    // Nest calls log(message, context) and error(message, stack, context).
    const strings = optional.filter((o): o is string => typeof o === 'string');
    const context = strings.length > 0 ? strings[strings.length - 1] : undefined;
    let stack = level === 'error' && strings.length > 1 ? strings[0] : undefined;
    let text: string;
    if (message instanceof Error) {
      text = message.message;
      stack ??= message.stack;
    } else if (typeof message === 'string') {
      text = message;
    } else {
      text = safeJson(message);
    }
    // Messages carry command output, git errors and URLs: masked with the secrets detector's rules.
    text = maskSecrets(text);
    if (stack !== undefined) stack = maskSecrets(stack);
    this.pino[PINO_LEVEL[level]](
      { ...(context === undefined ? {} : { context }), ...(stack === undefined ? {} : { stack }) },
      text,
    );
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
