import type { Finding, Letter } from '@rloop/contracts';
import type { LoopConfig } from './config.js';
import { type Firing, overlaps } from './firing.js';
import type { FindingRef, Tracker } from './memory.js';

// Critic disagreement: two critics ask for conflicting changes on one region — the letter's
// disagreements (the synthesizer's, by `critic_disagreement.known_conflicts`) that were in the
// letter before too, or fixing one brought the other back (a cycle between findings of different
// critics on overlapping lines).

/** The letter's disagreements that were in the letter before too, and the keys to remember for the next one. */
export interface RepeatedDisagreements {
  /** Both findings of each disagreement seen in this letter and the one before. */
  readonly pairs: readonly (readonly [Finding, Finding])[];
  /** Every disagreement of this letter, as the memory remembers it until the next letter. */
  readonly keys: readonly string[];
}

const MAX_KEYS = 20;

/**
 * Critic disagreement, as the spec has it: the letter surfaces a disagreement (the synthesizer
 * fills `letter.disagreements`) and the implementer may still settle it; when the same
 * disagreement is in the next letter as well, it escalates. "The same" is the same pair of
 * issues — each side followed across rounds by its tracker (`trackerOf`: letter finding id →
 * tracker key), so a side whose lines moved is still the same side. Pure.
 */
export function repeatedDisagreements(
  letter: Letter,
  trackerOf: Readonly<Record<string, string>>,
  previous: readonly string[],
): RepeatedDisagreements {
  const byId = new Map(letter.findings.map((f) => [f.id, f]));
  const before = new Set(previous);
  const keys: string[] = [];
  const pairs: (readonly [Finding, Finding])[] = [];
  for (const disagreement of letter.disagreements) {
    const [first, second] = disagreement.finding_ids;
    const a = first === undefined ? undefined : byId.get(first);
    const b = second === undefined ? undefined : byId.get(second);
    const ka = first === undefined ? undefined : trackerOf[first];
    const kb = second === undefined ? undefined : trackerOf[second];
    if (a === undefined || b === undefined || ka === undefined || kb === undefined) continue;
    // Stored in the memory, which PostgreSQL keeps as jsonb: no NUL separators there.
    const key = [ka, kb].sort().join(' ');
    if (keys.includes(key)) continue;
    keys.push(key);
    if (before.has(key)) pairs.push([a, b]);
  }
  return { pairs, keys: keys.slice(0, MAX_KEYS) };
}

/** Whether a cycle ("fixing A brought back B" both ways) is between two critics on one region. */
export function isDisagreementCycle([a, b]: readonly [Tracker, Tracker], config: LoopConfig): boolean {
  return (
    a.critic_id !== b.critic_id && a.file === b.file && overlaps(a.line_range, b.line_range, config.fuzzy_line_window)
  );
}

function side(t: Tracker) {
  return {
    critic_id: t.critic_id,
    finding_type: t.finding_type,
    fingerprint: t.key.slice(0, 12),
    file: t.file,
    line_range: { ...t.line_range },
    title: t.title,
    expected_behaviour: t.expected || t.title,
  };
}

function refSide(r: FindingRef) {
  return {
    critic_id: r.raised_by,
    finding_type: r.finding_type,
    fingerprint: r.fingerprint,
    file: r.file,
    line_range: { ...r.line_range },
    title: r.title,
    expected_behaviour: r.expected || r.title,
  };
}

export interface DisagreementInput {
  /** The letter's disagreements that were in the letter before too (see repeatedDisagreements). */
  readonly repeated: readonly (readonly [FindingRef, FindingRef])[];
  /** Cycles between findings this round (see the memory's edges). */
  readonly cycles: readonly (readonly [Tracker, Tracker])[];
  readonly trackers: readonly Tracker[];
  /** The tracker key of a letter finding. */
  readonly keyOf: (ref: FindingRef) => string | undefined;
  readonly round: number;
}

export function criticDisagreement(input: DisagreementInput, config: LoopConfig): Firing | null {
  const cycles = input.cycles.filter((c) => isDisagreementCycle(c, config));
  const conflicts = input.repeated;
  if (conflicts.length === 0 && cycles.length === 0) return null;
  const sides = [
    ...conflicts.flatMap(([a, b]) => [refSide(a), refSide(b)]),
    ...cycles.flatMap(([a, b]) => [side(a), side(b)]),
  ].slice(0, 10);
  const involved = [
    ...conflicts.flatMap(([a, b]) => [input.keyOf(a), input.keyOf(b)]),
    ...cycles.flatMap(([a, b]) => [a.key, b.key]),
  ];
  const first = sides[0];
  const second = sides[1];
  const describe =
    first !== undefined && second !== undefined
      ? `${first.critic_id} (${first.finding_type}) and ${second.critic_id} (${second.finding_type}) ask for conflicting changes on ${first.file}:${first.line_range.start}-${first.line_range.end}`
      : 'two critics ask for conflicting changes on one region';
  return {
    heuristic: 'critic_disagreement',
    trackers: input.trackers.filter((t) => involved.includes(t.key)),
    message: `${describe}${conflicts.length > 0 ? ` — in the letter before and again in round ${input.round}'s` : ''}${cycles.length > 0 ? ' — fixing one brought the other back' : ''}; rloop does not settle this by priority rules: a person decides.`,
    evidence: { sides, rule: conflicts.length > 0 ? 'known_conflict' : 'cycle', round: input.round },
  };
}
