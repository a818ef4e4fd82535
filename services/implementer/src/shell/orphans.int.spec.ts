import { afterEach, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { eventually } from '@rloop/testing';
import { OWNER_TAG, type ReapOptions, reapOrphans } from './orphans.js';

// Real processes, found through the real /proc: what an implementer killed with -9 leaves behind.

const started: ChildProcess[] = [];
/** A tag variable of this run's own: implementers elsewhere on the machine neither see these processes nor are seen. */
const variable = `RLOOP_IMPLEMENTER_TEST_${randomUUID().replaceAll('-', '')}`;
const scan: ReapOptions = { variable };

afterEach(async () => {
  const children = started.splice(0);
  for (const child of children) {
    if (child.pid === undefined) continue;
    try {
      // The whole group: a shell killed alone would leave its sleep behind, holding the output pipe open.
      process.kill(child.spawnargs[0] === 'sleep' ? child.pid : -child.pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  await Promise.all(children.map(exited));
});

/** The pids whose environment carries `owner` under this run's variable and whose command is `sleep 60`. */
async function sleepsOf(owner: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8');
      const environ = await readFile(`/proc/${name}/environ`, 'latin1');
      if (cmdline === 'sleep\u000060\u0000' && environ.split('\u0000').includes(`${variable}=${owner}`))
        found.push(Number(name));
    } catch (error) {
      // Gone between the listing and the read, or not ours to read: not one of these sleeps.
      if (!['ENOENT', 'ESRCH', 'EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
  return found;
}

/** A detached shell with a `sleep` child (like the commands the implementer runs), tagged as started by `owner`. */
async function tagged(owner: string): Promise<ChildProcess> {
  const child = spawn('/bin/sh', ['-c', 'sleep 60 & wait'], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', [variable]: owner },
  });
  started.push(child);
  // Both processes running as they will be scanned: the child has exec'd sleep.
  await eventually(async () => ((await sleepsOf(owner)).length === 1 ? true : undefined), {
    intervalMs: 10,
    description: `the sleep of ${owner}`,
  });
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
    expect(reaped?.find((r) => r.pid === orphan.pid)?.command).toBe('/bin/sh -c sleep 60 & wait');
    expect([ours, liveOwner, untagged].map(running)).toEqual([true, true, true]);
    expect(await reapOrphans(scan)).toEqual([]);
  });

  it('says so when there is no /proc to look in', async () => {
    expect(await reapOrphans({ ...scan, procDir: '/nonexistent-proc' })).toBeNull();
  });
});
