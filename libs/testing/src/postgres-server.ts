// A PostgreSQL server of a test's own, for the faults the shared one must never suffer: kill -9
// it in the middle of a loop and start it again on the same data directory (crash recovery).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, portAccepts } from './ports.js';
import { eventually } from './wait.js';

const run = promisify(execFile);

/** Where the machine's PostgreSQL programs are (PG_BIN_DIR overrides). */
const PG_BIN_DIR =
  process.env['PG_BIN_DIR'] ??
  ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/local/bin', '/usr/bin'].find((dir) =>
    existsSync(join(dir, 'initdb')),
  ) ??
  '/usr/lib/postgresql/15/bin';

export interface PrivatePostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  readonly url: string;
  /** SIGKILL to the postmaster: no checkpoint, no goodbye to the clients. */
  kill(): Promise<void>;
  /** Starts it again (when killed) on the same data directory and waits until it accepts connections. */
  restart(): Promise<void>;
  /** Stops it and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * PostgreSQL refuses to run as root; as root (the CI machine) the server runs as the `postgres`
 * user through runuser, otherwise as the current user.
 */
async function asServerUser(program: string, args: readonly string[]): Promise<void> {
  const path = join(PG_BIN_DIR, program);
  if (runsAsRoot()) await run('runuser', ['-u', 'postgres', '--', path, ...args], { timeout: 60_000 });
  else await run(path, [...args], { timeout: 60_000 });
}

function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** initdb in a temp directory, then starts the server on a free port (about a second). */
export async function startPrivatePostgresServer(): Promise<PrivatePostgresServer> {
  const root = await mkdtemp(join(tmpdir(), 'rloop-pg-'));
  if (runsAsRoot()) {
    const [user, group] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    await chown(root, Number(user.stdout.trim()), Number(group.stdout.trim()));
  }
  const data = join(root, 'data');
  const port = await freePort();
  await asServerUser('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  let running = false;
  const start = async (): Promise<void> => {
    if (running) return;
    await asServerUser('pg_ctl', [
      '-D',
      data,
      '-l',
      join(root, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`,
      'start',
    ]);
    await eventually(async () => ((await portAccepts(port)) ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 50,
      description: `PostgreSQL on port ${port}`,
    });
    running = true;
  };
  const kill = async (): Promise<void> => {
    if (!running) return;
    running = false;
    const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    // The backends notice their postmaster is gone and exit; a new one can start once they have.
    await eventually(() => (existsSync(`/proc/${pid}`) ? undefined : true), {
      timeoutMs: 10_000,
      intervalMs: 20,
      description: 'the postmaster to exit',
    });
    await eventually(async () => ((await portAccepts(port)) ? undefined : true), {
      timeoutMs: 10_000,
      intervalMs: 20,
      description: `port ${port} to close`,
    });
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    kill,
    restart: start,
    stop: async () => {
      if (running) await asServerUser('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      running = false;
      await rm(root, { recursive: true, force: true });
    },
  };
}
