import { spawn } from 'node:child_process';
import { CommandNotAllowedError } from './errors.js';
import { isSecretEnvName, redactSecrets } from './redact.js';

/** The outcome of one command. Output is redacted and capped. */
export interface CommandResult {
  readonly command: string;
  /** null when the process was killed by a signal (timeout included). */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
}

export interface RunCommandOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  /**
   * The environment of the command. Nothing is inherited from this process: the command runs
   * code the model wrote, so it gets only what the caller passes here (default: PATH only), and
   * names that look like secrets (…KEY, …TOKEN, …SECRET) are removed even from that.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Arguments appended to the command (test files to run). */
  readonly extraArgs?: readonly string[];
  /** Per stream; the head and the tail are kept around a marker. Default 64 KiB. */
  readonly maxOutputBytes?: number;
  readonly signal?: AbortSignal;
  /** The operator's limits for plan commands (config/trust.yaml `commands.limits`). */
  readonly limits?: CommandLimits;
}

/** Limits of a plan command besides its timeout. */
export interface CommandLimits {
  /** Output (both streams) it may write before it is stopped. */
  readonly outputBytes: number;
  /** RLIMIT_DATA of each of its processes (`ulimit -d`, where the OS allows); null: none. */
  readonly memoryBytes: number | null;
}

/** argv that sets the limits in a shell and then execs the command's own argv (no shell parsing of it). */
function limitedArgv(argv: readonly string[], limits: CommandLimits | undefined): string[] {
  if (limits === undefined) return [...argv];
  const setup = [
    'ulimit -c 0 2>/dev/null',
    ...(limits.memoryBytes === null
      ? []
      : [`ulimit -d ${Math.max(1, Math.floor(limits.memoryBytes / 1024))} 2>/dev/null`]),
  ];
  return ['/bin/sh', '-c', `${setup.join('; ')}; exec "$@"`, 'rloop-command', ...argv];
}

export const DEFAULT_COMMAND_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

// Characters that only mean something to a shell; a command containing one unquoted is run by /bin/sh.
const SHELL_SPECIAL = new Set([
  '|',
  '&',
  ';',
  '<',
  '>',
  '(',
  ')',
  '$',
  '`',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  '~',
  '!',
  '#',
  '\n',
  '\r',
]);

/**
 * Splits a command line into argv the way a POSIX shell would for plain words, quotes and
 * backslashes. Returns null when the command needs a shell (pipes, `&&`, variables, globs,
 * redirections, `VAR=value cmd`). Pure.
 */
export function splitCommand(command: string): string[] | null {
  const argv: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i += 1) {
    const ch = command[i] ?? '';
    if (quote === "'") {
      if (ch === "'") quote = null;
      else current += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < command.length && '"\\$`'.includes(command[i + 1] ?? '')) {
        current += command[i + 1] ?? '';
        i += 1;
      } else if (ch === '$' || ch === '`') return null;
      else current += ch;
      continue;
    }
    if (ch === ' ' || ch === '\t') {
      if (inWord) {
        argv.push(current);
        current = '';
        inWord = false;
      }
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
      continue;
    }
    if (ch === '\\') {
      if (i + 1 >= command.length) return null;
      current += command[i + 1] ?? '';
      i += 1;
      inWord = true;
      continue;
    }
    if (SHELL_SPECIAL.has(ch)) return null;
    if (ch === '=' && !inWord) return null;
    if (ch === '=' && argv.length === 0) return null;
    current += ch;
    inWord = true;
  }
  if (quote !== null) return null;
  if (inWord) argv.push(current);
  return argv.length === 0 ? null : argv;
}

/** Quotes one argument for /bin/sh. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Removes secret-looking variables and fills a default PATH. Pure. */
export function scrubEnv(env: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!isSecretEnvName(name)) out[name] = value;
  }
  if (out['PATH'] === undefined) out['PATH'] = DEFAULT_COMMAND_PATH;
  return out;
}

/** Whether `command` is exactly (after trimming) one of the allowlisted command lines. */
export function isAllowedCommand(command: string, allowlist: readonly string[]): boolean {
  const wanted = command.trim();
  return wanted.length > 0 && allowlist.some((allowed) => allowed.trim() === wanted);
}

class CappedOutput {
  private head = '';
  private tail = '';
  private dropped = 0;

  constructor(private readonly cap: number) {}

  push(chunk: string): void {
    const headCap = Math.floor(this.cap / 4);
    if (this.head.length < headCap) {
      const take = chunk.slice(0, headCap - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    this.tail += chunk;
    const tailCap = this.cap - headCap;
    if (this.tail.length > tailCap) {
      this.dropped += this.tail.length - tailCap;
      this.tail = this.tail.slice(this.tail.length - tailCap);
    }
  }

  text(): string {
    return this.dropped > 0
      ? `${this.head}\n… [${this.dropped} characters omitted] …\n${this.tail}`
      : this.head + this.tail;
  }
}

/**
 * Runs a command without a shell when it is plain words (argv), through /bin/sh otherwise — only
 * for a command line that came from the plan or the configuration, never from the model. The
 * process gets its own process group, so a timeout kills everything it started.
 */
export async function runCommand(command: string, options: RunCommandOptions): Promise<CommandResult> {
  const extra = options.extraArgs ?? [];
  const argv = splitCommand(command);
  const [file, ...args] = limitedArgv(
    argv === null ? ['/bin/sh', '-c', [command, ...extra.map(shellQuote)].join(' ')] : [...argv, ...extra],
    options.limits,
  );
  const cap = options.maxOutputBytes ?? 64 * 1024;
  const stdout = new CappedOutput(cap);
  const stderr = new CappedOutput(cap);
  const started = Date.now();
  return await new Promise<CommandResult>((resolve) => {
    let timedOut = false;
    let settled = false;
    let written = 0;
    let outputLimited = false;
    const child = spawn(file ?? '', args, {
      cwd: options.cwd,
      env: scrubEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone: nothing left to kill.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = (): void => killGroup();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const counted = (chunk: string): string => {
      written += Buffer.byteLength(chunk);
      if (!outputLimited && options.limits !== undefined && written > options.limits.outputBytes) {
        outputLimited = true;
        killGroup();
      }
      return chunk;
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.push(counted(chunk)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(counted(chunk)));
    const finish = (exitCode: number | null, signal: string | null, spawnError?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Children the command left behind (a watcher, a server) die with the group.
      killGroup();
      resolve({
        command,
        exitCode,
        signal,
        timedOut,
        stdout: redactSecrets(stdout.text()),
        stderr: redactSecrets(
          [
            stderr.text(),
            ...(spawnError === undefined ? [] : [spawnError.message]),
            ...(outputLimited
              ? [
                  `[rloop: the command wrote more than ${options.limits?.outputBytes ?? 0} bytes of output and was stopped]`,
                ]
              : []),
          ].join('\n'),
        ),
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (error) => finish(null, null, error));
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** Runs `command` only if it is on the allowlist; throws CommandNotAllowedError otherwise. */
export async function runAllowedCommand(
  command: string,
  allowlist: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  if (!isAllowedCommand(command, allowlist)) throw new CommandNotAllowedError(command, allowlist);
  return await runCommand(command.trim(), options);
}
