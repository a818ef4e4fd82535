import type { Finding, Letter } from '@rloop/contracts';

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
export function repeatedDisagreements(letter: Letter, trackerOf: Readonly<Record<string, string>>, previous: readonly string[]): RepeatedDisagreements {
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
