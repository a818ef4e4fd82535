import { describe, expect, it } from '@jest/globals';
import type { EventOf } from '@rloop/contracts';
import {
  type CriticHealthEntry,
  criticHealthKey,
  decodeCriticHealthEntry,
  effectiveHeartbeatMs,
  encodeCriticHealthEntry,
  instanceHealth,
  summariseRegistry,
} from './index.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');

function entry(
  criticId: string,
  instanceId: string,
  options: { interval?: number; status?: EventOf<'CriticHeartbeat'>['data']['status']; triggers?: string[] } = {},
): CriticHealthEntry {
  const envelope = {
    schema_version: 1,
    plan: '_critics',
    correlation_id: '01JEEEEEEEEEEEEEEEEEEEEEEE',
    causation_id: null,
    occurred_at: T0.toISOString(),
    producer: 'spec',
  } as const;
  return {
    registration: {
      ...envelope,
      event_id: '01JEEEEEEEEEEEEEEEEEEEEEEE',
      type: 'CriticRegistered',
      data: {
        critic_id: criticId,
        instance_id: instanceId,
        evidence: 'pattern',
        description: instanceId,
        triggers: options.triggers ?? [],
        phases: ['critical'],
        timeout_ms: 1000,
        heartbeat_interval_ms: options.interval ?? 1000,
        version: '1',
      },
    },
    heartbeat: {
      ...envelope,
      event_id: '01JFFFFFFFFFFFFFFFFFFFFFFF',
      type: 'CriticHeartbeat',
      data: {
        critic_id: criticId,
        instance_id: instanceId,
        status: options.status ?? 'healthy',
        in_flight: 1,
        uptime_ms: 2,
      },
    },
  };
}

const at = (ms: number) => new Date(T0.getTime() + ms);

describe('critic health', () => {
  it('counts an instance alive for two heartbeat intervals after its last one, never while draining', () => {
    expect(instanceHealth(entry('a/b', 'i'), T0, at(2000))).toBe('alive');
    expect(instanceHealth(entry('a/b', 'i'), T0, at(2001))).toBe('stale');
    expect(instanceHealth(entry('a/b', 'i', { status: 'draining' }), T0, at(0))).toBe('stale');
  });

  it('keeps heartbeats short enough for the bucket the fleet created', () => {
    expect(effectiveHeartbeatMs(5000, 30_000)).toBe(5000);
    expect(effectiveHeartbeatMs(5000, 3000)).toBe(1000);
  });

  it('makes subject-safe keys per critic and instance', () => {
    expect(criticHealthKey('security/sast-scanner', 'host:12')).toBe('security_sast-scanner.host_12');
  });

  it('groups instances by critic: alive when any is, described by its freshest alive instance', () => {
    const snapshot = summariseRegistry(
      [
        { key: 'k1', entry: entry('team/x', 'old', { triggers: ['old/**'] }), storedAt: at(-5000) },
        { key: 'k2', entry: entry('team/x', 'new', { triggers: ['new/**'] }), storedAt: at(-100) },
        { key: 'k3', entry: entry('team/y', 'gone'), storedAt: at(-9000) },
      ],
      T0,
    );
    expect(snapshot.critics.map((c) => [c.critic_id, c.health, c.triggers, c.last_seen])).toEqual([
      ['team/x', 'alive', ['new/**'], at(-100).toISOString()],
      ['team/y', 'stale', [], at(-9000).toISOString()],
    ]);
    expect(snapshot.critics[0]?.instances.map((i) => [i.instance_id, i.health])).toEqual([
      ['new', 'alive'],
      ['old', 'stale'],
    ]);
  });

  it('round-trips an entry and says why a value is not one', () => {
    const decoded = decodeCriticHealthEntry(encodeCriticHealthEntry(entry('team/x', 'i')));
    expect(decoded.ok && decoded.entry.registration.data.critic_id).toBe('team/x');
    expect(decodeCriticHealthEntry(new TextEncoder().encode('nope'))).toMatchObject({
      ok: false,
      issues: [{ message: expect.stringContaining('not JSON') as unknown }],
    });
    expect(decodeCriticHealthEntry(new Uint8Array([0xff]))).toMatchObject({
      ok: false,
      issues: [{ message: 'not UTF-8' }],
    });
  });
});
