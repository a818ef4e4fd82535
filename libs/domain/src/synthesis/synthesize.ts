import type {
  CriticCoverage,
  Finding,
  Letter,
  LetterCritic,
  Phase,
  RepoConfigEffect,
  SeverityCounts,
  Suppression,
} from '@rloop/contracts';
import { phaseIncludes } from '../phases/phases.js';
import { roundCoverageGaps } from './coverage.js';
import { compareFindings, rankFindings } from './ranking.js';
import { type KnownConflict, findDisagreements } from './disagreements.js';

/** What one dispatched critic produced for the round, as the synthesizer sees it. */
export interface CriticReport {
  readonly critic_id: string;
  readonly core: boolean;
  readonly outcome: LetterCritic['outcome'];
  /** Everything the critic reported (empty for a failure). */
  readonly findings: readonly Finding[];
  readonly message?: string;
  /** What the critic covered of the files under review, when it said. */
  readonly coverage?: CriticCoverage;
  /** Findings the repository dismissed (inline suppressions, rules switched off, a baseline). */
  readonly suppressed?: readonly Suppression[];
  /** What the repository's own configuration changed for this critic. */
  readonly repo_config?: RepoConfigEffect;
}

export interface SynthesisInput {
  readonly letter_id: string;
  readonly plan: string;
  readonly run_id: string;
  readonly round: number;
  readonly phase: Phase;
  readonly k: number | null;
  readonly commit: string;
  /** Defaults to `loop`; `single_pass` letters are reviews nobody fixes. */
  readonly mode?: Letter['mode'];
  readonly created_at: string;
  readonly reports: readonly CriticReport[];
  /**
   * Finding types known to ask for opposite changes (config/loop.yaml `critic_disagreement`): two
   * kept findings of such types from different critics on overlapping lines become a
   * `disagreement` of the letter. None given: no disagreements are looked for.
   */
  readonly known_conflicts?: readonly KnownConflict[];
}

function countBySeverity(findings: readonly Finding[]): SeverityCounts {
  const counts = { critical: 0, medium: 0, low: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return counts;
}

/** A key for "the same defect at the same place", whichever critic saw it. */
function placeKey(finding: Finding): string {
  return `${finding.file}\u0000${finding.finding_type}\u0000${finding.line_range.start}\u0000${finding.line_range.end}`;
}

/**
 * Keeps each critic's top-K for the phase, then merges: exact fingerprint duplicates collapse, and
 * two critics flagging the same defect at the same place become one finding that names the other
 * in related_findings. Returns findings in rank order.
 */
function selectFindings(
  reports: readonly CriticReport[],
  phase: Phase,
  k: number | null,
): { kept: Finding[]; keptPerCritic: Map<string, number> } {
  const candidates: Finding[] = [];
  for (const report of reports) {
    const forPhase = rankFindings(report.findings.filter((f) => phaseIncludes(phase, f.severity)));
    candidates.push(...(k === null ? forPhase : forPhase.slice(0, k)));
  }
  const byFingerprint = new Map<string, Finding>();
  const byPlace = new Map<string, Finding>();
  for (const finding of candidates.sort(compareFindings)) {
    if (byFingerprint.has(finding.fingerprint)) continue;
    const twin = byPlace.get(placeKey(finding));
    if (twin !== undefined) {
      const merged = { ...twin, related_findings: [...new Set([...twin.related_findings, finding.id])] };
      byPlace.set(placeKey(finding), merged);
      byFingerprint.set(twin.fingerprint, merged);
      continue;
    }
    byFingerprint.set(finding.fingerprint, finding);
    byPlace.set(placeKey(finding), finding);
  }
  const kept = rankFindings([...byPlace.values()]);
  const keptPerCritic = new Map<string, number>();
  for (const finding of kept) keptPerCritic.set(finding.raised_by, (keptPerCritic.get(finding.raised_by) ?? 0) + 1);
  return { kept, keptPerCritic };
}

const PHASE_LABEL: Readonly<Record<Phase, string>> = {
  critical: 'critical phase',
  medium: 'medium phase',
  low: 'low phase',
  final_sweep: 'final sweep',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The letter's prose summary: what was found, by whom, what did not run, what was not analysed, and what matters most. */
function summarise(
  input: SynthesisInput,
  findings: readonly Finding[],
  critics: readonly LetterCritic[],
  complete: boolean,
  gaps: readonly string[],
  disagreements: number,
): string {
  const reported = critics.filter((c) => c.outcome === 'reported').length;
  const counts = countBySeverity(findings);
  const k = input.k === null ? 'all findings' : `top ${input.k} per critic`;
  const parts = [
    `Round ${input.round} (${PHASE_LABEL[input.phase]}, ${k}): ${plural(findings.length, 'finding')} from ${reported} of ${plural(critics.length, 'critic')}` +
      (findings.length > 0 ? ` — ${counts.critical} critical, ${counts.medium} medium, ${counts.low} low.` : '.'),
  ];
  const suppressed = suppressionsOf(input.reports).length;
  if (suppressed > 0)
    parts.push(`${plural(suppressed, 'finding')} dismissed by the repository (listed under suppressed).`);
  const excluded = repoConfigOf(input.reports)?.excluded_files ?? 0;
  if (excluded > 0)
    parts.push(
      `${plural(excluded, 'file')} excluded by the repository's configuration (not under review, so not counted as unanalysed).`,
    );
  const failed = critics.filter((c) => c.outcome !== 'reported');
  if (failed.length > 0) {
    parts.push(
      `Did not report: ${failed.map((c) => `${c.critic_id} (${c.outcome === 'timed_out' ? 'timed out' : 'failed'}${c.message ? `: ${c.message}` : ''})`).join('; ')}.`,
    );
  }
  if (disagreements > 0) {
    parts.push(
      `${plural(disagreements, 'disagreement')} between critics (listed under disagreements): apply neither side blindly; the same disagreement in the next round goes to people.`,
    );
  }
  if (gaps.length > 0) {
    parts.push(
      `Not analysed: ${gaps.slice(0, 5).join('; ')}${gaps.length > 5 ? `; and ${gaps.length - 5} more` : ''}.`,
    );
  }
  const coreMissing = critics.some((c) => c.core && c.outcome !== 'reported');
  if (!complete) {
    parts.push(
      coreMissing
        ? 'A core critic did not report, so this round cannot count as clean.'
        : 'Files under review were not analysed, so this round cannot count as clean (files skipped as too large stop counting once an operator sets the size bound).',
    );
  }
  const top = findings.slice(0, 3);
  if (top.length > 0) {
    parts.push(
      `Most important: ${top.map((f) => `[${f.category}] ${f.title} (${f.file}:${f.line_range.start})`).join('; ')}.`,
    );
  } else if (complete) {
    parts.push('Nothing to fix for this phase.');
  }
  return parts.join(' ');
}

/** Every report's suppressions, one per fingerprint and kind, in report order. */
function suppressionsOf(reports: readonly CriticReport[]): Suppression[] {
  const seen = new Map<string, Suppression>();
  for (const report of reports)
    for (const s of report.suppressed ?? [])
      if (!seen.has(`${s.fingerprint}:${s.kind}`)) seen.set(`${s.fingerprint}:${s.kind}`, s);
  return [...seen.values()];
}

/** The repository configuration's effect over the round: files excluded (the most any critic saw left out), overrides and refusals. */
function repoConfigOf(reports: readonly CriticReport[]): RepoConfigEffect | undefined {
  const effects = reports.flatMap((r) => (r.repo_config === undefined ? [] : [r.repo_config]));
  const first = effects[0];
  if (first === undefined) return undefined;
  return {
    config: first.config,
    excluded_files: Math.max(...effects.map((e) => e.excluded_files)),
    overrides: [...new Set(effects.flatMap((e) => e.overrides))].slice(0, 100),
    refused: [...new Set(effects.flatMap((e) => e.refused))].slice(0, 100),
  };
}

/**
 * Fuses the critics' reports for one round into the ranked JSON letter (spec Decision 6).
 * Pure: the caller passes the id and the time.
 */
export function synthesizeLetter(input: SynthesisInput): Letter {
  const { kept, keptPerCritic } = selectFindings(input.reports, input.phase, input.k);
  const critics: LetterCritic[] = input.reports.map((report) => ({
    critic_id: report.critic_id,
    core: report.core,
    outcome: report.outcome,
    findings_total: report.findings.length,
    findings_kept: keptPerCritic.get(report.critic_id) ?? 0,
    // A critic's message may be longer than a letter keeps (CriticFailed allows 4000 characters).
    ...(report.message === undefined ? {} : { message: report.message.slice(0, 2000) }),
    ...(report.coverage === undefined ? {} : { coverage: report.coverage }),
  }));
  // A round nobody reviewed proves nothing: it needs at least one report, every core critic's, and
  // no file of the plan left unanalysed (a critic that could not read a file did not review it).
  // Files the repository excluded were never under review: they are counted in repo_config, not here.
  const gaps = roundCoverageGaps(critics).map((gap) => gap.text);
  const complete =
    critics.some((c) => c.outcome === 'reported') &&
    critics.every((c) => !c.core || c.outcome === 'reported') &&
    gaps.length === 0;
  const repoConfig = repoConfigOf(input.reports);
  const disagreements = findDisagreements(kept, input.known_conflicts ?? []);
  return {
    letter_id: input.letter_id,
    plan: input.plan,
    run_id: input.run_id,
    round: input.round,
    phase: input.phase,
    k: input.k,
    commit: input.commit,
    mode: input.mode ?? 'loop',
    created_at: input.created_at,
    critics,
    findings: kept,
    counts: countBySeverity(kept),
    complete,
    disagreements,
    suppressed: suppressionsOf(input.reports),
    ...(repoConfig === undefined ? {} : { repo_config: repoConfig }),
    summary: summarise(input, kept, critics, complete, gaps, disagreements.length),
  };
}
