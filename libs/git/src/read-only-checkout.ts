import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CommitNotFoundError } from './errors.js';
import { commitExists, git } from './git.js';

export interface ReadOnlyCheckout {
  /** A directory holding the tracked files of `commit`, with every write bit cleared. */
  readonly dir: string;
  readonly commit: string;
  /** True when an earlier call had already extracted this commit. */
  readonly cached: boolean;
}

function checkoutsDir(workRoot: string): string {
  return join(resolve(workRoot), 'checkouts');
}

/** Where the read-only checkout of a commit lives (the cache is per commit: a sha names its content). */
export function readOnlyCheckoutDir(workRoot: string, commit: string): string {
  return join(checkoutsDir(workRoot), commit);
}

async function setWritable(path: string, writable: boolean): Promise<void> {
  const stat = await lstat(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    // Opening the directory up must happen before walking it, closing it down after.
    if (writable) await chmod(path, 0o755);
    for (const entry of await readdir(path)) await setWritable(join(path, entry), writable);
    if (!writable) await chmod(path, 0o555);
    return;
  }
  const executable = (stat.mode & 0o111) !== 0;
  await chmod(path, writable ? (executable ? 0o755 : 0o644) : executable ? 0o555 : 0o444);
}

/**
 * A read-only copy of the tracked files at a pinned commit, for critics: extracted through a private
 * index (the user's index and checkout are untouched; no worktree is registered), cached per commit
 * under `<workRoot>/checkouts/<commit>`, with write bits cleared. Concurrent callers are safe: each
 * builds in a temporary directory and the first rename wins.
 */
export async function readOnlyCheckout(
  repoPath: string,
  commit: string,
  options: { workRoot: string },
): Promise<ReadOnlyCheckout> {
  const dir = readOnlyCheckoutDir(options.workRoot, commit);
  if (existsSync(dir)) return { dir, commit, cached: true };
  if (!(await commitExists(repoPath, commit))) throw new CommitNotFoundError(repoPath, commit);
  const scratch = join(checkoutsDir(options.workRoot), `.tmp-${commit.slice(0, 12)}-${randomBytes(4).toString('hex')}`);
  const tree = join(scratch, 'tree');
  await mkdir(tree, { recursive: true });
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    await git(['read-tree', commit], { cwd: repoPath, env });
    // A work tree named explicitly, so a bare repository (a worker's cache) can be checked out too; the files go to the prefix.
    await git([`--work-tree=${tree}`, 'checkout-index', '-a', '-f', `--prefix=${tree}/`], { cwd: repoPath, env });
    await setWritable(tree, false);
    try {
      await rename(tree, dir);
    } catch (error) {
      // Another caller finished first: its copy is the same content.
      if (!existsSync(dir)) throw error;
      await setWritable(tree, true);
      return { dir, commit, cached: true };
    }
    return { dir, commit, cached: false };
  } finally {
    if (existsSync(tree)) await setWritable(tree, true);
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Deletes the read-only checkout of one commit (a no-op when there is none). */
export async function removeReadOnlyCheckout(workRoot: string, commit: string): Promise<void> {
  const dir = readOnlyCheckoutDir(workRoot, commit);
  if (!existsSync(dir)) return;
  await setWritable(dir, true);
  await rm(dir, { recursive: true, force: true });
}

/** Deletes every cached read-only checkout except those of the given commits; returns the commits removed. */
export async function pruneReadOnlyCheckouts(workRoot: string, keep: readonly string[]): Promise<string[]> {
  const root = checkoutsDir(workRoot);
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const entry of await readdir(root)) {
    if (keep.includes(entry)) continue;
    const path = join(root, entry);
    await setWritable(path, true);
    await rm(path, { recursive: true, force: true });
    if (!entry.startsWith('.tmp-')) removed.push(entry);
  }
  return removed;
}
