import { z } from 'zod';
import { Count, CriticId, EventId, GitSha, PositiveInt, RepoPath, Slug, Timestamp } from './primitives.js';
import { Finding, LineRange, Phase } from './finding.js';
import { RepoConfigEffect, Suppression } from './review.js';

export const CRITIC_OUTCOMES = ['reported', 'failed', 'timed_out'] as const;
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
export const Letter = z.object({
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
  /** True when every core critic reported; an incomplete letter can never end a phase. */
  complete: z.boolean(),
  disagreements: z.array(Disagreement).default([]),
  /** Findings the repository dismissed (inline suppressions, rules switched off, a baseline): visible, not gone. Absent: none. */
  suppressed: z.array(Suppression).optional(),
  /** What the repository's .rloop.yaml and .rloopignore changed, when the review read them. */
  repo_config: RepoConfigEffect.optional(),
  summary: z.string().min(1).max(10_000),
}).meta({ id: 'Letter', description: 'The round\'s ranked JSON letter.' });
export type Letter = z.infer<typeof Letter>;
