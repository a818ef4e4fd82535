import { z } from 'zod';
import { CriticId, PositiveInt, RepoPath } from './primitives.js';

/** Severity tiers; each maps to the phase that handles it (spec Decision 8: every warning is critical). */
export const SEVERITIES = ['critical', 'medium', 'low'] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

/** Phases run in this order; the final sweep looks at every severity at once. */
export const PHASES = ['critical', 'medium', 'low', 'final_sweep'] as const;
export const Phase = z.enum(PHASES);
export type Phase = z.infer<typeof Phase>;

/** Categories in ranking order: the synthesizer puts Security first and Consistency last. */
export const CATEGORIES = [
  'security',
  'correctness',
  'maintainability',
  'performance',
  'readability',
  'consistency',
] as const;
export const Category = z.enum(CATEGORIES);
export type Category = z.infer<typeof Category>;

/**
 * Numeric score bands (1-10, from the review-loop peer) that each severity must fall in, so the
 * trend heuristics have a number to work with and the tier and the number never disagree.
 */
export const SCORE_BANDS = {
  critical: { min: 7, max: 10 },
  medium: { min: 4, max: 6 },
  low: { min: 1, max: 3 },
} as const satisfies Record<Severity, { min: number; max: number }>;

export const LineRange = z
  .object({ start: PositiveInt, end: PositiveInt })
  .refine((r) => r.end >= r.start, { error: 'end must be at or after start', path: ['end'] })
  .meta({ id: 'LineRange' });
export type LineRange = z.infer<typeof LineRange>;

/**
 * What mends a finding without judgement: ESLint's own fix, one of rloop's codemods, or nothing
 * deterministic (a person, the anthropic strategy or a coding agent has to). The autofix strategy
 * applies `eslint` and `codemod` and spends no attempt on `none`.
 */
export const AUTOFIX_KINDS = ['eslint', 'codemod', 'none'] as const;
export const AutofixKind = z.enum(AUTOFIX_KINDS);
export type AutofixKind = z.infer<typeof AutofixKind>;

export const Fingerprint = z.string().regex(/^[0-9a-f]{12}$/, 'must be 12 lowercase hex characters');

export const FindingType = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9@][A-Za-z0-9@/._:+-]*$/, 'must be a rule-like identifier such as eslint/no-unused-vars');

/** One finding, with the fields the spec's letter format names. */
export const Finding = z
  .object({
    id: z.string().min(1).max(128),
    fingerprint: Fingerprint,
    /** Identity that survives line shifts: a hash of the normalised flagged lines (like primaryLocationLineHash). */
    location_hash: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .optional(),
    severity: Severity,
    score: z.int().min(1).max(10),
    category: Category,
    finding_type: FindingType,
    file: RepoPath,
    line_range: LineRange,
    /** Column of the first flagged character on line_range.start (1-based), when the tool knows it. */
    column: PositiveInt.optional(),
    /** Column just after the last flagged character on line_range.end (1-based, exclusive), when known. */
    end_column: PositiveInt.optional(),
    /**
     * The tool's own level for this finding, in its own words (ESLint `error`/`warning`, an
     * advisory's `high`, a SARIF `note`), shown beside the loop's tier; absent for our own rules.
     */
    tool_severity: z.string().min(1).max(40).optional(),
    title: z.string().min(1).max(300),
    current_behaviour: z.string().min(1).max(4000),
    expected_behaviour: z.string().min(1).max(4000),
    observable_test_conditions: z.array(z.string().min(1).max(1000)).max(20),
    forbidden_in_test: z.array(z.string().min(1).max(1000)).max(20),
    raised_by: CriticId,
    related_findings: z.array(z.string().min(1).max(128)).max(50),
    /** Whether a machine fix (e.g. ESLint's --fix) is known to exist. */
    fixable: z.boolean().default(false),
    /** Which deterministic fix applies; absent when the critic does not know (LLM and analysis critics). */
    autofix: AutofixKind.optional(),
    /** The codemod that applies, or why no rewrite is safe (`none`). */
    autofix_note: z.string().min(1).max(500).optional(),
    /** Further locations that belong to the finding (the other copy of a duplicate, a taint source). */
    related_locations: z
      .array(z.object({ file: RepoPath, line_range: LineRange, note: z.string().max(500) }))
      .max(20)
      .default([]),
  })
  .refine((f) => f.score >= SCORE_BANDS[f.severity].min && f.score <= SCORE_BANDS[f.severity].max, {
    error: 'score must lie in the band of its severity (critical 7-10, medium 4-6, low 1-3)',
    path: ['score'],
  })
  .meta({ id: 'Finding', description: "One finding of one critic, with the fields of the spec's letter format." });
export type Finding = z.infer<typeof Finding>;
export type FindingInput = z.input<typeof Finding>;
