import { describe, expect, it } from '@jest/globals';
import type { CriticRegistrySnapshot } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { criticListings } from './critics.js';

const instance = (id: string, health: 'alive' | 'stale') => ({
  instance_id: id,
  health,
  status: 'healthy' as const,
  in_flight: 0,
  uptime_ms: 1,
  version: '1',
  last_seen: '2026-01-01T00:00:00.000Z',
});

const snapshot: CriticRegistrySnapshot = {
  read_at: '2026-01-01T00:00:01.000Z',
  invalid: [],
  critics: [
    {
      critic_id: 'team/live',
      evidence: 'pattern',
      description: '',
      triggers: [],
      phases: ['critical'],
      timeout_ms: 1000,
      heartbeat_interval_ms: 1000,
      health: 'alive',
      last_seen: '2026-01-01T00:00:00.000Z',
      instances: [instance('a', 'alive'), instance('b', 'stale')],
    },
  ],
};

function registration(criticId: string): EventOf<'CriticRegistered'> {
  return {
    event_id: '01JGGGGGGGGGGGGGGGGGGGGGGG',
    type: 'CriticRegistered',
    schema_version: 1,
    plan: '_critics',
    correlation_id: '01JGGGGGGGGGGGGGGGGGGGGGGG',
    causation_id: null,
    occurred_at: '2025-12-31T23:00:00.000Z',
    producer: 'x',
    data: {
      critic_id: criticId,
      instance_id: 'old',
      evidence: 'llm',
      description: 'gone now',
      triggers: ['**/*.sql'],
      phases: ['critical'],
      timeout_ms: 1000,
      heartbeat_interval_ms: 1000,
      version: '1',
    },
  };
}

describe('criticListings', () => {
  it('lists live critics with their live instances, and critics only the registry stream remembers as stale', () => {
    const listings = criticListings(snapshot, [
      { registration: registration('team/live'), lastSeen: new Date('2025-12-31T23:00:00.000Z') },
      { registration: registration('team/gone'), lastSeen: new Date('2025-12-31T23:30:00.000Z') },
    ]);
    expect(listings.map((l) => [l.critic_id, l.health, `${l.instances_alive}/${l.instances}`, l.last_seen])).toEqual([
      ['team/gone', 'stale', '0/0', '2025-12-31T23:30:00.000Z'],
      ['team/live', 'alive', '1/2', '2026-01-01T00:00:00.000Z'],
    ]);
    expect(listings[0]).toMatchObject({ evidence: 'llm', triggers: ['**/*.sql'] });
  });
});
