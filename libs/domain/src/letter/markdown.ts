import type { Finding, Letter, LetterCritic } from '@rloop/contracts';
import { maskSecrets } from '../secrets/mask.js';
import { describeSkip, isCoverageGap } from '../synthesis/coverage.js';
import { mdCell, mdCode, mdText } from '../text/escape.js';

// Every string of a letter came from a repository (file names), a critic or a model: each is
// escaped for the place it goes (see text/escape.ts), and the whole is masked for secrets.

function lines(range: Finding['line_range']): string {
  return range.start === range.end ? `${range.start}` : `${range.start}-${range.end}`;
}

function bulletList(items: readonly string[]): string {
  return items.length === 0 ? '_none_' : items.map((item) => `- ${item}`).join('\n');
}

/** What mends the finding without judgement, in words: who acts on it. */
function autofixLine(finding: Finding): string[] {
  if (finding.autofix === undefined) return [];
  const note = finding.autofix_note === undefined ? '' : ` — ${mdText(finding.autofix_note)}`;
  const what = {
    eslint: "ESLint's fix (the autofix strategy applies it)",
    codemod: 'a codemod (the autofix strategy applies it)',
    none: 'none: a person, the anthropic strategy or a coding agent must decide',
  }[finding.autofix];
  return ['', `**Deterministic fix:** ${what}${note}`];
}

function renderFinding(finding: Finding, index: number): string {
  const related = finding.related_locations.map(
    (l) => `${mdCode(`${l.file}:${lines(l.line_range)}`)} — ${mdText(l.note)}`,
  );
  return [
    `### ${index + 1}. ${mdText(finding.title)}`,
    '',
    `| severity | category | type | where | raised by | fingerprint |`,
    `|---|---|---|---|---|---|`,
    `| ${finding.severity} (${finding.score}/10) | ${finding.category} | ${mdCode(finding.finding_type, { inTable: true })} | ${mdCode(`${finding.file}:${lines(finding.line_range)}`, { inTable: true })} | ${mdCell(finding.raised_by)} | ${mdCode(finding.fingerprint, { inTable: true })} |`,
    '',
    `**Now:** ${mdText(finding.current_behaviour)}`,
    '',
    `**Expected:** ${mdText(finding.expected_behaviour)}`,
    ...autofixLine(finding),
    '',
    '**A test should observe:**',
    bulletList(finding.observable_test_conditions.map(mdText)),
    '',
    '**A test must not:**',
    bulletList(finding.forbidden_in_test.map(mdText)),
    ...(related.length > 0 ? ['', '**Related locations:**', bulletList(related)] : []),
  ].join('\n');
}

/** `analysed/considered` of the files under review, or `—` when the critic did not say. */
function coverageCell(critic: LetterCritic): string {
  const c = critic.coverage;
  if (c === undefined) return '—';
  const notes = [
    c.unsupported > 0 ? `${c.unsupported} not its kind` : '',
    c.skipped_total > 0 ? `${c.skipped_total} skipped` : '',
  ].filter((n) => n !== '');
  return `${c.analysed}/${c.considered}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
}

/** Every skipped file of every critic, gaps (files that keep the round from counting as clean) marked. */
function skippedLines(letter: Letter): string[] {
  return letter.critics.flatMap((critic) => {
    const coverage = critic.coverage;
    if (coverage === undefined) return [];
    const lines = coverage.skipped.map(
      (skip) =>
        `- ${isCoverageGap(skip, coverage) ? '**not reviewed:** ' : ''}${mdCode(critic.critic_id)} — ${mdText(describeSkip(skip))}`,
    );
    const more = coverage.skipped_total - coverage.skipped.length;
    return more > 0 ? [...lines, `- ${mdCode(critic.critic_id)} — and ${more} more`] : lines;
  });
}

/** Renders a letter for people (escalations, `rloop letter --format md`). JSON stays the source. */
export function renderLetterMarkdown(letter: Letter): string {
  const critics = letter.critics.map(
    (c) =>
      `| ${mdCell(c.critic_id)}${c.core ? ' (core)' : ''} | ${c.outcome} | ${c.findings_kept}/${c.findings_total} | ${coverageCell(c)} | ${mdCell(c.message ?? '')} |`,
  );
  const skipped = skippedLines(letter);
  return maskSecrets(
    [
      `# Letter ${mdText(letter.letter_id)}`,
      '',
      `Plan **${letter.plan}**, round ${letter.round}, phase ${letter.phase} (K = ${letter.k ?? '∞'}), commit ${mdCode(letter.commit.slice(0, 12))}.`,
      '',
      mdText(letter.summary),
      '',
      `**Counts:** ${letter.counts.critical} critical, ${letter.counts.medium} medium, ${letter.counts.low} low${letter.complete ? '' : ' — incomplete: a core critic did not report, or files under review were not analysed'}.`,
      '',
      '## Critics',
      '',
      '| critic | outcome | kept/total | files analysed | note |',
      '|---|---|---|---|---|',
      ...critics,
      '',
      ...(skipped.length > 0 ? ['## Files not analysed', '', ...skipped, ''] : []),
      '## Findings',
      '',
      letter.findings.length === 0 ? '_No findings._' : letter.findings.map(renderFinding).join('\n\n'),
      ...(letter.disagreements.length > 0
        ? [
            '',
            '## Disagreements (for people to settle)',
            '',
            ...letter.disagreements.map(
              (d) =>
                `- ${mdCode(`${d.file}:${lines(d.line_range)}`)} — ${d.critic_ids.map(mdText).join(' vs ')}: ${mdText(d.note)}`,
            ),
          ]
        : []),
      ...((letter.suppressed ?? []).length > 0
        ? [
            '',
            '## Dismissed by the repository (not to fix)',
            '',
            ...(letter.suppressed ?? []).map(
              (x) =>
                `- ${mdCode(`${x.file}:${x.line}`)} ${mdCode(x.finding_type)} (${x.severity}) — ${x.kind} (${mdText(x.source)}): ${mdText(x.reason)}${x.until === undefined ? '' : ` (until ${x.until})`}`,
            ),
          ]
        : []),
      ...(letter.repo_config !== undefined &&
      (letter.repo_config.excluded_files > 0 ||
        letter.repo_config.overrides.length > 0 ||
        letter.repo_config.refused.length > 0)
        ? [
            '',
            `**Repository configuration** (${letter.repo_config.config === null ? 'none' : mdCode(letter.repo_config.config)}): ${letter.repo_config.excluded_files} file(s) excluded` +
              `${letter.repo_config.overrides.length > 0 ? `; severity overrides: ${letter.repo_config.overrides.map(mdText).join(', ')}` : ''}` +
              `${letter.repo_config.refused.length > 0 ? `; not applied: ${letter.repo_config.refused.map(mdText).join('; ')}` : ''}.`,
          ]
        : []),
      '',
    ].join('\n'),
  );
}
