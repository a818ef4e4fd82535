import type { FindingTimeline } from '@rloop/contracts';
import type { LoopMemory, Tracker } from './memory.js';

/** A finding's timeline, with the stream position of each attempt's FixApplied (its patch is read from there). */
export interface TimelineDraft {
  readonly timeline: FindingTimeline;
  readonly attempt_positions: readonly number[];
}

const SEVERITY_RANK = { critical: 0, medium: 1, low: 2 } as const;

function roundsOf(tracker: Tracker, maxRounds: number): FindingTimeline['rounds'] {
  const rounds: FindingTimeline['rounds'] = [];
  for (const [from, to, state] of tracker.segments) {
    for (let round = Math.max(from, to - maxRounds + 1); round <= to; round += 1)
      rounds.push({ round, present: state !== 'a' });
  }
  return rounds.slice(-maxRounds);
}

function matches(tracker: Tracker, wanted: ReadonlySet<string>): boolean {
  return wanted.has(tracker.key.slice(0, 12)) || tracker.fingerprints.some((fp) => wanted.has(fp));
}

/**
 * Timelines of the tracked findings: those with the given fingerprints (any fingerprint the issue
 * had), or else every finding still open, most severe first. Rounds the critic did not report
 * (it failed) are left out rather than shown as absent.
 */
export function findingTimelines(
  memory: LoopMemory,
  options: { readonly fingerprints?: readonly string[]; readonly limit: number; readonly maxRounds: number },
): TimelineDraft[] {
  const wanted =
    options.fingerprints === undefined || options.fingerprints.length === 0 ? null : new Set(options.fingerprints);
  const picked = memory.trackers.filter((t) => (wanted === null ? t.last_state !== 'a' : matches(t, wanted)));
  picked.sort(
    (a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.score - a.score || a.first_round - b.first_round,
  );
  return picked.slice(0, options.limit).map((t) => ({
    timeline: {
      fingerprint: t.key.slice(0, 12),
      title: t.title,
      file: t.file,
      line_range: { start: t.line_range.start, end: t.line_range.end },
      severity: t.severity,
      category: t.category,
      raised_by: [t.critic_id],
      rounds: roundsOf(t, options.maxRounds),
      attempts: t.attempts.map((a) => ({ round: a.round, commit: a.commit, lines_changed: a.lines_changed })),
    },
    attempt_positions: t.attempts.map((a) => a.position),
  }));
}

/** The part of a unified diff that changes `file` (cut to `max` characters), or null. */
export function patchOfFile(patch: string, file: string, max = 20_000): string | null {
  const sections = patch.split(/^(?=diff --git )/m);
  const section = sections.find(
    (s) => s.startsWith(`diff --git a/${file} `) || s.includes(`\n+++ b/${file}\n`) || s.includes(`\n--- a/${file}\n`),
  );
  if (section === undefined) return null;
  const text = section.trimEnd();
  return text.length <= max ? text : `${text.slice(0, max - 20)}\n… (diff cut)`;
}
