import type { Finding, Severity } from '@rloop/contracts';
import { type ReviewReport, failsAt, plural, secondLine, shortTitle } from './report.js';
import { escapeControlChars, oneLine, roundCoverageGaps } from '@rloop/domain';
import type { Palette } from './terminal.js';

const TIER_COLOUR: Readonly<Record<Severity, keyof Pick<Palette, 'red' | 'yellow' | 'blue'>>> = {
  critical: 'red',
  medium: 'yellow',
  low: 'blue',
};

function position(f: Finding): string {
  return `${f.line_range.start}:${f.column ?? 1}`;
}

function excerpt(f: Finding, report: ReviewReport, p: Palette, indent: string): string[] {
  const lines = report.readLines?.(f.file) ?? null;
  if (lines === null) return [];
  const last = Math.min(f.line_range.end, f.line_range.start + 2);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = f.line_range.start; n <= last && n <= lines.length; n += 1)
    out.push(`${indent}${p.dim(`${String(n).padStart(width)} |`)} ${escapeControlChars(lines[n - 1] ?? '')}`);
  if (f.line_range.end > last)
    out.push(`${indent}${p.dim(`${' '.repeat(width)} | … ${f.line_range.end - last} more line(s)`)}`);
  return out;
}

/**
 * The terminal report, in the style of ESLint's stylish formatter: findings grouped by file, one
 * line each (`line:col  tier  tool-level  message  rule`), a second line for a taint path or a
 * duplicate's other copy, a code excerpt with --verbose, and a summary.
 */
export function renderStylish(report: ReviewReport, p: Palette): string {
  const { letter } = report;
  const byFile = new Map<string, Finding[]>();
  for (const f of letter.findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  const out: string[] = [];
  for (const file of [...byFile.keys()].sort()) {
    const findings = (byFile.get(file) ?? []).sort(
      (a, b) => a.line_range.start - b.line_range.start || (a.column ?? 1) - (b.column ?? 1),
    );
    out.push(p.underline(oneLine(file)));
    const posWidth = Math.max(...findings.map((f) => position(f).length));
    const toolWidth = Math.max(0, ...findings.map((f) => oneLine(f.tool_severity ?? '').length));
    for (const f of findings) {
      const tier = p[TIER_COLOUR[f.severity]](f.severity.padEnd(8));
      const tool = toolWidth === 0 ? '' : `  ${p.dim(oneLine(f.tool_severity ?? '').padEnd(toolWidth))}`;
      out.push(
        `  ${p.dim(position(f).padStart(posWidth))}  ${tier}${tool}  ${oneLine(shortTitle(f))}  ${p.dim(oneLine(f.finding_type))}`,
      );
      const indent = `  ${' '.repeat(posWidth)}  `;
      const second = secondLine(f);
      if (second !== null) out.push(`${indent}${p.dim(oneLine(second))}`);
      if (report.verbose) out.push(...excerpt(f, report, p, indent));
    }
    out.push('');
  }
  out.push(...summaryLines(report, p));
  return `${out.join('\n')}\n`;
}

/** ESLint's "potentially fixable" line: how many findings a deterministic fix applies to, by kind; null when none. */
function mechanicalFixes(findings: readonly Finding[]): string | null {
  const eslint = findings.filter((f) => f.autofix === 'eslint').length;
  const codemod = findings.filter((f) => f.autofix === 'codemod').length;
  if (eslint + codemod === 0) return null;
  const by = [
    ...(eslint > 0 ? [`${eslint} by \`eslint --fix\``] : []),
    ...(codemod > 0 ? [`${codemod} by rloop's codemods, which the fleet's autofix strategy applies`] : []),
  ];
  return `${plural(eslint + codemod, 'finding')} can be fixed mechanically: ${by.join('; ')}.`;
}

/** The summary under the findings (also printed on stderr by the machine-readable formats). */
export function summaryLines(report: ReviewReport, p: Palette): string[] {
  const { letter } = report;
  const { critical, medium, low } = letter.counts;
  const total = critical + medium + low;
  const failing = letter.findings.filter((f) => failsAt(f, report.failOn)).length;
  const files = new Set(letter.findings.map((f) => f.file)).size;
  const ran = letter.critics.filter((c) => c.outcome === 'reported').length;
  const failed = letter.critics.filter((c) => c.outcome !== 'reported');
  // Files under review a check could not analyse (excluded files are not among them: never under review).
  const gaps = roundCoverageGaps(letter.critics);
  const mark =
    failed.length > 0 || gaps.length > 0
      ? p.red('!')
      : failing > 0
        ? p.red('✖')
        : total > 0
          ? p.yellow('●')
          : p.green('✔');
  const counts =
    total === 0
      ? 'no findings'
      : `${plural(total, 'finding')} (${critical} critical, ${medium} medium, ${low} low) in ${plural(files, 'file')}`;
  const extras = [
    ...((letter.suppressed?.length ?? 0) > 0 ? [`${letter.suppressed?.length ?? 0} suppressed`] : []),
    ...(report.filesReviewed === undefined ? [] : [`${plural(report.filesReviewed, 'file')} reviewed`]),
    ...(report.filesExcluded !== undefined && report.filesExcluded > 0 ? [`${report.filesExcluded} excluded`] : []),
    `${plural(ran, 'check')}${failed.length > 0 ? `, ${failed.length} did not finish` : ''}`,
    ...(report.durationMs === undefined ? [] : [`${(report.durationMs / 1000).toFixed(1)} s`]),
  ];
  const lines = [`${mark} ${p.bold(counts)}${p.dim(` · ${extras.join(' · ')}`)}`];
  for (const c of failed)
    lines.push(
      `  ${p.red(`${oneLine(c.critic_id)} did not finish`)}${c.message === undefined ? '' : `: ${oneLine(c.message)}`}`,
    );
  for (const gap of gaps.slice(0, 5)) lines.push(`  ${p.red('not analysed')}: ${oneLine(gap.text)}`);
  if (gaps.length > 5) lines.push(`  ${p.red('not analysed')}: and ${gaps.length - 5} more`);
  if (report.failOn !== 'none') {
    lines.push(
      p.dim(
        `  ${failing > 0 ? `${plural(failing, 'finding')} at ${report.failOn} or above fail the review` : `Nothing at ${report.failOn} or above`} (--fail-on ${report.failOn}).`,
      ),
    );
  }
  if (total > 0)
    lines.push(
      p.dim(
        '  Each finding shows its tier, then the tool’s own level; tool warnings rank as critical, since a review is clean only at zero warnings.',
      ),
    );
  const fixes = mechanicalFixes(letter.findings);
  if (fixes !== null) lines.push(p.dim(`  ${fixes}`));
  for (const note of report.notes) lines.push(p.dim(`  ${oneLine(note)}`));
  return lines;
}
