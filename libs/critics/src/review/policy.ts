import picomatch from 'picomatch';
import { z } from 'zod';
import {
  CriticId,
  type Finding,
  type RepoConfig,
  type RuleLevel,
  SCORE_BANDS,
  type Severity,
  type Suppression,
} from '@rloop/contracts';
import { criticSwitchedOff } from './repo-config.js';
import type { ExcludeGlobs } from './file-selection.js';
import {
  type DirectiveProblem,
  type SuppressionDirective,
  applyInlineSuppressions,
  suppressionOf,
} from './suppressions.js';

/**
 * What the operator lets a reviewed repository change through its `.rloop.yaml`,
 * `.rloopignore` and `rloop-ignore` comments (config/repo-policy.yaml in the fleet). The
 * repository is untrusted input: whatever it changes is journaled, and whatever it asks for beyond
 * this policy is refused and said so in the letter.
 */
export const RepoPolicy = z
  .strictObject({
    /** Read the repository's .rloop.yaml and .rloopignore at all. */
    honour_repo_config: z.boolean().default(true),
    /** Its `exclude` globs, `.rloopignore` and `max_file_bytes` may leave files out. */
    excludes: z.boolean().default(true),
    /** Its `rloop-ignore` comments may dismiss findings. */
    inline_suppressions: z.boolean().default(true),
    /** Its `rules:` may change severities: `any`, only upwards (`raise_only`), or not at all (`none`); `off` counts as lowering. */
    severity_overrides: z.enum(['any', 'raise_only', 'none']).default('raise_only'),
    /** Critics it may switch off (never a core critic: a core critic that does not run keeps every round incomplete). */
    critics_off: z.array(CriticId).default([]),
    /** Its `llm.model` may choose the LLM critics' model. */
    llm_model: z.boolean().default(false),
  })
  .meta({ id: 'RepoPolicy' });
export type RepoPolicy = z.infer<typeof RepoPolicy>;

/** The policy of `rloop review`, where whoever runs the review owns the repository: everything is honoured. */
export const TRUSTED_REPO_POLICY: RepoPolicy = Object.freeze({
  honour_repo_config: true,
  excludes: true,
  inline_suppressions: true,
  severity_overrides: 'any',
  critics_off: [],
  llm_model: true,
});

const RANK: Readonly<Record<Severity, number>> = { critical: 3, medium: 2, low: 1 };
const DEFAULT_SCORE: Readonly<Record<Severity, number>> = { critical: 8, medium: 5, low: 2 };

/** The `rules:` entry that applies to a rule: an exact key wins over globs; among globs, the first written. */
export function ruleLevelFor(
  config: RepoConfig,
  findingType: string,
): { readonly key: string; readonly level: RuleLevel } | null {
  const rules = config.rules ?? {};
  const exact = rules[findingType];
  if (exact !== undefined) return { key: findingType, level: exact };
  for (const [key, level] of Object.entries(rules))
    if (/[*?[{]/.test(key) && picomatch.isMatch(findingType, key)) return { key, level };
  return null;
}

/** The exclude globs the policy lets the repository apply, and what it refused. */
export function repoExcludes(
  config: RepoConfig,
  source: string,
  policy: RepoPolicy,
): { readonly globs: ExcludeGlobs[]; readonly maxFileBytes: number | undefined; readonly refused: string[] } {
  const asked = (config.exclude?.length ?? 0) > 0 || config.max_file_bytes !== undefined;
  if (!policy.excludes)
    return {
      globs: [],
      maxFileBytes: undefined,
      refused: asked
        ? [`${source} exclude/max_file_bytes: the operator's policy does not let a repository leave files out`]
        : [],
    };
  return {
    globs: config.exclude === undefined ? [] : [{ globs: config.exclude, source: `${source} exclude` }],
    maxFileBytes: config.max_file_bytes,
    refused: [],
  };
}

/**
 * The critics the repository switches off, split into those the policy allows and refusals.
 * `core` critics are never switched off by a repository.
 */
export function repoCriticsOff(
  config: RepoConfig,
  source: string,
  policy: RepoPolicy,
  core: ReadonlySet<string>,
  trusted: boolean,
): { readonly off: string[]; readonly refused: string[] } {
  const off: string[] = [];
  const refused: string[] = [];
  for (const id of Object.keys(config.critics ?? {})) {
    if (!criticSwitchedOff(config, id)) continue;
    if (trusted || (policy.critics_off.includes(id) && !core.has(id))) off.push(id);
    else
      refused.push(
        `${source} critics.${id}: off — ${core.has(id) ? 'a core critic always runs' : "the operator's policy does not let a repository switch it off"}`,
      );
  }
  return { off, refused };
}

export interface RepoRulesInput {
  readonly config: RepoConfig;
  /** The config file's name for messages (`.rloop.yaml`). */
  readonly source: string;
  readonly policy: RepoPolicy;
  readonly directives: readonly SuppressionDirective[];
  /** YYYY-MM-DD: suppressions `until` an earlier day no longer apply. */
  readonly today: string;
  /** Whether a directive that matched nothing should be reported (its targets were reviewed). */
  readonly inScope?: (directive: SuppressionDirective) => boolean;
}

export interface RepoRulesResult {
  readonly findings: Finding[];
  readonly suppressed: Suppression[];
  readonly problems: DirectiveProblem[];
  /** Severity overrides that changed findings, e.g. `eslint/prefer-const → low (3 findings)`. */
  readonly overrides: string[];
  readonly refused: string[];
}

/**
 * Applies the repository's `rules:` and `rloop-ignore` comments to findings, within the policy
 * (pure): severities move to the configured tier (the tool's own level stays on the finding),
 * `off` and inline suppressions dismiss findings into `suppressed` (never dropped), and whatever
 * the policy does not allow is refused and listed.
 */
export function applyRepoRules(findings: readonly Finding[], input: RepoRulesInput): RepoRulesResult {
  const { config, source, policy } = input;
  const kept: Finding[] = [];
  const suppressed: Suppression[] = [];
  const changed = new Map<string, number>();
  const refused = new Set<string>();
  for (const finding of findings) {
    const rule = ruleLevelFor(config, finding.finding_type);
    if (rule === null) {
      kept.push(finding);
      continue;
    }
    const lowering = rule.level === 'off' || RANK[rule.level] < RANK[finding.severity];
    const allowed = policy.severity_overrides === 'any' || (policy.severity_overrides === 'raise_only' && !lowering);
    if (!allowed) {
      refused.add(
        `${source} rules.${rule.key}: ${rule.level} — the operator's policy ${policy.severity_overrides === 'none' ? 'does not let a repository change severities' : 'lets a repository only raise severities'}`,
      );
      kept.push(finding);
      continue;
    }
    if (rule.level === 'off') {
      suppressed.push(
        suppressionOf(finding, {
          kind: 'config',
          reason: `rule ${rule.key} is off in ${source}`,
          source: `${source} rules.${rule.key}`,
        }),
      );
      continue;
    }
    if (rule.level === finding.severity) {
      kept.push(finding);
      continue;
    }
    const band = SCORE_BANDS[rule.level];
    const score = finding.score >= band.min && finding.score <= band.max ? finding.score : DEFAULT_SCORE[rule.level];
    kept.push({ ...finding, severity: rule.level, score });
    const label = `${rule.key} → ${rule.level}`;
    changed.set(label, (changed.get(label) ?? 0) + 1);
  }
  let result = { kept, suppressed: [] as Suppression[], problems: [] as DirectiveProblem[] };
  if (policy.inline_suppressions) {
    result = applyInlineSuppressions(kept, input.directives, {
      today: input.today,
      ...(input.inScope === undefined ? {} : { inScope: input.inScope }),
    });
  } else if (input.directives.length > 0) {
    refused.add(
      `${input.directives.length} rloop-ignore comment(s): the operator's policy does not let a repository dismiss findings inline`,
    );
  }
  return {
    findings: result.kept,
    suppressed: [...suppressed, ...result.suppressed],
    problems: result.problems,
    overrides: [...changed].map(([label, n]) => `${label} (${n} finding${n === 1 ? '' : 's'})`),
    refused: [...refused],
  };
}
