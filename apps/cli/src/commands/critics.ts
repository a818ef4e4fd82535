import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import type { Command } from 'commander';
import { type CriticRegistrySnapshot, findCriticHealthBucket, readCriticRegistry } from '@rloop/bus';
import { type EventOf, type Subjects, parseEvent } from '@rloop/contracts';
import { connectCli } from '../bus/connect.js';
import type { CommandRegistrar } from '../program.js';
import { busFlagsOf, out } from './options.js';

/** One line of `rloop critics`: a critic in the registry, or one the registry stream still remembers. */
export interface CriticListing {
  readonly critic_id: string;
  readonly evidence: string;
  readonly description: string;
  readonly triggers: readonly string[];
  /** alive: an instance heartbeats; stale: heartbeats stopped (the entry is expiring, or only the registry stream remembers it). */
  readonly health: 'alive' | 'stale';
  readonly instances: number;
  readonly instances_alive: number;
  readonly last_seen: string;
  readonly instance_details: CriticRegistrySnapshot['critics'][number]['instances'];
}

async function lastOfEach<T extends 'CriticRegistered' | 'CriticHeartbeat'>(
  jsm: JetStreamManager,
  subjects: Subjects,
  type: T,
): Promise<{ event: EventOf<T>; at: Date }[]> {
  const stream = subjects.streams.critics;
  const info = await jsm.streams.info(stream, { subjects_filter: subjects.eventFilter(type) });
  const found: { event: EventOf<T>; at: Date }[] = [];
  for (const subject of Object.keys(info.state.subjects ?? {})) {
    const stored = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (stored === null) continue;
    const parsed = parseEvent(stored.json());
    if (parsed.ok && parsed.event.type === type) found.push({ event: parsed.event as EventOf<T>, at: stored.time });
  }
  return found;
}

/**
 * Every critic the registry knows (pure): live entries from the health bucket, plus critics whose
 * entries have expired but whose registration the short-lived registry stream still holds.
 */
export function criticListings(
  snapshot: CriticRegistrySnapshot,
  remembered: readonly { registration: EventOf<'CriticRegistered'>; lastSeen: Date }[],
): CriticListing[] {
  const listings = new Map<string, CriticListing>();
  for (const c of snapshot.critics) {
    listings.set(c.critic_id, {
      critic_id: c.critic_id,
      evidence: c.evidence,
      description: c.description,
      triggers: c.triggers,
      health: c.health,
      instances: c.instances.length,
      instances_alive: c.instances.filter((i) => i.health === 'alive').length,
      last_seen: c.last_seen,
      instance_details: c.instances,
    });
  }
  for (const { registration, lastSeen } of remembered) {
    const id = registration.data.critic_id;
    if (listings.has(id)) continue;
    listings.set(id, {
      critic_id: id,
      evidence: registration.data.evidence,
      description: registration.data.description,
      triggers: registration.data.triggers,
      health: 'stale',
      instances: 0,
      instances_alive: 0,
      last_seen: lastSeen.toISOString(),
      instance_details: [],
    });
  }
  return [...listings.values()].sort((a, b) => a.critic_id.localeCompare(b.critic_id));
}

function ago(iso: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (seconds < 90) return `${seconds}s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m ago`;
  return `${Math.round(seconds / 3600)}h ago`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** `rloop critics`: registered critics, their evidence, health, instances and when they were last seen. */
export const registerCritics: CommandRegistrar = (program) => {
  program
    .command('critics')
    .description('list registered critics: evidence type, health (alive/stale), live instances, last heartbeat')
    .option('--json', 'print the listing as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const bus = await connectCli(busFlagsOf(command));
      try {
        const bucket = await findCriticHealthBucket(bus.connection, bus.subjects.namespace);
        const snapshot: CriticRegistrySnapshot =
          bucket === null
            ? { read_at: new Date().toISOString(), critics: [], invalid: [] }
            : await readCriticRegistry(bucket);
        const jsm = await jetstreamManager(bus.connection);
        const [registrations, heartbeats] = await Promise.all([
          lastOfEach(jsm, bus.subjects, 'CriticRegistered'),
          lastOfEach(jsm, bus.subjects, 'CriticHeartbeat'),
        ]);
        const lastBeat = new Map(heartbeats.map((h) => [h.event.data.critic_id, h.at]));
        const remembered = registrations.map((r) => ({
          registration: r.event,
          lastSeen: lastBeat.get(r.event.data.critic_id) ?? r.at,
        }));
        const listings = criticListings(snapshot, remembered);
        if (opts.json === true) {
          out(JSON.stringify({ critics: listings, invalid_entries: snapshot.invalid }, null, 2));
          return;
        }
        if (listings.length === 0) {
          out('no critics registered — is the fleet up (`rloop up`)? A critic service registers when it starts.');
          return;
        }
        const now = new Date();
        out(`${pad('CRITIC', 40)} ${pad('EVIDENCE', 10)} ${pad('HEALTH', 7)} ${pad('INSTANCES', 9)} LAST SEEN`);
        for (const l of listings) {
          out(
            `${pad(l.critic_id, 40)} ${pad(l.evidence, 10)} ${pad(l.health, 7)} ${pad(`${l.instances_alive}/${l.instances}`, 9)} ${l.last_seen} (${ago(l.last_seen, now)})`,
          );
        }
        for (const bad of snapshot.invalid)
          out(
            `! registry entry ${bad.key} is not a critic health entry: ${bad.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
          );
      } finally {
        await bus.close();
      }
    });
};
