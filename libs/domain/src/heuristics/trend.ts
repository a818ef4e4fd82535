/** Average of the `top` highest scores (0 for none): the review-loop seed's severity measure of a round. */
export function topScoreAverage(scores: readonly number[], top: number): number {
  if (scores.length === 0) return 0;
  const best = [...scores].sort((a, b) => b - a).slice(0, top);
  return best.reduce((sum, s) => sum + s, 0) / best.length;
}

/** Least-squares slope of y over x (0 for fewer than two points or a single x). */
export function slope(points: readonly { readonly x: number; readonly y: number }[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * A key moment (review-loop seed: a breakthrough cycle): the highest score of a round's letter
 * dropped by more than `maxDrop` from the previous round's. Null when it did not.
 */
export function keyMomentOf(previousMax: number | null, max: number, maxDrop: number): string | null {
  if (previousMax === null || previousMax - max <= maxDrop) return null;
  return `highest severity score dropped from ${previousMax} to ${max}`;
}

/**
 * Failures of the machinery rather than of the fix: a tool that crashed or was killed, a rate
 * limit, a timeout, a strategy this implementer lacks. They never count as fix attempts or as
 * "no change" (the FSM seed keeps infrastructure failures apart from code failures).
 */
const INFRA_FAILURE =
  /timed out|timeout|rate[ -]?limit|\b429\b|\b5\d\d\b|overloaded|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ENOSPC|ENOMEM|killed by|SIGKILL|SIGTERM|not available on this implementer|budget/i;

export function isInfraFailure(fix: { readonly outcome: string; readonly reason?: string | undefined }): boolean {
  return fix.outcome === 'failed' && INFRA_FAILURE.test(fix.reason ?? '');
}
