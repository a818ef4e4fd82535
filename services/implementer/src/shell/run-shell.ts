import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface RunShellOptions {
  /** A shell command line (run by /bin/sh), e.g. the plan's `test_cmd`. */
  readonly command: string;
  readonly cwd: string;
  /** The complete environment of the command: nothing is inherited implicitly. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
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
 * Runs a shell command with a timeout, capturing its combined output. A command that outlives its
 * timeout (or the abort signal) is killed with its whole process group; so are background processes
 * it leaves behind when it exits, because they would keep the output pipes open.
 */
export function runShell(options: RunShellOptions): Promise<ShellRun> {
  const capture = new TailBuffer(options.maxCaptureBytes ?? DEFAULT_MAX_CAPTURE_BYTES);
  const tailBytes = options.tailBytes ?? DEFAULT_TAIL_BYTES;
  const started = performance.now();
  return new Promise<ShellRun>((resolve, reject) => {
    if (options.signal?.aborted === true) {
      resolve({ exitCode: null, signal: null, timedOut: false, aborted: true, durationMs: 0, output: '', tail: '', truncated: false });
      return;
    }
    const child = spawn(options.command, {
      cwd: options.cwd,
      env: options.env,
      shell: '/bin/sh',
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
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
    child.stdout.on('data', (chunk: Buffer) => capture.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => capture.push(chunk));
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
        durationMs: Math.round(performance.now() - started),
        output,
        tail: tailOf(output, tailBytes),
        truncated: capture.truncated,
      });
    });
  });
}
