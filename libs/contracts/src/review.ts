import { z } from 'zod';
import { CriticId, Count, PositiveInt, RepoPath } from './primitives.js';
import { Fingerprint, FindingType, Severity } from './finding.js';

/**
 * How a finding was dismissed: an inline `rloop-ignore` comment, a rule switched off in the
 * repository's `.rloop.yaml`, or an entry of a baseline file (`rloop review --baseline`).
 */
export const SUPPRESSION_KINDS = ['inline', 'config', 'baseline'] as const;
export const SuppressionKind = z.enum(SUPPRESSION_KINDS);
export type SuppressionKind = z.infer<typeof SuppressionKind>;

/** A calendar day, YYYY-MM-DD. */
export const IsoDate = z.iso.date();

/** A finding that was dismissed rather than fixed: kept in reports and letters so it stays visible. */
export const Suppression = z
  .object({
    fingerprint: Fingerprint,
    finding_type: FindingType,
    raised_by: CriticId,
    severity: Severity,
    file: RepoPath,
    line: PositiveInt,
    title: z.string().min(1).max(300),
    kind: SuppressionKind,
    /** Why, in the words of whoever dismissed it (the comment's reason, the config key). */
    reason: z.string().min(1).max(1000),
    /** Where the dismissal is written: `src/a.ts:12`, `.rloop.yaml rules.eslint/no-console`, `rloop-baseline.json`. */
    source: z.string().min(1).max(300),
    /** The day an inline suppression stops applying (`until=YYYY-MM-DD`). */
    until: IsoDate.optional(),
  })
  .meta({
    id: 'Suppression',
    description:
      'A finding dismissed by the repository (inline comment, .rloop.yaml rule, baseline) rather than fixed.',
  });
export type Suppression = z.infer<typeof Suppression>;

/** What the reviewed repository's own configuration changed in a review, within the operator's policy. */
export const RepoConfigEffect = z
  .object({
    /** The configuration file that was read (`.rloop.yaml`), or null when the repository has none. */
    config: z.string().max(300).nullable(),
    /** Files left out by the repository's `exclude` globs, `.rloopignore` and size bound. */
    excluded_files: Count,
    /** Severity overrides that changed findings, e.g. `eslint/prefer-const → low (3 findings)`. */
    overrides: z.array(z.string().max(300)).max(100),
    /** What the repository asked for that the operator's policy did not allow, and why. */
    refused: z.array(z.string().max(500)).max(100),
  })
  .meta({
    id: 'RepoConfigEffect',
    description: "What a repository's .rloop.yaml and .rloopignore changed in a review, within the operator's policy.",
  });
export type RepoConfigEffect = z.infer<typeof RepoConfigEffect>;

/** A rule's level in `.rloop.yaml`: one of the loop's tiers, or `off`. */
export const RULE_LEVELS = ['critical', 'medium', 'low', 'off'] as const;
export const RuleLevel = z.enum(RULE_LEVELS);
export type RuleLevel = z.infer<typeof RuleLevel>;

/** A rule selector: a finding type (`eslint/prefer-const`) or a glob over them (`eslint/*`). */
const RuleSelector = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9@*][A-Za-z0-9@/._:+*-]*$/,
    'must be a rule id such as eslint/prefer-const, or a glob such as eslint/*',
  );

/**
 * A repository's `.rloop.yaml`: how `rloop review` (and the fleet, as far as the operator allows)
 * reviews it. Every key is optional; unknown keys are errors, so a typo never goes unnoticed.
 */
export const RepoConfig = z
  .strictObject({
    /** Critics switched on or off by id, e.g. `toolchain/dependency-audit: off`. */
    critics: z.record(CriticId, z.union([z.boolean(), z.enum(['on', 'off'])])).optional(),
    /** Per-rule severity: one of the tiers, or `off` to dismiss the rule's findings. */
    rules: z.record(RuleSelector, RuleLevel).optional(),
    /** Globs (relative to the repository root) of files never reviewed; `!glob` keeps a file back in. */
    exclude: z.array(z.string().min(1).max(500)).max(500).optional(),
    /** Files larger than this many bytes are not reviewed (generated code, data dumps). */
    max_file_bytes: z.int().min(1).max(100_000_000).optional(),
    /** The LLM critics' model (it must be in the operator's model catalogue). */
    llm: z.strictObject({ model: z.string().min(1).max(100) }).optional(),
  })
  .meta({
    id: 'RepoConfig',
    title: '.rloop.yaml',
    description: "A repository's review configuration for rloop review and the Refinement Loop fleet.",
  });
export type RepoConfig = z.infer<typeof RepoConfig>;
