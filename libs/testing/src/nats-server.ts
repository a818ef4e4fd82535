// A NATS server of a test's own, for the faults the shared one must never suffer: kill -9 it in the
// middle of a loop, start it again on the same port and store directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, portAccepts } from './ports.js';
import { eventually } from './wait.js';

/** Where the machine's nats-server is (NATS_SERVER_BIN overrides). */
const NATS_SERVER_BIN = process.env['NATS_SERVER_BIN'] ?? ['/usr/sbin/nats-server', '/usr/local/bin/nats-server', '/usr/bin/nats-server'].find((path) => existsSync(path)) ?? 'nats-server';

export interface PrivateNatsServer {
  /** nats://127.0.0.1:<port> */
  readonly url: string;
  /** SIGKILL: no flush, no goodbye to the clients. */
  kill(): Promise<void>;
  /**
   * Starts it again (when killed) on the same port, on its JetStream store — or, with `emptyStore`,
   * on a new empty one (a server run without its volume) — and waits until it accepts connections.
   */
  restart(options?: { readonly emptyStore?: boolean }): Promise<void>;
  /** Stops it and removes its store. */
  stop(): Promise<void>;
  /** The last 64 KiB the server wrote to stderr (its log: errors, authorization and permission violations). */
  output(): string;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface PrivateNatsServerOptions {
  /**
   * A nats-server configuration (users and permissions, TLS, an operator): written beside the store
   * and passed with `-c`. Host, port, JetStream and the store directory come from the command line.
   */
  readonly config?: string;
}

/** Starts a nats-server with JetStream on a free port, its store in a temp directory. */
export async function startPrivateNatsServer(options: PrivateNatsServerOptions = {}): Promise<PrivateNatsServer> {
  const port = await freePort();
  const root = await mkdtemp(join(tmpdir(), 'rloop-nats-'));
  const storeDir = join(root, 'store');
  await mkdir(storeDir);
  const configArgs: string[] = [];
  if (options.config !== undefined) {
    const configFile = join(root, 'nats-server.conf');
    await writeFile(configFile, options.config);
    configArgs.push('-c', configFile);
  }
  let child: ChildProcess | null = null;
  let output = '';
  const start = async (): Promise<void> => {
    if (child !== null) return;
    output = '';
    const started = spawn(NATS_SERVER_BIN, [...configArgs, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.stderr?.on('data', (chunk: Buffer) => (output = `${output}${chunk.toString()}`.slice(-65_536)));
    child = started;
    started.once('exit', () => {
      if (child === started) child = null;
    });
    const failed = new Promise<never>((_resolve, reject) => {
      started.once('error', reject);
      started.once('exit', (code, signal) => reject(new Error(`nats-server exited (${code ?? signal}) at start: ${output}`)));
    });
    // The race also handles `failed` rejecting later, when the server is killed.
    await Promise.race([eventually(async () => ((await portAccepts(port)) ? true : undefined), { timeoutMs: 10_000, intervalMs: 50, description: `nats-server on port ${port}` }), failed]);
  };
  const kill = async (): Promise<void> => {
    const running = child;
    child = null;
    if (running === null) return;
    running.kill('SIGKILL');
    await exited(running);
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    kill,
    restart: async (options = {}) => {
      if (options.emptyStore === true && child === null) {
        await rm(storeDir, { recursive: true, force: true });
        await mkdir(storeDir, { recursive: true });
      }
      await start();
    },
    stop: async () => {
      await kill();
      await rm(root, { recursive: true, force: true });
    },
    output: () => output,
  };
}
