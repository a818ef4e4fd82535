import { type EventOf, currentVersion } from '@rloop/contracts';
import type { LoopDetection } from './memory.js';

/**
 * The LoopDetected event of a detection. Its id, time and cause come from the detection (the
 * plan, run, heuristic and round; the event whose projection fired it), so every journal replica
 * and every replay writes the same event.
 */
export function loopDetectedEvent(detection: LoopDetection, producer: string): EventOf<'LoopDetected'> {
  return {
    event_id: detection.event_id,
    type: 'LoopDetected',
    schema_version: currentVersion('LoopDetected'),
    plan: detection.plan,
    correlation_id: detection.run_id,
    causation_id: detection.causation_id,
    occurred_at: detection.occurred_at,
    producer,
    data: {
      heuristic: detection.heuristic,
      round: detection.round,
      fingerprints: [...detection.fingerprints],
      critic_ids: [...detection.critic_ids],
      message: detection.message,
      evidence: { ...detection.evidence },
    },
  };
}
