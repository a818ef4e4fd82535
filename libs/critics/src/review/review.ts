import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Finding, Letter, RepoConfigEffect, Suppression } from '@rloop/contracts';
import {
  type CriticReport,
  DEFAULT_KNOWN_CONFLICTS,
  describeCoverage,
  deterministicId,
  synthesizeLetter,
} from '@rloop/domain';
import type { CriticDefinition } from '../critic.js';
import { ReviewGitError, ReviewTargetNotFoundError } from '../errors.js';
import { draftFinding } from '../plumbing/define.js';
import { finalizeFindings } from '../plumbing/finalize.js';
import { type CriticRunResult, runCritic } from '../plumbing/run-critic.js';
import { CORE_CRITIC_IDS, builtInCritics } from '../registry.js';
import { TOOLCHAIN_CRITIC_IDS } from '../toolchains/table.js';
import { RepoReader } from '../repo/checkout.js';
import { listDirectoryFiles } from '../repo/files.js';
import { applyBaseline, readBaseline } from './baseline.js';
import { changedLinesSince, headCommit, touchesChange } from './diff.js';
import { type ExcludedFile, excludeFiles, selectByGlobs } from './file-selection.js';
import { type RepoPolicy, TRUSTED_REPO_POLICY, applyRepoRules, repoExcludes } from './policy.js';
import { type LoadedRepoConfig, loadRepoConfig } from './repo-config.js';
import { ownerOfTarget } from './rule-owners.js';
import { type DirectiveProblem, type SuppressionDirective, findDirectives } from './suppressions.js';

/** The pseudo-critic that reports suppression comments which do not work (no reason, expired, unused). */
export const SUPPRESSIONS_CRITIC = 'review/suppressions';

export interface ReviewOptions {
  readonly repoDir: string;
  /** Globs selecting the files under review (all files when absent or empty); `!glob` takes files out. */
  readonly files?: readonly string[];
  /** Globs of files never reviewed (`--exclude`), on top of the repository's own. */
  readonly exclude?: readonly string[];
  /** Keep only findings on lines changed since this git ref (new code only). */
  readonly base?: string;
  /** The critics to run (default: every built-in critic). */
  readonly critics?: readonly CriticDefinition[];
  /** Critics that depend on the files under review (LLM critics picked by their triggers), added once those are known. */
  readonly lateCritics?: (files: readonly string[]) => Promise<readonly CriticDefinition[]>;
  /** Where critics keep incremental analysis between reviews. */
  readonly cacheDir?: string;
  /** The time of the review: goes into the letter id and date-dependent rules. */
  readonly now: Date;
  readonly signal?: AbortSignal;
  /** One line per step (critic started, finished, failed), for a progress display. */
  readonly onProgress?: (line: string) => void;
  /** Letter plan slug (default: derived from the directory name). */
  readonly plan?: string;
  /** Critics counted as core (default: the spec's core panel, and each language's toolchain where the review has files of its language, as in the fleet's panel), among the critics that run. */
  readonly core?: readonly string[];
  /** The repository's configuration (default: its .rloop.yaml and .rloopignore, read here); null ignores them. */
  readonly repoConfig?: LoadedRepoConfig | null;
  /** What the repository may change (default: everything: whoever runs `rloop review` owns the repository). */
  readonly policy?: RepoPolicy;
  /** A baseline file: findings it holds are dismissed, so only new ones are reported. */
  readonly baseline?: string;
  /**
   * The size bound the operator chose (files larger are not read, and not counted as gaps). Absent:
   * the default bound, and a file under review skipped as too large makes the review incomplete.
   */
  readonly maxFileBytes?: number;
}

/** What a review produced besides the letter. */
export interface ReviewOutcome {
  readonly letter: Letter;
  readonly runs: readonly CriticRunResult[];
  /** Critics that ran and could not finish: the review is incomplete. */
  readonly failed: readonly CriticRunResult[];
  /** The files reviewed, after globs, excludes and --base: what each critic's coverage counts. */
  readonly files: readonly string[];
  /** Files left out on purpose by excludes, .rloopignore or the repository's size bound, and why: not under review, so never a coverage gap. */
  readonly excluded: readonly ExcludedFile[];
  /** The findings after the repository's rules and comments, before the baseline and --base: what `--write-baseline` records. */
  readonly baselineCandidates: readonly Finding[];
}

function slugOf(dir: string): string {
  const slug = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug === '' ? 'review' : slug;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    // Missing or unreadable: the caller reports it as "not a directory".
    return false;
  }
}

/** A commit-like id for a directory that is not a git checkout: a hash of its reviewed files' contents. */
function contentCommit(files: readonly string[], reader: RepoReader): string {
  const hash = createHash('sha1');
  for (const file of files) hash.update(`${file}\0${reader.hash(file) ?? '-'}\n`);
  return hash.digest('hex');
}

const PROBLEM_TEXT: Readonly<Record<DirectiveProblem['kind'], { type: string; title: string; expected: string }>> = {
  invalid: {
    type: 'rloop/suppression-invalid',
    title: 'Suppression comment does not apply',
    expected:
      'The comment reads `rloop-ignore <rule-or-critic> -- <reason>` (optionally `until=YYYY-MM-DD`), or is removed.',
  },
  expired: {
    type: 'rloop/suppression-expired',
    title: 'Suppression comment has expired',
    expected: 'The finding is fixed and the comment removed, or a new date is agreed and written.',
  },
  unused: {
    type: 'rloop/suppression-unused',
    title: 'Suppression comment matches no finding',
    expected:
      'The comment is removed (the finding it was written for is gone), or moved onto the flagged line or the line before it.',
  },
};

/** Suppression comments that do not work, as findings of their own (so they are seen and fixed). */
function problemFindings(problems: readonly DirectiveProblem[], readFile: (file: string) => string | null): Finding[] {
  const drafts = problems.map((p) =>
    draftFinding({
      severity: p.kind === 'unused' ? 'low' : 'medium',
      category: 'maintainability',
      finding_type: PROBLEM_TEXT[p.kind].type,
      file: p.directive.file,
      line_range: { start: p.directive.line, end: p.directive.line },
      title: `${PROBLEM_TEXT[p.kind].title}: ${p.message}`,
      current_behaviour: `${p.message}${p.kind === 'unused' ? '' : '; the finding it was written for is reported as usual'}.`,
      expected_behaviour: PROBLEM_TEXT[p.kind].expected,
      observable_test_conditions: [
        `rloop review no longer reports ${PROBLEM_TEXT[p.kind].type} at ${p.directive.file}:${p.directive.line}`,
      ],
      forbidden_in_test: [],
    }),
  );
  return finalizeFindings({ id: SUPPRESSIONS_CRITIC }, drafts, readFile);
}

/**
 * The critics a review counts as core, among those that run: `given`, or the spec's core panel and
 * each language's toolchain critic when files of its language are under review (config/critics.yaml's
 * dynamic triggers add them to the fleet's panels the same way; a review without Go files does not
 * hold a Go toolchain to account).
 */
function reviewCore(
  critics: readonly CriticDefinition[],
  files: readonly string[],
  given: readonly string[] | undefined,
): Set<string> {
  const toolchains = TOOLCHAIN_CRITIC_IDS.filter((id) => {
    const critic = critics.find((c) => c.id === id);
    return critic !== undefined && files.some((file) => critic.covers?.(file) === true);
  });
  const ids: readonly string[] = given ?? [...CORE_CRITIC_IDS, ...toolchains];
  return new Set(ids.filter((id) => critics.some((c) => c.id === id)));
}

/**
 * One review pass over a directory (a git checkout or not): every critic on the selected files,
 * every severity, no per-critic limit, fused into one ranked letter. The repository's
 * `.rloop.yaml`, `.rloopignore` and `rloop-ignore` comments apply within `policy`; dismissed
 * findings stay in the letter's `suppressed`, excluded files in `excluded` (they are not under
 * review, so each critic's coverage counts only the files that are). With `base`, only findings on lines changed since
 * that ref are kept. Critics run one after another: they are CPU-bound in this process, so running
 * them together would only interleave them and make their deadlines unfair.
 */
export async function reviewRepositoryWithRuns(options: ReviewOptions): Promise<ReviewOutcome> {
  const repoDir = resolve(options.repoDir);
  if (!isDirectory(repoDir)) throw new ReviewTargetNotFoundError(options.repoDir);
  const progress = options.onProgress ?? ((): void => undefined);
  const policy = options.policy ?? TRUSTED_REPO_POLICY;
  const loaded =
    options.repoConfig === undefined
      ? policy.honour_repo_config
        ? loadRepoConfig(repoDir)
        : null
      : options.repoConfig;
  const source = loaded?.source ?? '.rloop.yaml';
  const config = loaded?.config ?? {};
  const bound = options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes };
  const reader = new RepoReader(repoDir, bound);

  // The directory's own files: its repository's view when it is (a part of) one, else a walk of it.
  const listing = await listDirectoryFiles(repoDir, options.signal);
  if (options.base !== undefined && listing.source === 'walk') {
    throw new ReviewGitError(
      `--base needs a git repository, and ${repoDir} is not a part of one (outside git, or ignored by the repository that holds it)`,
    );
  }
  const selected = selectByGlobs(listing.files, options.files ?? []);
  const repoSide = repoExcludes(config, source, policy);
  const { kept: included, excluded } = excludeFiles(selected, {
    globs: [
      ...(options.exclude === undefined || options.exclude.length === 0
        ? []
        : [{ globs: options.exclude, source: '--exclude' }]),
      ...repoSide.globs,
    ],
    ignoreText: policy.excludes ? (loaded?.ignoreText ?? null) : null,
    ...(repoSide.maxFileBytes === undefined
      ? {}
      : {
          maxFileBytes: repoSide.maxFileBytes,
          maxFileBytesSource: `${source} max_file_bytes`,
          sizeOf: (file: string) => reader.boundary.sizeOf(file),
        }),
  });
  const changed = options.base === undefined ? null : await changedLinesSince(repoDir, options.base, options.signal);
  const files = changed === null ? included : included.filter((file) => changed.has(file));
  const commit = (listing.source === 'git' ? await headCommit(repoDir) : null) ?? contentCommit(files, reader);
  const critics = [
    ...(options.critics ?? builtInCritics({ now: options.now })),
    ...((await options.lateCritics?.(files)) ?? []),
  ];
  const core = reviewCore(critics, files, options.core);
  progress(
    `review: ${files.length} file(s) under review in ${repoDir}${options.base === undefined ? '' : ` (changed since ${options.base})`}` +
      `${excluded.length === 0 ? '' : `, ${excluded.length} excluded`}, ${critics.length} critic(s)`,
  );

  const runs: CriticRunResult[] = [];
  for (const critic of critics) {
    options.signal?.throwIfAborted();
    progress(`review: ${critic.id} …`);
    const run = await runCritic(
      critic,
      {
        repoDir,
        commit,
        files,
        repoFiles: listing.files,
        phase: 'final_sweep',
        now: options.now,
        ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      { core: core.has(critic.id), ...bound },
    );
    runs.push(run);
    const covered = run.coverage === null ? '' : `; ${describeCoverage(run.coverage)}`;
    if (run.status === 'reported')
      progress(
        `review: ${critic.id} reported ${run.findings.length} finding(s) in ${run.duration_ms} ms${covered}${run.notes.length > 0 ? ` (${run.notes.join('; ')})` : ''}`,
      );
    else progress(`review: ${critic.id} did not finish (${run.reason}): ${run.message}`);
  }

  // The repository's rules and comments apply to every finding at once, so a comment that matched
  // nothing anywhere can be told apart from one whose critic did not run.
  const directives: SuppressionDirective[] = files.flatMap((file) => {
    const text = reader.read(file);
    return text === null ? [] : findDirectives(file, text);
  });
  const reported = new Set(runs.filter((r) => r.status === 'reported').map((r) => r.critic_id));
  const ranIds = critics.map((c) => c.id);
  const unfiltered = runs.flatMap((r) => (r.status === 'reported' ? r.findings : []));
  const ruled = applyRepoRules(unfiltered, {
    config,
    source,
    policy,
    directives,
    today: options.now.toISOString().slice(0, 10),
    inScope: (d) =>
      d.targets.every((t) => {
        const owner = ownerOfTarget(t, ranIds);
        return owner !== null && reported.has(owner);
      }),
  });
  const baselineCandidates = [...ruled.findings, ...problemFindings(ruled.problems, (file) => reader.read(file))];
  let findings = baselineCandidates;
  let suppressed: Suppression[] = ruled.suppressed;
  if (options.baseline !== undefined) {
    const base = applyBaseline(findings, readBaseline(options.baseline), options.baseline);
    findings = base.kept;
    suppressed = [...suppressed, ...base.suppressed];
  }
  if (changed !== null) {
    findings = findings.filter((f) => touchesChange(f, changed));
    suppressed = suppressed.filter((s) =>
      touchesChange({ file: s.file, line_range: { start: s.line, end: s.line }, related_locations: [] }, changed),
    );
  }

  const effect: RepoConfigEffect | undefined =
    loaded === null || (loaded.source === null && loaded.ignoreText === null && excluded.length === 0)
      ? undefined
      : {
          config: loaded.source,
          excluded_files: excluded.filter((e) => !e.by.startsWith('--exclude')).length,
          overrides: ruled.overrides.slice(0, 100),
          refused: [...repoSide.refused, ...ruled.refused].slice(0, 100),
        };
  const reports: CriticReport[] = runs.map((run) => {
    const coverage = run.coverage === null ? {} : { coverage: run.coverage };
    if (run.status === 'reported') {
      return {
        critic_id: run.critic_id,
        core: core.has(run.critic_id),
        outcome: 'reported',
        findings: findings.filter((f) => f.raised_by === run.critic_id),
        suppressed: suppressed.filter((s) => s.raised_by === run.critic_id),
        ...(run.notes.length > 0 ? { message: run.notes.join('; ').slice(0, 2000) } : {}),
        ...(effect === undefined ? {} : { repo_config: effect }),
        ...coverage,
      };
    }
    return {
      critic_id: run.critic_id,
      core: core.has(run.critic_id),
      outcome: run.reason === 'timed_out' ? 'timed_out' : 'failed',
      findings: [],
      message: `${run.reason}: ${run.message}`.slice(0, 2000),
      ...coverage,
    };
  });
  const problems = findings.filter((f) => f.raised_by === SUPPRESSIONS_CRITIC);
  if (problems.length > 0)
    reports.push({
      critic_id: SUPPRESSIONS_CRITIC,
      core: false,
      outcome: 'reported',
      findings: problems,
      suppressed: suppressed.filter((s) => s.raised_by === SUPPRESSIONS_CRITIC),
    });

  const createdAt = options.now.toISOString();
  const letter = synthesizeLetter({
    letter_id: deterministicId(
      'review-letter',
      repoDir,
      commit,
      createdAt,
      options.base ?? '',
      (options.files ?? []).join('\n'),
    ),
    plan: options.plan ?? slugOf(repoDir),
    run_id: deterministicId('review-run', repoDir, commit, createdAt),
    round: 1,
    phase: 'final_sweep',
    k: null,
    commit,
    mode: 'single_pass',
    created_at: createdAt,
    reports,
    // One pass, no loop config: the shipped table, so the letter shows where critics disagree.
    known_conflicts: DEFAULT_KNOWN_CONFLICTS,
  });
  const failed = runs.filter((r) => r.status === 'failed');
  return { letter, runs, failed, files, excluded, baselineCandidates };
}

/** One review pass (see reviewRepositoryWithRuns); returns the letter. */
export async function reviewRepository(options: ReviewOptions): Promise<Letter> {
  return (await reviewRepositoryWithRuns(options)).letter;
}
