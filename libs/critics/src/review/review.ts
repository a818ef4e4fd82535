import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Letter } from '@rloop/contracts';
import { type CriticReport, deterministicId, describeCoverage, synthesizeLetter } from '@rloop/domain';
import type { CriticDefinition } from '../critic.js';
import { ReviewGitError, ReviewTargetNotFoundError } from '../errors.js';
import { type CriticRunResult, runCritic } from '../plumbing/run-critic.js';
import { CORE_CRITIC_IDS, builtInCritics } from '../registry.js';
import { TOOLCHAIN_CRITIC_IDS } from '../toolchains/table.js';
import { RepoReader } from '../repo/checkout.js';
import { filterByGlobs, listDirectoryFiles } from '../repo/files.js';
import { changedLinesSince, headCommit, touchesChange } from './diff.js';

export interface ReviewOptions {
  readonly repoDir: string;
  /** Globs selecting the files under review (all files when absent or empty). */
  readonly files?: readonly string[];
  /** Keep only findings on lines changed since this git ref (new code only). */
  readonly base?: string;
  /** The critics to run (default: every built-in critic). */
  readonly critics?: readonly CriticDefinition[];
  /** Where critics keep incremental analysis between reviews. */
  readonly cacheDir?: string;
  /** The time of the review: goes into the letter id and date-dependent rules. */
  readonly now: Date;
  readonly signal?: AbortSignal;
  /** One line per step (critic started, finished, failed), for a progress display. */
  readonly onProgress?: (line: string) => void;
  /** Letter plan slug (default: derived from the directory name). */
  readonly plan?: string;
  /** Critics counted as core (default: the spec's core panel, and each language's toolchain, core where the review has its files as in the fleet's panel). */
  readonly core?: readonly string[];
  /**
   * The size bound the operator chose (files larger are not read). Absent: the default bound, and
   * a reviewed file skipped as too large makes the review incomplete.
   */
  readonly maxFileBytes?: number;
}

/** What a review produced besides the letter: each critic's raw run result. */
export interface ReviewOutcome {
  readonly letter: Letter;
  readonly runs: readonly CriticRunResult[];
  /** Critics that could not run for a reason other than "not configured". */
  readonly failed: readonly CriticRunResult[];
}

const LLM_CRITIC = 'quality/code-reviewer';

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

/**
 * One review pass over a directory (a git checkout or not): every critic on the selected files,
 * every severity, K = ∞, phase final_sweep, fused into one ranked letter. With `base`, only
 * findings on lines changed since that ref are kept. Critics run one after another: they are
 * CPU-bound in this process, so running them together would only interleave them and make their
 * deadlines unfair (the critic-runner service runs them in parallel processes).
 */
export async function reviewRepositoryWithRuns(options: ReviewOptions): Promise<ReviewOutcome> {
  const repoDir = resolve(options.repoDir);
  if (!isDirectory(repoDir)) throw new ReviewTargetNotFoundError(options.repoDir);
  const progress = options.onProgress ?? ((): void => undefined);
  const reader = new RepoReader(repoDir, options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes });
  // The directory's own files: its repository's view when it is (a part of) one, else a walk of it.
  const listing = await listDirectoryFiles(repoDir, options.signal);
  if (options.base !== undefined && listing.source === 'walk') {
    throw new ReviewGitError(`--base needs a git repository, and ${repoDir} is not a part of one (outside git, or ignored by the repository that holds it)`);
  }
  let files = filterByGlobs(listing.files, options.files ?? []);
  const changed = options.base === undefined ? null : await changedLinesSince(repoDir, options.base, options.signal);
  if (changed !== null) files = files.filter((file) => changed.has(file));
  const commit = (listing.source === 'git' ? await headCommit(repoDir) : null) ?? contentCommit(files, reader);
  const critics = options.critics ?? builtInCritics({ now: options.now });
  const core = new Set<string>(options.core ?? [...CORE_CRITIC_IDS, ...TOOLCHAIN_CRITIC_IDS]);
  progress(`review: ${files.length} file(s) under review in ${repoDir}${options.base === undefined ? '' : ` (changed since ${options.base})`}, ${critics.length} critic(s)`);

  const runs: CriticRunResult[] = [];
  const reports: CriticReport[] = [];
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
      { core: core.has(critic.id), ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }) },
    );
    const coverage = run.coverage === null ? {} : { coverage: run.coverage };
    runs.push(run);
    if (run.status === 'reported') {
      const kept = changed === null ? run.findings : run.findings.filter((f) => touchesChange(f, changed));
      const covered = run.coverage === null ? '' : `; ${describeCoverage(run.coverage)}`;
      progress(`review: ${critic.id} reported ${kept.length} finding(s) in ${run.duration_ms} ms${covered}${run.notes.length > 0 ? ` (${run.notes.join('; ')})` : ''}`);
      reports.push({ critic_id: critic.id, core: core.has(critic.id), outcome: 'reported', findings: kept, ...(run.notes.length > 0 ? { message: run.notes.join('; ').slice(0, 2000) } : {}), ...coverage });
    } else {
      progress(`review: ${critic.id} did not report (${run.reason}): ${run.message}`);
      reports.push({ critic_id: critic.id, core: core.has(critic.id), outcome: run.reason === 'timed_out' ? 'timed_out' : 'failed', findings: [], message: `${run.reason}: ${run.message}`.slice(0, 2000), ...coverage });
    }
  }
  if (!critics.some((c) => c.id === LLM_CRITIC)) {
    reports.push({
      critic_id: LLM_CRITIC,
      core: core.has(LLM_CRITIC),
      outcome: 'failed',
      findings: [],
      message: 'not configured: no LLM critic was given to this review (rloop review runs the deterministic critics only)',
    });
  }
  const createdAt = options.now.toISOString();
  const letter = synthesizeLetter({
    letter_id: deterministicId('review-letter', repoDir, commit, createdAt, options.base ?? '', (options.files ?? []).join('\n')),
    plan: options.plan ?? slugOf(repoDir),
    run_id: deterministicId('review-run', repoDir, commit, createdAt),
    round: 1,
    phase: 'final_sweep',
    k: null,
    commit,
    created_at: createdAt,
    reports,
  });
  const failed = runs.filter((r) => r.status === 'failed' && !r.message.startsWith('not configured'));
  return { letter, runs, failed };
}

/** One review pass (see reviewRepositoryWithRuns); returns the letter. */
export async function reviewRepository(options: ReviewOptions): Promise<Letter> {
  return (await reviewRepositoryWithRuns(options)).letter;
}
