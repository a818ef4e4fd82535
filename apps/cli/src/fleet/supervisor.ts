import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

/** The fleet's services, in start order: the journal first, since every decider asks it. */
export const FLEET_SERVICES = ['journal', 'gate', 'panel', 'critic-runner', 'synthesizer', 'implementer'] as const;
/** The loop's services and the console (the web page ops read the fleet on); `rloop up` starts them all. */
export const ALL_SERVICES = [...FLEET_SERVICES, 'console'] as const;
export type FleetService = (typeof ALL_SERVICES)[number];

/** Where a service's compiled entry point is (the CLI runs from the same checkout). */
export function serviceEntry(service: FleetService): string {
  return fileURLToPath(new URL(`../../../../services/${service}/dist/main.js`, import.meta.url));
}

export interface FleetOptions {
  /** Instances of each service (two show that nothing is done twice), or per service (1 for those not named). */
  readonly replicas?: number | Partial<Readonly<Record<FleetService, number>>>;
  readonly services?: readonly FleetService[];
  /** Environment of every service process. */
  readonly env: NodeJS.ProcessEnv;
  /** Variables of one service over `env` (e.g. the NATS user each service signs in as). */
  readonly envFor?: (service: FleetService) => NodeJS.ProcessEnv;
  /** Receives every line the services print, prefixed with `service#n`. */
  readonly onLine?: (line: string) => void;
  /** Most time to wait for every service to say it is ready. */
  readonly readyTimeoutMs?: number;
  /**
   * First port of the services' HTTP endpoints (/healthz, /readyz, /metrics; the console's pages):
   * the console gets this one, every other member the next ones in start order. Unset: none.
   */
  readonly httpPortBase?: number;
  /** Instead of a base: each member's port (null: none), e.g. only the console's in a test. */
  readonly httpPortOf?: (service: FleetService, index: number) => number | null;
}

export interface FleetMember {
  readonly service: FleetService;
  readonly index: number;
  readonly label: string;
  /** Its /healthz, /readyz, /metrics (and the console's pages), when the fleet has HTTP ports. */
  readonly httpPort: number | null;
  child: ChildProcess;
  /** The last lines it printed, for error messages. */
  readonly tail: string[];
}

export interface Fleet {
  readonly members: readonly FleetMember[];
  /** Stops one member at once (SIGKILL), as a crash would. */
  kill(service: FleetService, index?: number): Promise<void>;
  /** Starts a killed member again and waits until it is ready. */
  restart(service: FleetService, index?: number): Promise<void>;
  /** SIGTERM to every member (graceful drain), SIGKILL after the grace period. */
  stop(graceMs?: number): Promise<void>;
  /** Resolves when a member exits without being asked to (the fleet is then incomplete). */
  readonly unexpectedExit: Promise<FleetMember>;
}

const TAIL_LINES = 20;

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts the fleet as child processes (one per service and replica), forwards their output, and
 * resolves once each has printed its `<service>: ready` line. A service that exits before it is
 * ready fails the start with its last lines.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const replicasOf = (service: FleetService): number =>
    typeof options.replicas === 'object' ? (options.replicas[service] ?? 1) : (options.replicas ?? 1);
  const services = options.services ?? FLEET_SERVICES;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const members: FleetMember[] = [];
  const stopping = new Set<FleetMember>();
  let reportUnexpected: (member: FleetMember) => void = () => undefined;
  const unexpectedExit = new Promise<FleetMember>((resolve) => {
    reportUnexpected = resolve;
  });

  function launch(member: Omit<FleetMember, 'child'>): Promise<FleetMember> {
    const entry = serviceEntry(member.service);
    if (!existsSync(entry))
      return Promise.reject(
        new Error(
          `${entry} is missing: run \`npm run build\` first (the fleet runs from a checkout of Refinement Loop or its Docker image; the npm package has \`rloop review\` and the bus commands)`,
        ),
      );
    // Several services on one machine must not share a port: a member without one of its own has none.
    const env = { ...options.env, ...options.envFor?.(member.service), RLOOP_HTTP_PORT: String(member.httpPort ?? 0) };
    const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // The member record is completed here and kept: restart() replaces its child in place.
    const full = Object.assign(member, { child }) as FleetMember;
    return new Promise<FleetMember>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        if (!ready)
          reject(
            new Error(
              `${member.label} was not ready after ${readyTimeoutMs} ms; last lines:\n${member.tail.join('\n')}`,
            ),
          );
      }, readyTimeoutMs);
      const onLine = (line: string): void => {
        member.tail.push(line);
        if (member.tail.length > TAIL_LINES) member.tail.shift();
        options.onLine?.(`${member.label} ${line}`);
        if (!ready && line.includes(`${member.service}: ready`)) {
          ready = true;
          clearTimeout(timer);
          resolve(full);
        }
      };
      if (child.stdout !== null) createInterface({ input: child.stdout }).on('line', onLine);
      if (child.stderr !== null) createInterface({ input: child.stderr }).on('line', onLine);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!ready) {
          reject(
            new Error(
              `${member.label} exited (${signal ?? `code ${code}`}) before it was ready; last lines:\n${member.tail.join('\n')}`,
            ),
          );
        } else if (!stopping.has(full)) {
          reportUnexpected(full);
        }
      });
    });
  }

  const stop = async (graceMs = 15_000): Promise<void> => {
    for (const member of members) stopping.add(member);
    await Promise.all(
      members.map(async (member) => {
        if (member.child.exitCode !== null || member.child.signalCode !== null) return;
        member.child.kill('SIGTERM');
        const killer = setTimeout(() => member.child.kill('SIGKILL'), graceMs);
        await waitForExit(member.child);
        clearTimeout(killer);
      }),
    );
  };

  const find = (service: FleetService, index: number): FleetMember => {
    const member = members.find((m) => m.service === service && m.index === index);
    if (member === undefined) throw new Error(`no ${service}#${index} in the fleet`);
    return member;
  };

  const readiness: Promise<FleetMember>[] = [];
  let nextPort = options.httpPortBase === undefined ? null : options.httpPortBase + 1;
  const portFor = (service: FleetService, index: number): number | null => {
    if (options.httpPortBase === undefined || nextPort === null) return options.httpPortOf?.(service, index) ?? null;
    if (service === 'console' && index === 1) return options.httpPortBase;
    nextPort += 1;
    return nextPort - 1;
  };
  try {
    for (const service of services) {
      const starting: Promise<FleetMember>[] = [];
      for (let index = 1; index <= replicasOf(service); index += 1) {
        const member: Omit<FleetMember, 'child'> = {
          service,
          index,
          label: `${service}#${index}`,
          httpPort: portFor(service, index),
          tail: [],
        };
        const ready = launch(member);
        // Observed below; this keeps an early failure from being an unhandled rejection meanwhile.
        ready.catch(() => undefined);
        members.push(member as FleetMember);
        starting.push(ready);
      }
      readiness.push(...starting);
      // The journal answers everyone's queries: the others start once it is up.
      if (service === 'journal') await Promise.all(starting);
    }
    await Promise.all(readiness);
  } catch (error) {
    await stop(2_000);
    throw error;
  }

  return {
    members,
    unexpectedExit,
    stop,
    async kill(service, index = 1) {
      const member = find(service, index);
      stopping.add(member);
      member.child.kill('SIGKILL');
      await waitForExit(member.child);
    },
    async restart(service, index = 1) {
      const member = find(service, index);
      member.tail.length = 0;
      stopping.delete(member);
      await launch(member);
    },
  };
}
