import { type NatsConnection } from '@nats-io/transport-node';
import {
  CriticHeartbeat,
  CriticRegistered,
  type EventOf,
  type Issue,
  type Phase,
  subjectToken,
  subjectsFor,
  toIssues,
} from '@rloop/contracts';
import { z } from 'zod';
import { decodeUtf8, encodeJson } from './codec.js';
import { KvBucket } from './kv.js';

/**
 * The critic registry lives in one KV bucket per namespace (`subjectsFor(ns).criticsBucket`): one
 * key per critic instance, rewritten at every heartbeat, expiring a few heartbeats after the last.
 * A value is the instance's registration and its latest heartbeat, both contract events, so a
 * critic in any language writes it from the JSON Schemas alone.
 */
export const CriticHealthEntry = z.object({ registration: CriticRegistered, heartbeat: CriticHeartbeat });
export type CriticHealthEntry = {
  readonly registration: EventOf<'CriticRegistered'>;
  readonly heartbeat: EventOf<'CriticHeartbeat'>;
};

export const CRITIC_HEALTH_DEFAULTS = Object.freeze({
  /** TODO(calibration): 5 s is a guess; settle it from how fast people want a dead critic noticed vs. registry traffic. */
  heartbeatIntervalMs: 5_000,
  /** The bucket's max age in heartbeats: an instance that misses this many is gone. */
  ttlHeartbeats: 3,
  /**
   * Heartbeats an instance may miss and still count as alive. TODO(calibration): 2 tolerates one
   * lost or late heartbeat; revisit with observed heartbeat jitter under load.
   */
  aliveHeartbeats: 2,
});

/** The KV key of one critic instance: `<critic>.<instance>`, each made subject-safe. */
export function criticHealthKey(criticId: string, instanceId: string): string {
  return `${subjectToken(criticId)}.${subjectToken(instanceId)}`;
}

/**
 * Opens (or creates) the namespace's critic health bucket; its max age is a few heartbeat intervals.
 * `replicas`: its copies on a cluster (RLOOP_STREAM_REPLICAS; null leaves an existing bucket's).
 */
export function openCriticHealthBucket(
  connection: NatsConnection,
  namespace: string,
  heartbeatIntervalMs: number = CRITIC_HEALTH_DEFAULTS.heartbeatIntervalMs,
  replicas: number | null = null,
): Promise<KvBucket> {
  return KvBucket.open(connection, {
    replicas,
    bucket: subjectsFor(namespace).criticsBucket,
    maxAgeMs: heartbeatIntervalMs * CRITIC_HEALTH_DEFAULTS.ttlHeartbeats,
    description: 'critic health: one key per critic instance, expires when the critic goes quiet',
  });
}

/** The namespace's critic health bucket if any critic or service has created it, else null. */
export function findCriticHealthBucket(connection: NatsConnection, namespace: string): Promise<KvBucket | null> {
  return KvBucket.find(connection, subjectsFor(namespace).criticsBucket);
}

/**
 * The heartbeat interval a writer should use on a bucket: its own, but never so long that its
 * entry expires between two heartbeats (the bucket may have been created with a shorter TTL).
 */
export function effectiveHeartbeatMs(requestedMs: number, bucketMaxAgeMs: number): number {
  return Math.max(100, Math.min(requestedMs, Math.floor(bucketMaxAgeMs / CRITIC_HEALTH_DEFAULTS.ttlHeartbeats)));
}

export const CRITIC_HEALTH_STATES = ['alive', 'stale'] as const;
export type CriticHealthState = (typeof CRITIC_HEALTH_STATES)[number];

export interface CriticInstanceHealth {
  readonly instance_id: string;
  readonly health: CriticHealthState;
  readonly status: EventOf<'CriticHeartbeat'>['data']['status'];
  readonly in_flight: number;
  readonly uptime_ms: number;
  readonly version: string;
  /** When the server stored the instance's last heartbeat. */
  readonly last_seen: string;
}

/** One critic as the registry sees it, with every instance that has a live entry. */
export interface RegisteredCritic {
  readonly critic_id: string;
  readonly evidence: string;
  readonly description: string;
  readonly triggers: readonly string[];
  readonly phases: readonly Phase[];
  readonly timeout_ms: number;
  readonly heartbeat_interval_ms: number;
  /** Alive when at least one instance heartbeats and is not draining. */
  readonly health: CriticHealthState;
  readonly last_seen: string;
  readonly instances: readonly CriticInstanceHealth[];
}

/** The registry at one moment: the critics, and the entries that could not be read (never dropped silently). */
export interface CriticRegistrySnapshot {
  /** When the bucket was read. */
  readonly read_at: string;
  readonly critics: readonly RegisteredCritic[];
  readonly invalid: readonly { readonly key: string; readonly issues: readonly Issue[] }[];
}

/** A stored entry with the server time it was written. */
export interface StoredHealthEntry {
  readonly key: string;
  readonly entry: CriticHealthEntry;
  readonly storedAt: Date;
}

/** Whether one instance counts as alive at `now`: a recent heartbeat, and not draining. */
export function instanceHealth(entry: CriticHealthEntry, storedAt: Date, now: Date): CriticHealthState {
  const window = entry.registration.data.heartbeat_interval_ms * CRITIC_HEALTH_DEFAULTS.aliveHeartbeats;
  const fresh = now.getTime() - storedAt.getTime() <= window;
  return fresh && entry.heartbeat.data.status !== 'draining' ? 'alive' : 'stale';
}

/**
 * Groups instance entries by critic (pure: `now` is passed in). A critic's description, triggers
 * and timeout come from its most recently seen alive instance (instances of two versions may
 * disagree), else from its most recent one.
 */
export function summariseRegistry(
  entries: readonly StoredHealthEntry[],
  now: Date,
  invalid: CriticRegistrySnapshot['invalid'] = [],
): CriticRegistrySnapshot {
  const byCritic = new Map<string, StoredHealthEntry[]>();
  for (const stored of entries) {
    const id = stored.entry.registration.data.critic_id;
    byCritic.set(id, [...(byCritic.get(id) ?? []), stored]);
  }
  const critics: RegisteredCritic[] = [];
  for (const [criticId, stored] of [...byCritic.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const ranked = stored
      .map((s) => ({ s, health: instanceHealth(s.entry, s.storedAt, now) }))
      .sort(
        (a, b) =>
          Number(b.health === 'alive') - Number(a.health === 'alive') ||
          b.s.storedAt.getTime() - a.s.storedAt.getTime(),
      );
    const lead = ranked[0];
    if (lead === undefined) continue;
    const registration = lead.s.entry.registration.data;
    const instances = ranked
      .map(({ s, health }) => ({
        instance_id: s.entry.registration.data.instance_id,
        health,
        status: s.entry.heartbeat.data.status,
        in_flight: s.entry.heartbeat.data.in_flight,
        uptime_ms: s.entry.heartbeat.data.uptime_ms,
        version: s.entry.registration.data.version,
        last_seen: s.storedAt.toISOString(),
      }))
      .sort((a, b) => a.instance_id.localeCompare(b.instance_id));
    critics.push({
      critic_id: criticId,
      evidence: registration.evidence,
      description: registration.description,
      triggers: registration.triggers,
      phases: registration.phases,
      timeout_ms: registration.timeout_ms,
      heartbeat_interval_ms: registration.heartbeat_interval_ms,
      health: lead.health,
      last_seen: new Date(Math.max(...stored.map((s) => s.storedAt.getTime()))).toISOString(),
      instances,
    });
  }
  return { read_at: now.toISOString(), critics, invalid };
}

/** Encodes an instance's entry for the bucket (validated: a bad entry is a bug in the writer). */
export function encodeCriticHealthEntry(entry: CriticHealthEntry): Uint8Array {
  return encodeJson(CriticHealthEntry.parse(entry));
}

/** Decodes a stored value; the issues say why it is not an entry. */
export function decodeCriticHealthEntry(
  value: Uint8Array,
):
  { readonly ok: true; readonly entry: CriticHealthEntry } | { readonly ok: false; readonly issues: readonly Issue[] } {
  const text = decodeUtf8(value);
  if (text === null) return { ok: false, issues: [{ path: '(root)', message: 'not UTF-8' }] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: '(root)', message: `not JSON: ${error instanceof Error ? error.message : String(error)}` }],
    };
  }
  const parsed = CriticHealthEntry.safeParse(raw);
  return parsed.success ? { ok: true, entry: parsed.data } : { ok: false, issues: toIssues(parsed.error) };
}

/** Reads the whole registry once. Entries that fail their contract are listed in `invalid`. */
export async function readCriticRegistry(
  bucket: KvBucket,
  now: () => Date = () => new Date(),
): Promise<CriticRegistrySnapshot> {
  const entries: StoredHealthEntry[] = [];
  const invalid: { key: string; issues: readonly Issue[] }[] = [];
  for (const kv of await bucket.entries()) {
    const decoded = decodeCriticHealthEntry(kv.value);
    if (decoded.ok) entries.push({ key: kv.key, entry: decoded.entry, storedAt: kv.storedAt });
    else invalid.push({ key: kv.key, issues: decoded.issues });
  }
  return summariseRegistry(entries, now(), invalid);
}
