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
const NATS_SERVER_BIN =
  process.env['NATS_SERVER_BIN'] ??
  ['/usr/sbin/nats-server', '/usr/local/bin/nats-server', '/usr/bin/nats-server'].find((path) => existsSync(path)) ??
  'nats-server';

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
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface PrivateNatsServerOptions {
  /**
   * A nats-server configuration (users and permissions, TLS, an operator): written beside the store
   * and passed with `-c`. Host, port, JetStream and the store directory come from the command line.
   */
  readonly config?: string;
}

/**
 * One nats-server process on a fixed port and store directory, started, killed with -9 and started
 * again; what a single private server and each node of a private cluster are.
 */
class NatsProcess {
  private child: ChildProcess | null = null;
  private log = '';

  constructor(
    private readonly args: readonly string[],
    private readonly port: number,
    private readonly storeDir: string,
  ) {}

  get running(): boolean {
    return this.child !== null;
  }

  output(): string {
    return this.log;
  }

  async start(): Promise<void> {
    if (this.child !== null) return;
    this.log = '';
    const started = spawn(NATS_SERVER_BIN, [...this.args], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.stderr?.on('data', (chunk: Buffer) => (this.log = `${this.log}${chunk.toString()}`.slice(-65_536)));
    this.child = started;
    started.once('exit', () => {
      if (this.child === started) this.child = null;
    });
    const failed = new Promise<never>((_resolve, reject) => {
      started.once('error', reject);
      started.once('exit', (code, signal) =>
        reject(new Error(`nats-server exited (${code ?? signal}) at start: ${this.log}`)),
      );
    });
    // The race also handles `failed` rejecting later, when the server is killed.
    await Promise.race([
      eventually(async () => ((await portAccepts(this.port)) ? true : undefined), {
        timeoutMs: 10_000,
        intervalMs: 50,
        description: `nats-server on port ${this.port}`,
      }),
      failed,
    ]);
  }

  /** SIGKILL: no flush, no goodbye to the clients or the other nodes. */
  async kill(): Promise<void> {
    const running = this.child;
    this.child = null;
    if (running === null) return;
    running.kill('SIGKILL');
    await exited(running);
  }

  async restart(options: { readonly emptyStore?: boolean } = {}): Promise<void> {
    if (options.emptyStore === true && this.child === null) {
      await rm(this.storeDir, { recursive: true, force: true });
      await mkdir(this.storeDir, { recursive: true });
    }
    await this.start();
  }
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
  const server = new NatsProcess(
    [...configArgs, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir],
    port,
    storeDir,
  );
  await server.start();
  return {
    url: `nats://127.0.0.1:${port}`,
    kill: () => server.kill(),
    restart: (restartOptions) => server.restart(restartOptions),
    stop: async () => {
      await server.kill();
      await rm(root, { recursive: true, force: true });
    },
    output: () => server.output(),
  };
}

/** One node of a private cluster: a PrivateNatsServer with a name the cluster knows it by. */
export interface PrivateNatsNode extends Omit<PrivateNatsServer, 'stop'> {
  /** Its `server_name`, what JetStream reports as a stream's leader or replica. */
  readonly name: string;
  /** Whether its process is up (not killed, or restarted since). */
  readonly running: boolean;
  /** Its monitoring endpoint, http://127.0.0.1:<port> (`/connz?subs=1`, `/jsz`, `/routez`). */
  readonly monitorUrl: string;
}

export interface PrivateNatsCluster {
  readonly nodes: readonly PrivateNatsNode[];
  /** Every node's client URL, in node order. */
  readonly urls: readonly string[];
  /** The URLs joined with commas: what NATS_URL holds for a client of the whole cluster. */
  readonly url: string;
  /**
   * Waits until every running node reports the same JetStream meta leader, itself a running node
   * (after start, and after a kill or restart when the test needs the cluster settled); its name.
   */
  waitForMetaLeader(options?: { readonly timeoutMs?: number }): Promise<string>;
  /** Stops every node and removes the stores. */
  stop(): Promise<void>;
}

export interface PrivateNatsClusterOptions {
  /** How many nodes (JetStream needs 3 to survive losing one). */
  readonly nodes: number;
}

interface JetStreamMonitoring {
  readonly meta_cluster?: { readonly leader?: string };
}

/** The meta leader a node's monitoring endpoint reports, or undefined while it knows none (or is down). */
async function reportedMetaLeader(monitorPort: number): Promise<string | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${monitorPort}/jsz`, { signal: AbortSignal.timeout(2_000) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as JetStreamMonitoring;
    const leader = body.meta_cluster?.leader;
    return typeof leader === 'string' && leader !== '' ? leader : undefined;
  } catch {
    // A node that is starting or killed has no answer yet: "no leader known" is what that means here.
    return undefined;
  }
}

/**
 * Starts `nodes` nats-server processes with JetStream, joined by explicit routes into one cluster
 * (JetStream sizes its quorum from the route list, so every node names all of them), each on free
 * client, route and monitoring ports with its own store; resolves once the cluster has a meta leader.
 */
export async function startPrivateNatsCluster(options: PrivateNatsClusterOptions): Promise<PrivateNatsCluster> {
  if (!Number.isInteger(options.nodes) || options.nodes < 1)
    throw new Error(`a private NATS cluster needs a whole number of nodes >= 1, got ${options.nodes}`);
  const root = await mkdtemp(join(tmpdir(), 'rloop-nats-cluster-'));
  const layout: {
    name: string;
    port: number;
    routePort: number;
    monitorPort: number;
    storeDir: string;
    configFile: string;
  }[] = [];
  for (let index = 0; index < options.nodes; index += 1) {
    const name = `n${index + 1}`;
    layout.push({
      name,
      port: await freePort(),
      routePort: await freePort(),
      monitorPort: await freePort(),
      storeDir: join(root, name, 'store'),
      configFile: join(root, name, 'nats-server.conf'),
    });
  }
  const routes = layout.map((node) => `"nats-route://127.0.0.1:${node.routePort}"`).join(', ');
  const servers = await Promise.all(
    layout.map(async (node) => {
      await mkdir(node.storeDir, { recursive: true });
      await writeFile(
        node.configFile,
        [
          `server_name: ${node.name}`,
          `listen: "127.0.0.1:${node.port}"`,
          `http: "127.0.0.1:${node.monitorPort}"`,
          `jetstream { store_dir: ${JSON.stringify(node.storeDir)} }`,
          `cluster { name: rloop-test, listen: "127.0.0.1:${node.routePort}", routes: [${routes}] }`,
          '',
        ].join('\n'),
      );
      return new NatsProcess(['-c', node.configFile], node.port, node.storeDir);
    }),
  );
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.kill()));
    await rm(root, { recursive: true, force: true });
  };
  const waitForMetaLeader = async ({ timeoutMs = 30_000 } = {}): Promise<string> =>
    eventually(
      async () => {
        const live = layout.filter((_node, index) => servers[index]?.running === true);
        const leaders = await Promise.all(live.map((node) => reportedMetaLeader(node.monitorPort)));
        const [first] = leaders;
        if (first === undefined || leaders.some((leader) => leader !== first)) return undefined;
        return live.some((node) => node.name === first) ? first : undefined;
      },
      { timeoutMs, intervalMs: 100, description: 'the NATS cluster to agree on a JetStream meta leader' },
    );
  try {
    await Promise.all(servers.map((server) => server.start()));
    await waitForMetaLeader();
  } catch (error) {
    const logs = layout.map((node, index) => `--- ${node.name}\n${servers[index]?.output() ?? ''}`).join('\n');
    await stop();
    throw new Error(
      `the private NATS cluster did not form: ${error instanceof Error ? error.message : String(error)}\n${logs}`,
      { cause: error },
    );
  }
  const nodes = layout.map((node, index): PrivateNatsNode => {
    const server = servers[index] as NatsProcess;
    return {
      name: node.name,
      url: `nats://127.0.0.1:${node.port}`,
      monitorUrl: `http://127.0.0.1:${node.monitorPort}`,
      get running() {
        return server.running;
      },
      kill: () => server.kill(),
      restart: (restartOptions) => server.restart(restartOptions),
      output: () => server.output(),
    };
  });
  const urls = nodes.map((node) => node.url);
  return { nodes, urls, url: urls.join(','), waitForMetaLeader, stop };
}
