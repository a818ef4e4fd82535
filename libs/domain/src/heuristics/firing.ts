import type { Heuristic } from '@rloop/contracts';
import type { Tracker } from './memory.js';

/**
 * A heuristic that fired in a round: the loop memory turns it into a LoopDetection (and the
 * reactor into a LoopDetected). Each heuristic's file decides when it fires and what it says.
 */
export interface Firing {
  readonly heuristic: Heuristic;
  readonly trackers: readonly Tracker[];
  readonly message: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

export function trackerEvidence(t: Tracker): Record<string, unknown> {
  return {
    fingerprint: t.key,
    critic_id: t.critic_id,
    finding_type: t.finding_type,
    file: t.file,
    line_range: t.line_range,
    title: t.title,
  };
}

export function where(t: { readonly file: string; readonly line_range: { readonly start: number } }): string {
  return `${t.file}:${t.line_range.start}`;
}

export function overlaps(
  a: { readonly start: number; readonly end: number },
  b: { readonly start: number; readonly end: number },
  slack = 0,
): boolean {
  return a.start <= b.end + slack && b.start <= a.end + slack;
}
