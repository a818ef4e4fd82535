import { z } from 'zod';
import { Count, CriticId, EventId, GitSha, PositiveInt, RepoPath, Slug, Timestamp } from './primitives.js';
import { Finding, LineRange, Phase } from './finding.js';
import { RepoConfigEffect, Suppression } from './review.js';

export const CRITIC_OUTCOMES = ['reported', 'failed', 'timed_out'] as const;

/**
 * Why a critic did not analyse a file under review. `not_read` (the critic supports the file but
 * never looked at it), `unreadable`, `parse_error`, `binary` and `too_large` leave part of the plan
 * unreviewed; `generated`, `outside_checkout` (a symbolic link leaving the checkout: its target is
 * never read) and `missing` (not a regular file at this commit) do not.
 */
export const COVERAGE_SKIP_REASONS = [
  'not_read',
  'unreadable',
  'parse_error',
  'binary',
  'too_large',
  'generated',
  'outside_checkout',
  'missing',
] as const;
export const CoverageSkipReason = z.enum(COVERAGE_SKIP_REASONS);
export type CoverageSkipReason = z.infer<typeof CoverageSkipReason>;

/** At most this many skipped files are listed in a coverage report (all are counted). */
export const MAX_LISTED_SKIPS = 100;

export const SkippedFile = z.object({
  file: RepoPath,
  reason: CoverageSkipReason,
  detail: z.string().max(300).optional(),
});
export type SkippedFile = z.infer<typeof SkippedFile>;

/**
 * What a critic covered of the files under review: `considered` = `analysed` + `unsupported`
 * (not a language or kind of file it reviews) + `skipped_total` (files it supports but did not
 * analyse, listed in `skipped` with the reason, gaps first, up to MAX_LISTED_SKIPS).
 */
export const CriticCoverage = z
  .object({
    considered: Count,
    analysed: Count,
    unsupported: Count,
    skipped: z.array(SkippedFile).max(MAX_LISTED_SKIPS),
    skipped_total: Count,
    /** Files larger than this were not read (reported as `too_large`). */
    max_file_bytes: PositiveInt,
    /** The operator chose the bound: files skipped as too large then do not keep a round from counting as clean. */
    max_file_bytes_configured: z.boolean(),
  })
  .refine((c) => c.considered === c.analysed + c.unsupported + c.skipped_total && c.skipped.length <= c.skipped_total, {
    error: 'considered must equal analysed + unsupported + skipped_total, and at most skipped_total files are listed',
  })
  .meta({ id: 'CriticCoverage' });
export type CriticCoverage = z.infer<typeof CriticCoverage>;
export const CriticOutcome = z.enum(CRITIC_OUTCOMES);

/** What one dispatched critic contributed to a letter. */
export const LetterCritic = z.object({
  critic_id: CriticId,
  core: z.boolean(),
  outcome: CriticOutcome,
  /** Findings the critic reported for the round, before the top-K cut. */
  findings_total: Count,
  /** Findings of this critic that made it into the letter. */
  findings_kept: Count,
  message: z.string().max(2000).optional(),
  /** What the critic covered of the files under review (absent when it did not say). */
  coverage: CriticCoverage.optional(),
});
export type LetterCritic = z.infer<typeof LetterCritic>;

/** Two critics asking for conflicting changes on one region: surfaced to people, never auto-resolved. */
export const Disagreement = z.object({
  file: RepoPath,
  line_range: LineRange,
  finding_ids: z.array(z.string()).min(2),
  critic_ids: z.array(CriticId).min(2),
  note: z.string().max(2000),
});
export type Disagreement = z.infer<typeof Disagreement>;

export const SeverityCounts = z.object({ critical: Count, medium: Count, low: Count });
export type SeverityCounts = z.infer<typeof SeverityCounts>;

/** The round's single ranked JSON letter (spec Decision 6). Markdown is rendered from it on demand. */
export const Letter = z
  .object({
    letter_id: EventId,
    plan: Slug,
    run_id: EventId,
    round: PositiveInt,
    phase: Phase,
    /** Top-K per critic for the phase; null means unlimited (the final sweep). */
    k: PositiveInt.nullable(),
    commit: GitSha,
    /** `single_pass` letters are reviews only: nobody fixes them. */
    mode: z.enum(['loop', 'single_pass']).default('loop'),
    created_at: Timestamp,
    critics: z.array(LetterCritic),
    /** Deduplicated and ranked: severity, then Security > Correctness > … > Consistency, then score. */
    findings: z.array(Finding),
    counts: SeverityCounts,
    /**
     * True when every core critic reported and no critic left a file under review unanalysed for a
     * reason that is a gap (see COVERAGE_SKIP_REASONS); an incomplete letter can never end a phase.
     */
    complete: z.boolean(),
    disagreements: z.array(Disagreement).default([]),
    /** Findings the repository dismissed (inline suppressions, rules switched off, a baseline): visible, not gone. Absent: none. */
    suppressed: z.array(Suppression).optional(),
    /** What the repository's .rloop.yaml and .rloopignore changed, when the review read them. */
    repo_config: RepoConfigEffect.optional(),
    summary: z.string().min(1).max(10_000),
  })
  .meta({ id: 'Letter', description: "The round's ranked JSON letter." });
export type Letter = z.infer<typeof Letter>;
