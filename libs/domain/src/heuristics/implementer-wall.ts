import type { LoopConfig } from './config.js';
import { type Firing, trackerEvidence, where } from './firing.js';
import type { Tracker } from './memory.js';

// Implementer wall: `implementer_wall.attempts` distinct fix attempts (different changed lines)
// while the issue persists.

export function implementerWalls(trackers: readonly Tracker[], config: LoopConfig): Tracker[] {
  return trackers.filter((t) => t.last_state === 'p' && t.streak_attempts >= config.implementer_wall.attempts);
}

export function implementerWall(trackers: readonly Tracker[], config: LoopConfig): Firing | null {
  const walls = implementerWalls(trackers, config);
  if (walls.length === 0) return null;
  return {
    heuristic: 'implementer_wall',
    trackers: walls,
    message: walls
      .map(
        (t) =>
          `the implementer tried ${t.streak_attempts} different approaches on "${t.title}" (${where(t)}) and it persists — the plan may need a rethink`,
      )
      .join('; '),
    evidence: {
      threshold: config.implementer_wall.attempts,
      findings: walls.map((t) => ({ ...trackerEvidence(t), attempts: t.attempts.slice(-t.streak_attempts) })),
    },
  };
}
