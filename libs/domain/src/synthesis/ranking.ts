import { CATEGORIES, type Finding, SEVERITIES } from '@rloop/contracts';

/**
 * Orders findings for a letter: severity first, then the spec's category priority (Security >
 * Correctness > Maintainability > Performance > Readability > Consistency), then score, then
 * place — so equal inputs always rank the same way.
 */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
    CATEGORIES.indexOf(a.category) - CATEGORIES.indexOf(b.category) ||
    b.score - a.score ||
    a.file.localeCompare(b.file) ||
    a.line_range.start - b.line_range.start ||
    a.fingerprint.localeCompare(b.fingerprint)
  );
}

export function rankFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(compareFindings);
}
