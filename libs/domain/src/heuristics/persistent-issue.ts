import type { LoopConfig } from './config.js';
import { type Firing, trackerEvidence, where } from './firing.js';
import type { Tracker } from './memory.js';

// Persistent issue: a finding in the letter `persistent_issue.rounds` rounds in a row while the
// implementer did not try something new each time (that is an implementer wall's business).

/** Why this is persistent and not (yet) a wall: every fix in the stretch tried something new. */
function tryingNewApproaches(t: Tracker): boolean {
  return t.streak_attempts > 0 && t.streak_attempts >= t.streak - 1;
}

/** The trackers that are persistent issues now. */
export function persistentIssues(trackers: readonly Tracker[], config: LoopConfig): Tracker[] {
  return trackers.filter(
    (t) => t.last_state === 'p' && t.streak >= config.persistent_issue.rounds && !tryingNewApproaches(t),
  );
}

/** Fires for the persistent issues, leaving out those an implementer wall already named this round. */
export function persistentIssue(
  trackers: readonly Tracker[],
  config: LoopConfig,
  walls: readonly Tracker[],
): Firing | null {
  const wallKeys = new Set(walls.map((t) => t.key));
  const persistent = persistentIssues(trackers, config).filter((t) => !wallKeys.has(t.key));
  if (persistent.length === 0) return null;
  return {
    heuristic: 'persistent_issue',
    trackers: persistent,
    message: persistent
      .map(
        (t) =>
          `"${t.title}" (${where(t)}, ${t.critic_id}) was raised in ${t.streak} consecutive rounds and no fix removed it`,
      )
      .join('; '),
    evidence: {
      threshold: config.persistent_issue.rounds,
      findings: persistent.map((t) => ({
        ...trackerEvidence(t),
        consecutive_rounds: t.streak,
        since_round: t.streak_start,
        distinct_attempts: t.streak_attempts,
      })),
    },
  };
}
