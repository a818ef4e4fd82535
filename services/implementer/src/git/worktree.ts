import { existsSync } from 'node:fs';
import { mkdir, realpath, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { CommitNotFoundError, commitExists, git, gitText } from '@rloop/git';
import { BranchCheckedOutError } from '../errors.js';

/** The branch rloop works on for a plan. */
export function branchFor(slug: string): string {
  return `rloop/${slug}`;
}

/**
 * Removes a directory tree, retrying when it is not empty or busy: a test process of the plan that
 * is still exiting (or a watcher it started) can add a file while the tree is walked, and a removal
 * that gave up then would leave a half-deleted worktree behind (ENOTEMPTY).
 */
export async function removeTree(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

/** Where a plan's worktree lives under the work root (e.g. `<RLOOP_HOME>/worktrees/<slug>`). */
export function worktreeDirFor(workRoot: string, slug: string): string {
  return join(resolve(workRoot), 'worktrees', slug);
}

/**
 * Hooks of the user's repository never run in rloop's worktrees: a post-checkout hook that installs
 * dependencies or a pre-commit hook that lints would make our steps slow and not reproducible.
 */
export const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'] as const;

export interface WorktreeSpec {
  /** The user's repository (any of its worktrees). */
  readonly repoPath: string;
  readonly slug: string;
  /** Root of rloop's scratch space; the worktree goes to `<workRoot>/worktrees/<slug>`. */
  readonly workRoot: string;
  /** The commit the worktree and its branch are reset to. */
  readonly commit: string;
  /** Defaults to `rloop/<slug>`. */
  readonly branch?: string;
}

export interface Worktree {
  readonly dir: string;
  readonly branch: string;
  readonly commit: string;
  readonly repoPath: string;
}

async function absoluteGitDir(cwd: string, flag: '--git-common-dir' | '--show-toplevel'): Promise<string> {
  const text = await gitText(['rev-parse', flag], { cwd });
  return realpath(isAbsolute(text) ? text : resolve(cwd, text));
}

interface WorktreeEntry {
  readonly path: string;
  readonly branch: string | null;
}

async function listWorktrees(repoPath: string): Promise<WorktreeEntry[]> {
  const text = (await git(['worktree', 'list', '--porcelain'], { cwd: repoPath })).stdout;
  return text
    .split('\n\n')
    .map((block) => block.split('\n'))
    .flatMap((lines) => {
      const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
      const branch = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length) ?? null;
      return path === undefined ? [] : [{ path, branch }];
    });
}

async function sameDir(a: string, b: string): Promise<boolean> {
  if (resolve(a) === resolve(b)) return true;
  try {
    return (await realpath(a)) === (await realpath(b));
  } catch {
    // One of them does not exist, so they are not the same directory.
    return false;
  }
}

/** Whether `dir` is the top of a linked worktree of the repository whose common git dir is `commonDir`. */
async function isWorktreeOf(dir: string, commonDir: string): Promise<boolean> {
  if (!existsSync(join(dir, '.git'))) return false;
  try {
    const [top, common] = await Promise.all([
      absoluteGitDir(dir, '--show-toplevel'),
      absoluteGitDir(dir, '--git-common-dir'),
    ]);
    return top === (await realpath(dir)) && common === commonDir;
  } catch {
    // Not a usable git worktree (corrupt or half-created): the caller recreates it.
    return false;
  }
}

async function assertBranchFree(repoPath: string, branch: string, ownDir: string): Promise<void> {
  for (const entry of await listWorktrees(repoPath)) {
    if (entry.branch === `refs/heads/${branch}` && !(await sameDir(entry.path, ownDir)))
      throw new BranchCheckedOutError(branch, entry.path);
  }
}

/**
 * Forgets half-done operations a previous attempt may have left: a rebase or cherry-pick in
 * progress, or the index lock of a git process that crashed (the worktree is rloop's alone, and
 * one message of a plan is handled at a time, so a lock found here is stale).
 */
async function quitPendingOperations(dir: string): Promise<void> {
  const lock = resolve(dir, await gitText(['rev-parse', '--git-path', 'index.lock'], { cwd: dir }));
  if (existsSync(lock)) await rm(lock, { force: true });
  for (const [marker, args] of [
    ['rebase-merge', ['rebase', '--quit']],
    ['rebase-apply', ['rebase', '--quit']],
    ['CHERRY_PICK_HEAD', ['cherry-pick', '--quit']],
  ] as const) {
    const path = await gitText(['rev-parse', '--git-path', marker], { cwd: dir });
    if (existsSync(resolve(dir, path))) await git(args, { cwd: dir });
  }
}

/**
 * Puts a worktree back to exactly `commit`: the branch checked out in it points there, tracked
 * files match it, untracked files are gone. Ignored files (installed dependencies, build caches)
 * are kept; the test command owns building.
 */
export async function resetWorktree(dir: string, branch: string, commit: string): Promise<void> {
  await quitPendingOperations(dir);
  const head = await git(['symbolic-ref', '-q', 'HEAD'], { cwd: dir, okExitCodes: [1] });
  if (head.stdout.trim() === `refs/heads/${branch}`) {
    await git(['reset', '-q', '--hard', commit], { cwd: dir });
  } else {
    await git([...NO_HOOKS, 'checkout', '-q', '-f', '-B', branch, commit], { cwd: dir });
  }
  await git(['clean', '-ffdq'], { cwd: dir });
}

/**
 * Makes sure the plan has its worktree on `rloop/<slug>` at `commit`, creating it from the user's
 * repository if needed. Idempotent: an existing worktree (clean, dirty or half-way through a
 * previous attempt) is reset to `commit`. The user's own checkout, index and branches are never
 * touched; the only things added to their repository are the branch and the worktree registration.
 */
export async function ensureWorktree(spec: WorktreeSpec): Promise<Worktree> {
  const branch = spec.branch ?? branchFor(spec.slug);
  const dir = worktreeDirFor(spec.workRoot, spec.slug);
  if (!(await commitExists(spec.repoPath, spec.commit))) throw new CommitNotFoundError(spec.repoPath, spec.commit);
  const commonDir = await absoluteGitDir(spec.repoPath, '--git-common-dir');
  if (existsSync(dir)) {
    if (await isWorktreeOf(dir, commonDir)) {
      await assertBranchFree(spec.repoPath, branch, dir);
      await resetWorktree(dir, branch, spec.commit);
      return { dir, branch, commit: spec.commit, repoPath: spec.repoPath };
    }
    // Ours by location but unusable (a crash mid-creation, another repository's worktree): start over.
    await removeTree(dir);
  }
  await git(['worktree', 'prune'], { cwd: spec.repoPath });
  await assertBranchFree(spec.repoPath, branch, dir);
  await mkdir(dirname(dir), { recursive: true });
  await git([...NO_HOOKS, 'worktree', 'add', '-q', '-B', branch, dir, spec.commit], { cwd: spec.repoPath });
  return { dir, branch, commit: spec.commit, repoPath: spec.repoPath };
}

export interface RemoveWorktreeSpec {
  readonly repoPath: string;
  readonly slug: string;
  readonly workRoot: string;
  /** Also delete the branch `rloop/<slug>` (and rloop's records for the plan). Default false: the branch is the loop's result. */
  readonly deleteBranch?: boolean;
}

/** Removes a plan's worktree (and optionally its branch and records) from the work root and the repository. */
export async function removeWorktree(spec: RemoveWorktreeSpec): Promise<void> {
  const dir = worktreeDirFor(spec.workRoot, spec.slug);
  await removeTree(dir);
  await git(['worktree', 'prune'], { cwd: spec.repoPath });
  if (spec.deleteBranch === true) {
    const branch = branchFor(spec.slug);
    await git(['branch', '-q', '-D', branch], { cwd: spec.repoPath, okExitCodes: [1] });
    const refs = await gitText(['for-each-ref', '--format=%(refname)', `refs/rloop/${spec.slug}/`], {
      cwd: spec.repoPath,
    });
    for (const ref of refs.split('\n').filter((r) => r.length > 0))
      await git(['update-ref', '-d', ref], { cwd: spec.repoPath });
  }
}
