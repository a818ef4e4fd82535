import picomatch from 'picomatch';
import type { Finding, Suppression } from '@rloop/contracts';

/**
 * One inline suppression, written in a comment of any language on the flagged line or the line
 * before it:
 *
 *     // rloop-ignore eslint/no-eval -- the sandbox evaluates only our own templates
 *     # rloop-ignore security/secrets-detector until=2027-03-31 -- test key, rotated in March
 *
 * The target is a rule (finding type, e.g. `eslint/no-eval`), a glob over rules (`eslint/*`) or a
 * critic id (`security/sast-scanner`); several are separated by commas. The reason after `--` is
 * required; `until=YYYY-MM-DD` ends the suppression on that day.
 */
export interface SuppressionDirective {
  readonly file: string;
  /** The line the comment is on. */
  readonly line: number;
  readonly targets: readonly string[];
  readonly reason: string | null;
  readonly until: string | null;
  /** What is wrong with the comment itself (no target, no reason, a date that is not one), or null. */
  readonly problem: string | null;
}

// `rloop-ignore` not followed by another word character or dash (`rloop-ignore-secret` is the secrets
// critic's own), and not quoted (`rloop-ignore …` in prose or a string is about the syntax, not a use of it).
const DIRECTIVE = /(?:^|[^A-Za-z0-9_`'"-])rloop-ignore(?![A-Za-z0-9_-])(.*)$/;
const TARGET = /^[A-Za-z0-9@*][A-Za-z0-9@/._:+*?{}-]*$/;
/** Documentation shows the syntax; only source and configuration files carry suppressions. */
const PROSE_FILES = /\.(?:md|markdown|mdx|rst|adoc|txt)$/i;
const UNTIL = /(?:^|\s)until=(\S*)/;
const COMMENT_CLOSERS = /\s*(?:\*\/|-->|%>|\}\}|#\})\s*$/;

function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** Parses the text after `rloop-ignore` (pure). */
function parseDirective(file: string, line: number, rest: string): SuppressionDirective {
  const body = rest.replace(COMMENT_CLOSERS, '');
  const separator = body.search(/(?:^|\s)--(?:\s|$)/);
  let head = separator < 0 ? body : body.slice(0, separator);
  let reason =
    separator < 0
      ? ''
      : body
          .slice(separator)
          .replace(/^\s*--/, '')
          .trim();
  let until: string | null = null;
  // `until=` may stand before the `--` or at the very end of the reason.
  const inHead = UNTIL.exec(head);
  const atEnd = /(?:^|\s)until=(\S*)\s*$/.exec(reason);
  if (inHead !== null) {
    until = inHead[1] ?? '';
    head = head.replace(UNTIL, ' ');
  } else if (atEnd !== null) {
    until = atEnd[1] ?? '';
    reason = reason.slice(0, atEnd.index).trim();
  }
  const targets = head
    .trim()
    .split(/[\s,]+/)
    .filter((t) => t !== '');
  let problem: string | null = null;
  const odd = targets.find((t) => !TARGET.test(t));
  if (targets.length === 0) problem = 'names no rule or critic (write `rloop-ignore <rule-or-critic> -- <reason>`)';
  else if (odd !== undefined) problem = `names ${JSON.stringify(odd)}, which is not a rule or critic id`;
  else if (reason === '') problem = 'gives no reason (write `-- <why this finding is acceptable>` after the rule)';
  else if (until !== null && !isCalendarDay(until)) problem = `has until=${until}, which is not a date (YYYY-MM-DD)`;
  return { file, line, targets, reason: reason === '' ? null : reason, until, problem };
}

/** Every `rloop-ignore` comment in a file's text (pure). */
export function findDirectives(file: string, text: string): SuppressionDirective[] {
  const directives: SuppressionDirective[] = [];
  if (PROSE_FILES.test(file)) return directives;
  const lines = text.split(/\r?\n/);
  lines.forEach((lineText, index) => {
    if (lineText.length > 5000 || !lineText.includes('rloop-ignore')) return;
    const match = DIRECTIVE.exec(lineText);
    if (match !== null) directives.push(parseDirective(file, index + 1, match[1] ?? ''));
  });
  return directives;
}

/** Whether a directive's target names this finding: its rule, a glob over rules, or its critic. */
export function targetMatches(target: string, finding: Pick<Finding, 'finding_type' | 'raised_by'>): boolean {
  if (target === finding.finding_type || target === finding.raised_by) return true;
  return /[*?[{]/.test(target) && picomatch.isMatch(finding.finding_type, target);
}

/** A directive that did not suppress anything, and why it is worth a look. */
export interface DirectiveProblem {
  readonly directive: SuppressionDirective;
  readonly kind: 'invalid' | 'expired' | 'unused';
  readonly message: string;
}

export interface InlineSuppressionResult {
  readonly kept: Finding[];
  readonly suppressed: Suppression[];
  /** Directives that are malformed, past their date, or (with `reportUnused`) matched nothing. */
  readonly problems: DirectiveProblem[];
}

/**
 * The record of a finding dismissed rather than fixed (an inline comment, a rule switched off, a
 * baseline entry): who raised it, where, how and why — bounded to the contract's lengths.
 */
export function suppressionOf(
  finding: Finding,
  how: {
    readonly kind: Suppression['kind'];
    readonly reason: string;
    readonly source: string;
    readonly until?: string;
  },
): Suppression {
  return {
    fingerprint: finding.fingerprint,
    finding_type: finding.finding_type,
    raised_by: finding.raised_by,
    severity: finding.severity,
    file: finding.file,
    line: finding.line_range.start,
    title: finding.title,
    kind: how.kind,
    reason: how.reason.slice(0, 1000),
    source: how.source.slice(0, 300),
    ...(how.until === undefined ? {} : { until: how.until }),
  };
}

/**
 * Applies inline suppressions to findings (pure): a valid directive on a finding's first line or
 * the line before dismisses it, recorded as a Suppression. A directive without a reason, with a
 * bad date or past its date dismisses nothing and is returned as a problem, as is (when
 * `inScope` says the directive's targets were reviewed) one that matched no finding.
 */
export function applyInlineSuppressions(
  findings: readonly Finding[],
  directives: readonly SuppressionDirective[],
  options: { readonly today: string; readonly inScope?: (directive: SuppressionDirective) => boolean },
): InlineSuppressionResult {
  const valid = directives.filter((d) => d.problem === null && (d.until === null || d.until >= options.today));
  const problems: DirectiveProblem[] = [];
  for (const d of directives) {
    if (d.problem !== null) problems.push({ directive: d, kind: 'invalid', message: `rloop-ignore ${d.problem}` });
    else if (d.until !== null && d.until < options.today)
      problems.push({
        directive: d,
        kind: 'expired',
        message: `rloop-ignore ${d.targets.join(',')} expired on ${d.until}`,
      });
  }
  const byPlace = new Map<string, SuppressionDirective[]>();
  for (const d of valid) byPlace.set(`${d.file}:${d.line}`, [...(byPlace.get(`${d.file}:${d.line}`) ?? []), d]);
  const used = new Set<SuppressionDirective>();
  const kept: Finding[] = [];
  const suppressed: Suppression[] = [];
  for (const finding of findings) {
    const line = finding.line_range.start;
    const candidates = [
      ...(byPlace.get(`${finding.file}:${line}`) ?? []),
      ...(byPlace.get(`${finding.file}:${line - 1}`) ?? []),
    ];
    const directive = candidates.find((d) => d.targets.some((t) => targetMatches(t, finding)));
    if (directive === undefined) {
      kept.push(finding);
      continue;
    }
    used.add(directive);
    suppressed.push(
      suppressionOf(finding, {
        kind: 'inline',
        reason: directive.reason ?? '',
        source: `${directive.file}:${directive.line}`,
        ...(directive.until === null ? {} : { until: directive.until }),
      }),
    );
  }
  if (options.inScope !== undefined) {
    for (const d of valid) {
      if (!used.has(d) && options.inScope(d))
        problems.push({
          directive: d,
          kind: 'unused',
          message: `rloop-ignore ${d.targets.join(',')} matches no finding on this line or the next`,
        });
    }
  }
  return { kept, suppressed, problems };
}
