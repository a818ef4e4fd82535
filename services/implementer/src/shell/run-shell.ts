import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** What a plan's command may use (config/trust.yaml `commands.limits`); the time limit is the timeout. */
export interface ProcessLimits {
  /** Output (stdout and stderr together) the command may write before it is stopped. */
  readonly outputBytes: number;
  /** RLIMIT_DATA of every process it starts (`ulimit -d`, where the OS allows it); null: none. */
  readonly memoryBytes: number | null;
}

export interface RunShellOptions {
  /** A shell command line (run by /bin/sh), e.g. the plan's `test_cmd`. */
  readonly command: string;
  readonly cwd: string;
  /** The complete environment of the command: nothing is inherited implicitly. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  readonly limits?: ProcessLimits | undefined;
  /** A sandbox to run the command in: the program and arguments that precede /bin/sh (e.g. bwrap …). */
  readonly sandbox?: readonly string[] | undefined;
  readonly signal?: AbortSignal | undefined;
  /** How much of the combined output to keep for parsing (the end is kept: runners print summaries last). */
  readonly maxCaptureBytes?: number | undefined;
  /** How much of the output's end to keep for reports. */
  readonly tailBytes?: number | undefined;
}

export interface ShellRun {
  /** Null when the process was killed by a signal. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** Stopped because it wrote more than `limits.outputBytes`. */
  readonly outputLimited: boolean;
  readonly durationMs: number;
  /** stdout and stderr interleaved as they arrived, cut to the last `maxCaptureBytes`. */
  readonly output: string;
  /** The last `tailBytes` of the output, for reports and events. */
  readonly tail: string;
  readonly truncated: boolean;
}

const DEFAULT_MAX_CAPTURE_BYTES = 8 * 1024 * 1024;
const DEFAULT_TAIL_BYTES = 8 * 1024;
/** How long a timed-out command gets to exit after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** Keeps the last `limit` bytes of a stream without holding all of it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0];
      if (first === undefined) break;
      const excess = this.size - this.limit;
      this.truncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** The last `bytes` bytes of a text, starting at a line boundary when one is near. */
export function tailOf(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= bytes) return text;
  const cut = buffer.subarray(buffer.length - bytes).toString('utf8');
  const newline = cut.indexOf('\n');
  return newline >= 0 && newline < 200 ? cut.slice(newline + 1) : cut;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    // The command runs in its own process group (detached), so this reaches the shell's children too.
    process.kill(-pid, signal);
  } catch (error) {
    // ESRCH: the group is already gone, which is what we wanted.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * The program and arguments that run a command line under its limits: a shell sets them
 * (`ulimit`, applied where the OS allows, silently skipped where it does not) and then becomes the
 * command's own shell, inside the sandbox when there is one. No core dumps: they would land in the
 * worktree.
 */
export function limitedArgv(
  command: string,
  limits: ProcessLimits | undefined,
  sandbox: readonly string[] = [],
): string[] {
  const memory = limits?.memoryBytes ?? null;
  const setup = [
    'ulimit -c 0 2>/dev/null',
    ...(memory === null ? [] : [`ulimit -d ${Math.max(1, Math.floor(memory / 1024))} 2>/dev/null`]),
  ];
  return [...sandbox, '/bin/sh', '-c', `${setup.join('; ')}; exec /bin/sh -c "$1"`, 'rloop-command', command];
}

/**
 * Runs a shell command with a timeout, capturing its combined output. A command that outlives its
 * timeout (or the abort signal), or writes more output than its limit, is killed with its whole
 * process group; so are background processes it leaves behind when it exits, because they would
 * keep the output pipes open.
 */
export function runShell(options: RunShellOptions): Promise<ShellRun> {
  const capture = new TailBuffer(options.maxCaptureBytes ?? DEFAULT_MAX_CAPTURE_BYTES);
  const tailBytes = options.tailBytes ?? DEFAULT_TAIL_BYTES;
  const started = performance.now();
  return new Promise<ShellRun>((resolve, reject) => {
    if (options.signal?.aborted === true) {
      resolve({
        exitCode: null,
        signal: null,
        timedOut: false,
        aborted: true,
        outputLimited: false,
        durationMs: 0,
        output: '',
        tail: '',
        truncated: false,
      });
      return;
    }
    const [program = '/bin/sh', ...args] = limitedArgv(options.command, options.limits, options.sandbox);
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
    let outputLimited = false;
    let written = 0;
    let exit: { code: number | null; signal: string | null } | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const onOutput = (chunk: Buffer): void => {
      capture.push(chunk);
      written += chunk.length;
      if (!outputLimited && options.limits !== undefined && written > options.limits.outputBytes) {
        outputLimited = true;
        stop();
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Leftover background processes would hold the pipes open and delay 'close' forever.
      killGroup(child.pid, 'SIGKILL');
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const output = capture.text();
      const final = exit ?? { code, signal };
      resolve({
        exitCode: final.code,
        signal: final.signal,
        timedOut,
        aborted,
        outputLimited,
        durationMs: Math.round(performance.now() - started),
        output,
        tail: tailOf(output, tailBytes),
        truncated: capture.truncated,
      });
    });
  });
}
