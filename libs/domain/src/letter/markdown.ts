import type { Finding, Letter } from '@rloop/contracts';

function lines(range: Finding['line_range']): string {
  return range.start === range.end ? `${range.start}` : `${range.start}-${range.end}`;
}

function bulletList(items: readonly string[]): string {
  return items.length === 0 ? '_none_' : items.map((item) => `- ${item}`).join('\n');
}

function renderFinding(finding: Finding, index: number): string {
  const related = finding.related_locations.map((l) => `${l.file}:${lines(l.line_range)} — ${l.note}`);
  return [
    `### ${index + 1}. ${finding.title}`,
    '',
    `| severity | category | type | where | raised by | fingerprint |`,
    `|---|---|---|---|---|---|`,
    `| ${finding.severity} (${finding.score}/10) | ${finding.category} | \`${finding.finding_type}\` | \`${finding.file}:${lines(finding.line_range)}\` | ${finding.raised_by} | \`${finding.fingerprint}\` |`,
    '',
    `**Now:** ${finding.current_behaviour}`,
    '',
    `**Expected:** ${finding.expected_behaviour}`,
    '',
    '**A test should observe:**',
    bulletList(finding.observable_test_conditions),
    '',
    '**A test must not:**',
    bulletList(finding.forbidden_in_test),
    ...(related.length > 0 ? ['', '**Related locations:**', bulletList(related)] : []),
  ].join('\n');
}

/** Renders a letter for people (escalations, `rloop letter --format md`). JSON stays the source. */
export function renderLetterMarkdown(letter: Letter): string {
  const critics = letter.critics.map(
    (c) =>
      `| ${c.critic_id}${c.core ? ' (core)' : ''} | ${c.outcome} | ${c.findings_kept}/${c.findings_total} | ${(c.message ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`,
  );
  return [
    `# Letter ${letter.letter_id}`,
    '',
    `Plan **${letter.plan}**, round ${letter.round}, phase ${letter.phase} (K = ${letter.k ?? '∞'}), commit \`${letter.commit.slice(0, 12)}\`.`,
    '',
    letter.summary,
    '',
    `**Counts:** ${letter.counts.critical} critical, ${letter.counts.medium} medium, ${letter.counts.low} low${letter.complete ? '' : ' — incomplete: a core critic did not report'}.`,
    '',
    '## Critics',
    '',
    '| critic | outcome | kept/total | note |',
    '|---|---|---|---|',
    ...critics,
    '',
    '## Findings',
    '',
    letter.findings.length === 0 ? '_No findings._' : letter.findings.map(renderFinding).join('\n\n'),
    ...(letter.disagreements.length > 0
      ? [
          '',
          '## Disagreements (for people to settle)',
          '',
          ...letter.disagreements.map((d) => `- \`${d.file}:${lines(d.line_range)}\` — ${d.critic_ids.join(' vs ')}: ${d.note}`),
        ]
      : []),
    ...((letter.suppressed ?? []).length > 0
      ? [
          '',
          '## Dismissed by the repository (not to fix)',
          '',
          ...(letter.suppressed ?? []).map((x) => `- \`${x.file}:${x.line}\` \`${x.finding_type}\` (${x.severity}) — ${x.kind} (${x.source}): ${x.reason}${x.until === undefined ? '' : ` (until ${x.until})`}`),
        ]
      : []),
    ...(letter.repo_config !== undefined && (letter.repo_config.excluded_files > 0 || letter.repo_config.overrides.length > 0 || letter.repo_config.refused.length > 0)
      ? [
          '',
          `**Repository configuration** (${letter.repo_config.config ?? 'none'}): ${letter.repo_config.excluded_files} file(s) excluded` +
            `${letter.repo_config.overrides.length > 0 ? `; severity overrides: ${letter.repo_config.overrides.join(', ')}` : ''}` +
            `${letter.repo_config.refused.length > 0 ? `; not applied: ${letter.repo_config.refused.join('; ')}` : ''}.`,
        ]
      : []),
    '',
  ].join('\n');
}
