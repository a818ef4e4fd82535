import { type EventOf } from '@rloop/contracts';
import { ulid } from 'ulid';

function envelope(plan: string) {
  const id = ulid();
  return {
    event_id: id,
    schema_version: 1,
    plan,
    correlation_id: id,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    producer: 'bus-spec',
  } as const;
}

/** A small valid journaled event; `note` carries whatever the test wants to see again. */
export function loopStopped(plan: string, note = 'stop'): EventOf<'LoopStopped'> {
  return { ...envelope(plan), type: 'LoopStopped', data: { note, by: 'bus-spec' } };
}

/** A valid critics-channel event. */
export function criticHeartbeat(criticId: string): EventOf<'CriticHeartbeat'> {
  return {
    ...envelope('_critics'),
    type: 'CriticHeartbeat',
    data: { critic_id: criticId, instance_id: 'i-1', status: 'healthy', in_flight: 0, uptime_ms: 10 },
  };
}

/** A critic's (empty) report for round 1 of a plan. */
export function findingsReported(plan: string, criticId: string): EventOf<'FindingsReported'> {
  return {
    ...envelope(plan),
    type: 'FindingsReported',
    data: { round: 1, critic_id: criticId, commit: 'a'.repeat(40), findings: [], truncated: false, duration_ms: 5 },
  };
}
