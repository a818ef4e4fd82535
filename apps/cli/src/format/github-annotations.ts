import type { Finding, Severity } from '@rloop/contracts';
import { type ReviewReport, lineSpan, shortTitle } from './report.js';

const COMMAND: Readonly<Record<Severity, string>> = { critical: 'error', medium: 'warning', low: 'notice' };

/** Escapes a workflow command's message: `%`, CR and LF would otherwise end the command or start another. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow command property value, where `:` and `,` are delimiters as well. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function annotation(f: Finding): string {
  const properties = [
    `file=${escapeProperty(f.file)}`,
    `line=${f.line_range.start}`,
    `endLine=${f.line_range.end}`,
    ...(f.column === undefined ? [] : [`col=${f.column}`]),
    ...(f.column !== undefined && f.end_column !== undefined && f.line_range.start === f.line_range.end
      ? [`endColumn=${f.end_column}`]
      : []),
    `title=${escapeProperty(`${f.finding_type} (${f.severity}${f.tool_severity === undefined ? '' : `, ${f.tool_severity}`})`)}`,
  ];
  const related = f.related_locations.slice(0, 3).map((l) => `${l.note} (${l.file}:${lineSpan(l.line_range)})`);
  const message = [
    shortTitle(f),
    f.expected_behaviour,
    ...(related.length === 0 ? [] : [`Related: ${related.join('; ')}`]),
  ].join('\n');
  return `::${COMMAND[f.severity]} ${properties.join(',')}::${escapeData(message)}`;
}

/**
 * GitHub Actions workflow commands, one annotation per finding (critical → error, medium →
 * warning, low → notice): run in a workflow step, the findings show on the pull request's changed
 * files. A notice per critic that did not finish says the review is incomplete.
 */
export function renderGithubAnnotations(report: ReviewReport): string {
  const lines = report.letter.findings.map(annotation);
  for (const c of report.letter.critics.filter((x) => x.outcome !== 'reported')) {
    lines.push(
      `::error title=${escapeProperty(`rloop: ${c.critic_id} did not finish`)}::${escapeData(c.message ?? 'the review is incomplete')}`,
    );
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
