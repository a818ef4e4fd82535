import type { Finding, Letter, Severity } from '@rloop/contracts';

/** The lowest tier that fails a review (`--fail-on`), or `none`. */
export const FAIL_ON = ['critical', 'medium', 'low', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** Output formats of the commands that print findings. */
export const REPORT_FORMATS = ['stylish', 'json', 'sarif', 'md', 'github', 'gitlab'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** What a formatter is given: the letter and what the review knows about how it ran. */
export interface ReviewReport {
  readonly letter: Letter;
  /** Files reviewed and left out (absent for a letter read from the journal). */
  readonly filesReviewed?: number;
  readonly filesExcluded?: number;
  readonly durationMs?: number;
  readonly failOn: FailOn;
  /** One-line notes for people (LLM review off and why, a refused configuration key). */
  readonly notes: readonly string[];
  /** The text lines of a reviewed file, for code excerpts (--verbose); null when unavailable. */
  readonly readLines?: (file: string) => readonly string[] | null;
  readonly verbose: boolean;
  /** The rloop version, for SARIF. */
  readonly toolVersion: string;
}

const RANK: Readonly<Record<Severity, number>> = { critical: 3, medium: 2, low: 1 };

/** Whether a finding is at or above the --fail-on tier. */
export function failsAt(finding: Pick<Finding, 'severity'>, failOn: FailOn): boolean {
  return failOn !== 'none' && RANK[finding.severity] >= RANK[failOn];
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** `12` or `12-14`. */
export function lineSpan(range: { readonly start: number; readonly end: number }): string {
  return range.start === range.end ? `${range.start}` : `${range.start}-${range.end}`;
}

/** A finding's title without the rule id the tool put in front (it is shown on its own). */
export function shortTitle(finding: Pick<Finding, 'title' | 'finding_type'>): string {
  const rule = finding.finding_type.slice(finding.finding_type.indexOf('/') + 1);
  for (const prefix of [`ESLint ${rule}: `, `${rule}: `, `${finding.finding_type}: `])
    if (finding.title.startsWith(prefix)) return finding.title.slice(prefix.length);
  return finding.title;
}

/**
 * The second line a finding gets when it helps: the taint path from the source of user input, or
 * where the other copy of a duplicate is; null otherwise.
 */
export function secondLine(finding: Finding): string | null {
  const related = finding.related_locations;
  if (related.length === 0) return null;
  const at = (l: (typeof related)[number]): string => `${l.file}:${lineSpan(l.line_range)}`;
  if (finding.finding_type.startsWith('sast/') || finding.finding_type.startsWith('validation/')) {
    // Source and sink on the flagged line itself: the line says it all.
    if (
      related.every(
        (l) =>
          l.file === finding.file &&
          l.line_range.start >= finding.line_range.start &&
          l.line_range.end <= finding.line_range.end,
      )
    )
      return null;
    const steps = related.map((l) => `${l.note.replace(/^(taint source|passed on here): /, '')} (${at(l)})`);
    return `path: ${[...steps, `here (${finding.file}:${finding.line_range.start})`].join(' → ')}`;
  }
  if (finding.finding_type.startsWith('duplicate/')) {
    const label = finding.finding_type === 'duplicate/repeated-shape' ? 'same shape' : 'other copy';
    return `${label}: ${related.map(at).slice(0, 3).join(', ')}${related.length > 3 ? ` and ${related.length - 3} more` : ''}`;
  }
  const first = related[0];
  return first === undefined ? null : `see also: ${first.note === '' ? '' : `${first.note} `}(${at(first)})`;
}
