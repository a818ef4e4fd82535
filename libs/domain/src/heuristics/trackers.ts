import type { Finding } from '@rloop/contracts';
import { isSameIssue } from '../identity/fingerprint.js';
import type { LoopConfig } from './config.js';
import type { CurrentRound, FindingRef, LoopMemory, PresenceState, Tracker } from './memory-model.js';

// Following one issue across rounds: a finding of a report joins a tracker (the domain's
// isSameIssue), a tracker's presence is kept as run-length segments. Used by the loop memory's
// fold (memory.ts) on its working copy.

// ── Mutable working copy (the functions below are pure from the outside) ─────────────────────

export type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? U[] : T[K] };
export type Draft = Mutable<Omit<LoopMemory, 'trackers' | 'current'>> & {
  trackers: Mutable<Tracker>[];
  current: CurrentRound | null;
};

/**
 * A working copy: the round at hand is copied always (reports land there), the trackers only for
 * the events that change them, so a critic's report costs the same whatever the memory holds.
 */
export function draftOf(memory: LoopMemory, withTrackers: boolean): Draft {
  const current =
    memory.current === null
      ? null
      : {
          ...memory.current,
          critics: { ...memory.current.critics },
          reports: { ...memory.current.reports },
          letter_map: { ...memory.current.letter_map },
        };
  return {
    ...memory,
    current,
    trackers: withTrackers ? structuredClone(memory.trackers) : memory.trackers,
  } as unknown as Draft;
}

export function refOf(f: Finding): FindingRef {
  return {
    id: f.id,
    fingerprint: f.fingerprint,
    location_hash: f.location_hash ?? null,
    file: f.file,
    finding_type: f.finding_type,
    line_range: { start: f.line_range.start, end: f.line_range.end },
    raised_by: f.raised_by,
    score: f.score,
    severity: f.severity,
    category: f.category,
    title: f.title.slice(0, 200),
    expected: f.expected_behaviour.slice(0, 500),
  };
}

function comparable(t: Mutable<Tracker>): Parameters<typeof isSameIssue>[0] {
  return {
    fingerprint: t.key,
    file: t.file,
    finding_type: t.finding_type,
    line_range: t.line_range,
    raised_by: t.critic_id,
    location_hash: t.location_hash ?? undefined,
  };
}

export function addSegment(t: Mutable<Tracker>, round: number, state: PresenceState, max: number): void {
  const last = t.segments.at(-1);
  if (last !== undefined && last[2] === state && last[1] === round - 1) {
    t.segments[t.segments.length - 1] = [last[0], round, state];
  } else {
    t.segments.push([round, round, state]);
    if (t.segments.length > max) t.segments.splice(0, t.segments.length - max);
  }
}

interface Match {
  readonly ref: FindingRef;
  readonly tracker: Mutable<Tracker>;
  readonly created: boolean;
  /** Line shift when matched by snippet or by the fuzzy rule (null for an exact fingerprint or a new tracker). */
  readonly drift: number | null;
}

/** Matches the round's reports to trackers: exact fingerprints first, then snippet hashes, then the fuzzy rule (closest line). */
export function matchReports(d: Draft, refs: readonly FindingRef[], round: number, config: LoopConfig): Match[] {
  const matches: Match[] = [];
  const taken = new Set<string>();
  const byFingerprint = new Map<string, Mutable<Tracker>>();
  for (const t of d.trackers) for (const fp of t.fingerprints) byFingerprint.set(`${t.critic_id}\u0000${fp}`, t);
  const pending: FindingRef[] = [];
  for (const ref of refs) {
    const t = byFingerprint.get(`${ref.raised_by}\u0000${ref.fingerprint}`);
    if (t !== undefined && !taken.has(t.key)) {
      taken.add(t.key);
      matches.push({ ref, tracker: t, created: false, drift: null });
    } else {
      pending.push(ref);
    }
  }
  for (const ref of pending) {
    let best: Mutable<Tracker> | null = null;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (const t of d.trackers) {
      if (taken.has(t.key) || t.critic_id !== ref.raised_by) continue;
      const candidate = { ...ref, location_hash: ref.location_hash ?? undefined };
      if (!isSameIssue(comparable(t), candidate, config.fuzzy_line_window)) continue;
      const distance =
        ref.location_hash !== null && ref.location_hash === t.location_hash
          ? -1
          : Math.abs(t.line_range.start - ref.line_range.start);
      if (distance < bestDistance) {
        best = t;
        bestDistance = distance;
      }
    }
    if (best !== null) {
      taken.add(best.key);
      matches.push({
        ref,
        tracker: best,
        created: false,
        drift: Math.abs(best.line_range.start - ref.line_range.start),
      });
      continue;
    }
    const tracker = newTracker(d, ref, round, config);
    taken.add(tracker.key);
    matches.push({ ref, tracker, created: true, drift: null });
  }
  return matches;
}

function newTracker(d: Draft, ref: FindingRef, round: number, config: LoopConfig): Mutable<Tracker> {
  if (d.trackers.length >= config.limits.max_tracked_findings) {
    // Forget the finding gone longest (or, failing that, seen longest ago): memory stays bounded.
    let victim = 0;
    for (let i = 1; i < d.trackers.length; i += 1) {
      const a = d.trackers[i];
      const b = d.trackers[victim];
      if (a === undefined || b === undefined) continue;
      const rank = (t: Mutable<Tracker>): number => (t.last_state === 'a' ? 0 : 1e9) + t.last_seen;
      if (rank(a) < rank(b)) victim = i;
    }
    d.trackers.splice(victim, 1);
  }
  const key = d.trackers.some((t) => t.key === ref.fingerprint) ? `${ref.fingerprint}@${round}` : ref.fingerprint;
  const tracker: Mutable<Tracker> = {
    key,
    fingerprints: [ref.fingerprint],
    critic_id: ref.raised_by,
    file: ref.file,
    finding_type: ref.finding_type,
    line_range: { ...ref.line_range },
    location_hash: ref.location_hash,
    title: ref.title,
    severity: ref.severity,
    category: ref.category,
    score: ref.score,
    expected: ref.expected,
    first_round: round,
    last_seen: round,
    last_state: 'a',
    segments: [],
    streak: 0,
    streak_start: round,
    streak_attempts: 0,
    signatures: [],
    reappearances: 0,
    total_reappearances: 0,
    absent_since: null,
    attempts: [],
  };
  d.trackers.push(tracker);
  return tracker;
}

export function restartStreak(t: Mutable<Tracker>, round: number): void {
  t.streak = 0;
  t.streak_start = round;
  t.streak_attempts = 0;
  t.signatures = [];
}
