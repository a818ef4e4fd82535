/**
 * Journal streams: one per run, `<plan>/<run id>` (the run id is its PlanSubmitted's event id), so
 * a re-submitted slug starts a stream of its own and no fold or reader of one run ever sees
 * another run's events. Journals from before per-run streams kept every run of a plan in one
 * stream named after the plan; those streams are read as they are (a run's stream is wherever its
 * PlanSubmitted is).
 */
export function runStreamId(plan: string, runId: string): string {
  return `${plan}/${runId}`;
}

/** The plan a stream belongs to (a slug never holds `/`). */
export function planOfStream(streamId: string): string {
  const slash = streamId.indexOf('/');
  return slash < 0 ? streamId : streamId.slice(0, slash);
}

/** SQL LIKE pattern of a plan's per-run streams (a slug holds no `%` or `_`… but `_invalid` does: escape it). */
export function runStreamsPattern(plan: string): string {
  return `${plan.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}
