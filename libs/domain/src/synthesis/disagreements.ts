import type { Disagreement, Finding } from '@rloop/contracts';

/** Two finding types known to ask for opposite changes (a trailing `*` matches a prefix). */
export type KnownConflict = readonly [string, string];

/**
 * The `llm/…` finding types an LLM critic is asked to use (libs/llm's prompt names them) when its
 * fix is one side of a known conflict: free-form types could never match a table.
 */
export const CONFLICT_ASK_TYPES = {
  inlineForPerformance: 'llm/inline-for-performance',
  inlineForReadability: 'llm/inline-for-readability',
  extractForReadability: 'llm/extract-for-readability',
  apiCompatibility: 'llm/api-compatibility',
} as const;

/**
 * The conflicts rloop ships (config/loop.yaml says the same, with the reason of each), built from
 * the finding types our critics emit:
 * - `duplicate/*` (quality/duplicate-code-detector: "the repeated logic exists once") against an LLM
 *   critic's `llm/inline-for-performance` (copy the code into the hot path), and against
 *   `complexity/function` (quality/complexity: merging copies into one parameterised function adds
 *   the branches the complexity critic counts; splitting for complexity repeats the small pieces);
 * - `complexity/function` (split the function) against `llm/inline-for-readability` (fold a helper
 *   back), and `llm/extract-for-readability` against `llm/inline-for-performance`;
 * - security hardening — `sast/*` (security/sast-scanner), `validation/*`
 *   (security/input-validation-checker), rejecting or encoding input — against
 *   `llm/api-compatibility` (callers keep sending what they send today).
 */
export const DEFAULT_KNOWN_CONFLICTS: readonly KnownConflict[] = [
  ['duplicate/*', CONFLICT_ASK_TYPES.inlineForPerformance],
  ['duplicate/*', 'complexity/function'],
  ['complexity/function', CONFLICT_ASK_TYPES.inlineForReadability],
  [CONFLICT_ASK_TYPES.extractForReadability, CONFLICT_ASK_TYPES.inlineForPerformance],
  ['sast/*', CONFLICT_ASK_TYPES.apiCompatibility],
  ['validation/*', CONFLICT_ASK_TYPES.apiCompatibility],
];

function typeMatches(pattern: string, type: string): boolean {
  return pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
}

/** Whether two finding types are a known conflict, in either order. */
export function isKnownConflict(table: readonly KnownConflict[], a: string, b: string): boolean {
  return table.some(([x, y]) => (typeMatches(x, a) && typeMatches(y, b)) || (typeMatches(x, b) && typeMatches(y, a)));
}

const MAX_DISAGREEMENTS = 20;
const NOTE_MAX = 2000;

function ask(f: Finding): string {
  const text = (f.expected_behaviour || f.title).replace(/\s+/g, ' ').trim();
  return `${f.raised_by} (${f.finding_type}) asks: ${text.length > 600 ? `${text.slice(0, 600)}…` : text}`;
}

/**
 * Same-round disagreements (spec: "two critics flag conflicting fixes for the same code region in
 * the same round"): pairs of a letter's findings from different critics, in one file, on
 * overlapping lines, whose finding types are a known conflict. Each becomes one `Disagreement`
 * naming both findings and both asks — never settled by priority rules: the letter surfaces it,
 * and the loop escalates when the same disagreement comes back in the next round. Pure.
 */
export function findDisagreements(findings: readonly Finding[], table: readonly KnownConflict[]): Disagreement[] {
  const found: Disagreement[] = [];
  if (table.length === 0) return found;
  for (let i = 0; i < findings.length && found.length < MAX_DISAGREEMENTS; i += 1) {
    for (let j = i + 1; j < findings.length && found.length < MAX_DISAGREEMENTS; j += 1) {
      const a = findings[i];
      const b = findings[j];
      if (a === undefined || b === undefined || a.raised_by === b.raised_by || a.file !== b.file) continue;
      if (a.line_range.start > b.line_range.end || b.line_range.start > a.line_range.end) continue;
      if (!isKnownConflict(table, a.finding_type, b.finding_type)) continue;
      const note = `${ask(a)} — ${ask(b)}. These ask for opposite changes to the same lines; rloop does not pick a side by priority rules: apply neither blindly, and if both stay, a person decides.`;
      found.push({
        file: a.file,
        line_range: {
          start: Math.min(a.line_range.start, b.line_range.start),
          end: Math.max(a.line_range.end, b.line_range.end),
        },
        finding_ids: [a.id, b.id],
        critic_ids: [a.raised_by, b.raised_by],
        note: note.length > NOTE_MAX ? `${note.slice(0, NOTE_MAX - 1)}…` : note,
      });
    }
  }
  return found;
}
