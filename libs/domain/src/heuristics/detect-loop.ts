import type { JournaledEvent } from '@rloop/contracts';
import { detectionIsLive } from '../escalation/decide-escalation.js';
import type { LoopState } from '../loop/state.js';
import type { LoopConfig } from './config.js';
import { type LoopDetection, type LoopMemory, evolveMemory, initialLoopMemory } from './memory.js';

/** A committed event of the run with its position in the run's stream (what `journal.events` answers). */
export interface RunEntry {
  readonly position: number;
  readonly event: JournaledEvent;
}

/**
 * Where the loop-detection reactor's fold of a run stands, so the next decision folds only the
 * events committed since (a decision costs the same at round 500 as at round 5).
 */
export interface DetectionCheckpoint {
  readonly run_id: string;
  /** The run's events are folded up to this stream position. */
  readonly version: number;
  readonly memory: LoopMemory;
  /** What fired in the latest round folded (older rounds can never be live again). */
  readonly fired: readonly LoopDetection[];
  /** Ids of the LoopDetected events folded (recent ones). */
  readonly journaled: readonly string[];
}

export interface Detected {
  /** The detections to journal as LoopDetected now. */
  readonly detections: readonly LoopDetection[];
  /** Where the fold stands after this decision (null before the plan's first run). */
  readonly checkpoint: DetectionCheckpoint | null;
}

const MAX_JOURNALED = 50;

/**
 * The loop-detection reactor's decision: which heuristics fired on the run as committed and still
 * need their LoopDetected. It folds the run's events up to the state's version with the loop
 * memory's evolve (the same fold the journal projects) — from `from` when that checkpoint is of
 * this run and not ahead of the state, otherwise from the run's start — and keeps the detections
 * that are live (detectionIsLive: the current run and round of a loop that has not ended) and not
 * journaled yet (no LoopDetected with their id folded, none the state holds or has handled). Pure:
 * the same history gives the same detections, with ids derived from plan, run, heuristic and
 * round, so a redelivery or a second replica deciding again produces the same events.
 */
export function detectLoop(
  state: LoopState,
  entries: readonly RunEntry[],
  config: LoopConfig,
  from: DetectionCheckpoint | null = null,
): Detected {
  const runId = state.run_id;
  if (runId === null) return { detections: [], checkpoint: null };
  const start: DetectionCheckpoint =
    from !== null && from.run_id === runId && from.version <= state.version
      ? from
      : { run_id: runId, version: 0, memory: initialLoopMemory(state.plan), fired: [], journaled: [] };
  let memory = start.memory;
  const fired = new Map(start.fired.map((d) => [d.event_id, d]));
  const journaled = [...start.journaled];
  // Ascending positions, past the checkpoint: the events after the state's version are decided on by the commit that announces them.
  const fresh = [...entries]
    .filter((e) => e.position > start.version && e.position <= state.version)
    .sort((a, b) => a.position - b.position);
  for (const { position, event } of fresh) {
    if (event.type === 'LoopDetected') journaled.push(event.event_id);
    const step = evolveMemory(memory, event, position, config);
    memory = step.memory;
    for (const detection of step.detections)
      if (!fired.has(detection.event_id)) fired.set(detection.event_id, detection);
  }
  const known = new Set([...journaled, ...state.handled_detections, ...state.detections.map((d) => d.event_id)]);
  const checkpoint: DetectionCheckpoint = {
    run_id: runId,
    version: state.version,
    memory,
    fired: [...fired.values()].filter((d) => d.round >= state.round),
    journaled: journaled.slice(-MAX_JOURNALED),
  };
  return {
    detections: [...fired.values()].filter((d) => !known.has(d.event_id) && detectionIsLive(state, d)),
    checkpoint,
  };
}
