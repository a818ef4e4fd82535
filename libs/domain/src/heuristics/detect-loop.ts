import type { JournaledEvent } from '@rloop/contracts';
import { detectionIsLive } from '../escalation/decide-escalation.js';
import type { LoopState } from '../loop/state.js';
import type { LoopConfig } from './config.js';
import { type LoopDetection, evolveMemory, initialLoopMemory } from './memory.js';

/** A committed event of the run with its position in the run's stream (what `journal.events` answers). */
export interface RunEntry {
  readonly position: number;
  readonly event: JournaledEvent;
}

/**
 * The loop-detection reactor's decision: which heuristics fired on the run as committed and still
 * need their LoopDetected. It folds the run's events up to the state's version with the loop
 * memory's evolve (the same fold the journal projects), and keeps the detections that are live
 * (detectionIsLive: the current run and round of a loop that has not ended) and not journaled yet
 * (no LoopDetected with their id in the run, none the state holds or has handled). Pure: the same
 * history gives the same detections, with ids derived from plan, run, heuristic and round, so a
 * redelivery or a second replica deciding again produces the same events.
 */
export function detectLoop(state: LoopState, entries: readonly RunEntry[], config: LoopConfig): LoopDetection[] {
  if (state.run_id === null) return [];
  let memory = initialLoopMemory(state.plan);
  const fired = new Map<string, LoopDetection>();
  const journaled = new Set<string>([...state.handled_detections, ...state.detections.map((d) => d.event_id)]);
  // Ascending positions: the events after the state's version are decided on by the commit that announces them.
  for (const { position, event } of [...entries].sort((a, b) => a.position - b.position)) {
    if (position > state.version) break;
    if (event.type === 'LoopDetected') journaled.add(event.event_id);
    const step = evolveMemory(memory, event, position, config);
    memory = step.memory;
    for (const detection of step.detections) if (!fired.has(detection.event_id)) fired.set(detection.event_id, detection);
  }
  return [...fired.values()].filter((d) => !journaled.has(d.event_id) && detectionIsLive(state, d));
}
