import { randomUUID } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The variable every command the implementer starts inherits: `<pid>:<instance>` of the
 * implementer that started it. Commands run detached (in a process group of their own, so a
 * timeout reaches their children), which also means a kill -9 of the implementer leaves them
 * running: a coding agent would go on editing the plan's worktree while the redelivered request
 * resets it. The tag lets the next implementer find them, whatever spawned them.
 */
export const OWNER_VARIABLE = 'RLOOP_IMPLEMENTER';

/** This process's tag: the instance part tells it from an earlier process with the same pid (a container's pid 1). */
export const OWNER_TAG = `${process.pid}:${randomUUID()}`;

/** A process that outlived the implementer that started it, killed. */
export interface ReapedProcess {
  readonly pid: number;
  /** Its command line, arguments separated by spaces. */
  readonly command: string;
  /** The implementer that started it. */
  readonly ownerPid: number;
}

export interface ReapOptions {
  /** This implementer's tag (default OWNER_TAG). */
  readonly self?: string;
  /** Default /proc. */
  readonly procDir?: string;
  /** The tag's variable (default OWNER_VARIABLE); a test uses one of its own so other implementers on the machine stay out of it. */
  readonly variable?: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // ENOENT/ESRCH: it exited meanwhile; EACCES/EPERM: another user's process, never one of ours.
  return code === 'ENOENT' || code === 'ESRCH' || code === 'EACCES' || code === 'EPERM';
}

/** The owner tag in a process's environment, or null (not ours, or gone). */
async function ownerOf(procDir: string, pid: number, variable: string): Promise<string | null> {
  try {
    const environ = await readFile(join(procDir, String(pid), 'environ'), 'latin1');
    const entry = environ.split('\0').find((e) => e.startsWith(`${variable}=`));
    return entry === undefined ? null : entry.slice(variable.length + 1);
  } catch (error) {
    if (isGone(error)) return null;
    throw error;
  }
}

async function commandOf(procDir: string, pid: number): Promise<string> {
  try {
    return (await readFile(join(procDir, String(pid), 'cmdline'), 'utf8')).split('\0').filter(Boolean).join(' ');
  } catch (error) {
    if (isGone(error)) return '(exited)';
    throw error;
  }
}

/** Whether the implementer behind a tag is gone: a dead pid, or our own pid with another instance. */
function ownerIsGone(tag: string, self: string): boolean {
  const [pid, instance] = tag.split(':');
  const ownerPid = Number(pid);
  if (!Number.isInteger(ownerPid) || ownerPid <= 0 || instance === undefined) return false;
  const [selfPid] = self.split(':');
  if (String(ownerPid) === selfPid) return tag !== self;
  return !isAlive(ownerPid);
}

/**
 * Kills the processes an implementer that died left running (found by their OWNER_VARIABLE), so
 * they cannot touch a worktree again. Processes of implementers still alive (replicas sharing the
 * machine) are left alone. Call it at start, before taking work. Where there is no /proc (not
 * Linux) there is nothing to scan, and it returns null.
 */
export async function reapOrphans(options: ReapOptions = {}): Promise<ReapedProcess[] | null> {
  const procDir = options.procDir ?? '/proc';
  const scan: Scan = { procDir, self: options.self ?? OWNER_TAG, variable: options.variable ?? OWNER_VARIABLE };
  let entries: string[];
  try {
    entries = await readdir(procDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const reaped: ReapedProcess[] = [];
  // Another pass while the last one killed something: an orphan may have forked between the scan and its kill.
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const killed = await reapPass(
      scan,
      pass === 0 ? entries : await readdir(procDir),
      new Set(reaped.map((r) => r.pid)),
    );
    reaped.push(...killed);
    if (killed.length === 0) break;
  }
  return reaped;
}

const MAX_PASSES = 5;

interface Scan {
  readonly procDir: string;
  readonly self: string;
  readonly variable: string;
}

/** One scan; `killed` are the pids an earlier pass killed, which may not have finished dying yet. */
async function reapPass(
  { procDir, self, variable }: Scan,
  entries: readonly string[],
  killed: ReadonlySet<number>,
): Promise<ReapedProcess[]> {
  const reaped: ReapedProcess[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid || killed.has(pid)) continue;
    const tag = await ownerOf(procDir, pid, variable);
    if (tag === null || !ownerIsGone(tag, self)) continue;
    const command = await commandOf(procDir, pid);
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      if (isGone(error)) continue;
      throw error;
    }
    reaped.push({ pid, command, ownerPid: Number(tag.split(':')[0]) });
  }
  return reaped;
}
