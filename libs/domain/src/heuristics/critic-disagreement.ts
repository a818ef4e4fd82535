import type { LoopConfig } from './config.js';
import { type Firing, overlaps } from './firing.js';
import type { FindingRef, Tracker } from './memory.js';

// Critic disagreement: two critics ask for conflicting changes on one region — their finding
// types are a known conflict (`critic_disagreement.known_conflicts`), or fixing one brought the
// other back (a cycle between findings of different critics on overlapping lines).

function typeMatches(pattern: string, type: string): boolean {
  return pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
}

function conflicting(config: LoopConfig, a: string, b: string): boolean {
  return config.critic_disagreement.known_conflicts.some(([x, y]) => (typeMatches(x, a) && typeMatches(y, b)) || (typeMatches(x, b) && typeMatches(y, a)));
}

/** Pairs of letter findings from different critics on overlapping lines whose types are known to conflict. */
export function knownConflicts(findings: readonly FindingRef[], config: LoopConfig): [FindingRef, FindingRef][] {
  const pairs: [FindingRef, FindingRef][] = [];
  for (let i = 0; i < findings.length; i += 1) {
    for (let j = i + 1; j < findings.length; j += 1) {
      const a = findings[i];
      const b = findings[j];
      if (a === undefined || b === undefined || a.raised_by === b.raised_by || a.file !== b.file) continue;
      if (overlaps(a.line_range, b.line_range) && conflicting(config, a.finding_type, b.finding_type)) pairs.push([a, b]);
    }
  }
  return pairs;
}

/** Whether a cycle ("fixing A brought back B" both ways) is between two critics on one region. */
export function isDisagreementCycle([a, b]: readonly [Tracker, Tracker], config: LoopConfig): boolean {
  return a.critic_id !== b.critic_id && a.file === b.file && overlaps(a.line_range, b.line_range, config.fuzzy_line_window);
}

function side(t: Tracker) {
  return { critic_id: t.critic_id, finding_type: t.finding_type, fingerprint: t.key.slice(0, 12), file: t.file, line_range: { ...t.line_range }, title: t.title, expected_behaviour: t.expected || t.title };
}

function refSide(r: FindingRef) {
  return { critic_id: r.raised_by, finding_type: r.finding_type, fingerprint: r.fingerprint, file: r.file, line_range: { ...r.line_range }, title: r.title, expected_behaviour: r.expected || r.title };
}

export interface DisagreementInput {
  /** The letter's findings. */
  readonly letter: readonly FindingRef[];
  /** Cycles between findings this round (see the memory's edges). */
  readonly cycles: readonly (readonly [Tracker, Tracker])[];
  readonly trackers: readonly Tracker[];
  /** The tracker key of a letter finding. */
  readonly keyOf: (ref: FindingRef) => string | undefined;
  readonly round: number;
}

export function criticDisagreement(input: DisagreementInput, config: LoopConfig): Firing | null {
  const cycles = input.cycles.filter((c) => isDisagreementCycle(c, config));
  const conflicts = knownConflicts(input.letter, config);
  if (conflicts.length === 0 && cycles.length === 0) return null;
  const sides = [...conflicts.flatMap(([a, b]) => [refSide(a), refSide(b)]), ...cycles.flatMap(([a, b]) => [side(a), side(b)])].slice(0, 10);
  const involved = [...conflicts.flatMap(([a, b]) => [input.keyOf(a), input.keyOf(b)]), ...cycles.flatMap(([a, b]) => [a.key, b.key])];
  const first = sides[0];
  const second = sides[1];
  const describe =
    first !== undefined && second !== undefined
      ? `${first.critic_id} (${first.finding_type}) and ${second.critic_id} (${second.finding_type}) ask for conflicting changes on ${first.file}:${first.line_range.start}-${first.line_range.end}`
      : 'two critics ask for conflicting changes on one region';
  return {
    heuristic: 'critic_disagreement',
    trackers: input.trackers.filter((t) => involved.includes(t.key)),
    message: `${describe}${cycles.length > 0 ? ' — fixing one brought the other back' : ''}; rloop does not settle this by priority rules: a person decides.`,
    evidence: { sides, rule: conflicts.length > 0 ? 'known_conflict' : 'cycle', round: input.round },
  };
}
