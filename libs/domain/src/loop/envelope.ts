import { currentVersion, type EventOf, type JournaledEvent } from '@rloop/contracts';
import { deterministicId } from '../identity/ids.js';

type JournaledType = JournaledEvent['type'];

export interface DecisionMeta {
  readonly plan: string;
  readonly run_id: string;
  /** The event the decision was made on. */
  readonly causation_id: string | null;
  readonly producer: string;
  /** Wall-clock time for the envelope only; decision data never depends on it. */
  readonly now: string;
}

/**
 * Builds a decision event whose id is derived from what it decides (plan, run, step), so every
 * replica that takes the same decision produces the same event.
 */
export function decisionEvent<T extends JournaledType>(
  type: T,
  meta: DecisionMeta,
  idParts: readonly (string | number)[],
  data: EventOf<T>['data'],
): EventOf<T> {
  return {
    event_id: deterministicId(meta.plan, meta.run_id, ...idParts),
    type,
    schema_version: currentVersion(type),
    plan: meta.plan,
    correlation_id: meta.run_id,
    causation_id: meta.causation_id,
    occurred_at: meta.now,
    producer: meta.producer,
    data,
  } as EventOf<T>;
}

/**
 * Marks the events of one decision with the version of the run's stream they were decided on
 * (the handler passes the version of the state it decided from): the journal appends them only
 * while that state still holds (see admitDecision). Events already stamped keep their stamp.
 */
export function stampDecision<E extends JournaledEvent>(events: readonly E[], version: number): E[] {
  const first = events[0];
  if (first === undefined) return [];
  const decision = { expected_version: version, id: first.event_id };
  return events.map((event) => (event.decision === undefined ? { ...event, decision } : event));
}
