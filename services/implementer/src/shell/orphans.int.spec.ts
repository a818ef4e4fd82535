import { afterEach, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { OWNER_TAG, type ReapOptions, reapOrphans } from './orphans.js';

// Real processes, found through the real /proc: what an implementer killed with -9 leaves behind.

const started: ChildProcess[] = [];
/** A tag variable of this run's own: implementers elsewhere on the machine neither see these processes nor are seen. */
const variable = `RLOOP_IMPLEMENTER_TEST_${randomUUID().replaceAll('-', '')}`;
const scan: ReapOptions = { variable };

afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid === undefined) continue;
    try {
      // The whole group: a shell killed alone would leave its sleep behind.
      process.kill(child.spawnargs[0] === 'sleep' ? child.pid : -child.pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
});

/** A detached shell with a `sleep` child (like the commands the implementer runs), tagged as started by `owner`. */
async function tagged(owner: string): Promise<ChildProcess> {
  // "ready" once the child has exec'd sleep, so the scan sees both processes as they will run.
  const script = 'sleep 60 & until grep -q sleep /proc/$!/cmdline 2>/dev/null; do :; done; echo ready; wait';
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', [variable]: owner } });
  started.push(child);
  await new Promise((resolve) => child.stdout?.once('data', resolve));
  return child;
}

/** The pid of a process that has exited (nothing runs under it any more). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

describe('reapOrphans', () => {
  it('kills what a dead implementer left running, shell and children, and leaves live owners and untagged processes alone', async () => {
    const orphan = await tagged(`${await deadPid()}:${randomUUID()}`);
    const earlierSelf = await tagged(`${process.pid}:${randomUUID()}`);
    const ours = await tagged(OWNER_TAG);
    const liveOwner = await tagged(`${process.ppid}:${randomUUID()}`);
    const untagged = spawn('sleep', ['60'], { stdio: 'ignore' });
    started.push(untagged);

    const reaped = await reapOrphans(scan);

    expect(await exited(orphan)).toBe('SIGKILL');
    expect(await exited(earlierSelf)).toBe('SIGKILL');
    // Each shell and its sleep child: both carry the tag, both are gone.
    expect(reaped?.map((r) => r.pid)).toEqual(expect.arrayContaining([orphan.pid, earlierSelf.pid]));
    expect(reaped).toHaveLength(4);
    expect(reaped?.filter((r) => r.command === 'sleep 60')).toHaveLength(2);
    expect(reaped?.find((r) => r.pid === orphan.pid)?.command).toMatch(/^\/bin\/sh -c sleep 60 & until/);
    expect([ours, liveOwner, untagged].map(running)).toEqual([true, true, true]);
    expect(await reapOrphans(scan)).toEqual([]);
  });

  it('says so when there is no /proc to look in', async () => {
    expect(await reapOrphans({ ...scan, procDir: '/nonexistent-proc' })).toBeNull();
  });

});
