import { type LogLevel, type LoggerService } from '@nestjs/common';
import { maskSecrets } from '@rloop/domain';

export const LOG_FORMATS = ['json', 'plain'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where a log line goes; the default writes errors and warnings to stderr, the rest to stdout. */
export type LogSink = (line: string, level: LogLevel) => void;

const defaultSink: LogSink = (line, level) => {
  (level === 'error' || level === 'fatal' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
};

const LEVEL_NAMES: Readonly<Record<LogLevel, string>> = { log: 'info', error: 'error', warn: 'warn', debug: 'debug', verbose: 'verbose', fatal: 'fatal' };

export interface ServiceLoggerOptions {
  readonly format?: LogFormat;
  /** Default: log, warn, error, fatal. */
  readonly levels?: readonly LogLevel[];
  readonly sink?: LogSink;
}

/**
 * One line per entry, as JSON (`{"time","level","service","context","msg"}`) or plain text
 * (`<time> <LEVEL> <service> [<context>] <msg>`); Nest's own messages go through it as well.
 * Secrets are masked in every message and stack.
 */
export class ServiceLogger implements LoggerService {
  private levels: Set<LogLevel>;
  private readonly format: LogFormat;
  private readonly sink: LogSink;

  constructor(
    private readonly service: string,
    options: ServiceLoggerOptions = {},
  ) {
    this.format = options.format ?? 'plain';
    this.levels = new Set(options.levels ?? ['log', 'warn', 'error', 'fatal']);
    this.sink = options.sink ?? defaultSink;
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
    const time = new Date().toISOString();
    if (this.format === 'json') {
      this.sink(safeJson({ time, level: LEVEL_NAMES[level], service: this.service, ...(context === undefined ? {} : { context }), msg: text, ...(stack === undefined ? {} : { stack }) }), level);
      return;
    }
    const where = context === undefined ? '' : ` [${context}]`;
    this.sink(`${time} ${LEVEL_NAMES[level].toUpperCase()} ${this.service}${where} ${text}${stack === undefined ? '' : `\n${stack}`}`, level);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
