import type { Issue } from '@rloop/contracts';
import type { LoopState } from '@rloop/domain';
import type { JournalClient } from '@rloop/journal-client';

/**
 * One loop per slug at a time. Submissions racing for a free slug all pass the first look at the
 * journal, so the journal's order decides: its loop-state fold starts a run on the first
 * PlanSubmitted it commits and ignores the others while that run is open. Both the request API and
 * the gating handler ask the journal which submission holds the slug once theirs is committed.
 */
export function slugTakenIssue(slug: string, state: LoopState): Issue {
  return {
    path: 'slug',
    message: `plan ${slug} already has a loop running (${state.status}, round ${state.round}); wait for it or stop it with \`rloop stop ${slug}\``,
  };
}

/** How often the request API asks whether the journal has committed the submission. */
const POLL_MS = 25;

/**
 * The plan's loop state once the journal has committed `eventId`, or 'pending' when it has not
 * within `timeoutMs` (the gating handler settles it then, with a PlanRejected if another run holds
 * the slug).
 */
export async function stateOnceJournaled(
  journal: JournalClient,
  plan: string,
  eventId: string,
  timeoutMs: number,
): Promise<LoopState | null | 'pending'> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await journal.hasEvent(eventId)).found) return (await journal.loopState(plan)).state;
    if (Date.now() >= deadline) return 'pending';
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
