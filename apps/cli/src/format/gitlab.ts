import type { Severity } from '@rloop/contracts';
import { type ReviewReport, shortTitle } from './report.js';

const GITLAB_SEVERITY: Readonly<Record<Severity, string>> = { critical: 'critical', medium: 'major', low: 'minor' };

/**
 * GitLab's code quality report (the `codequality` artifact of a merge request): one issue per
 * finding with a description, a check name, a unique fingerprint, a severity and the file and
 * first line.
 */
export function renderGitlabCodeQuality(report: ReviewReport): string {
  const issues = report.letter.findings.map((f) => ({
    description: `${shortTitle(f)}${f.tool_severity === undefined ? '' : ` (${f.tool_severity})`}`,
    check_name: f.finding_type,
    fingerprint: f.location_hash ?? f.fingerprint,
    severity: GITLAB_SEVERITY[f.severity],
    location: { path: f.file, lines: { begin: f.line_range.start, end: f.line_range.end } },
  }));
  return `${JSON.stringify(issues, null, 2)}\n`;
}
