import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Issue, PlanRepo } from '@rloop/contracts';
import { GitCommandError, git, gitText } from '@rloop/git';

/** What the gate learns about a plan's repository. */
export interface RepositorySnapshot {
  /** Absolute path of a local clone (the user's repo, or our cache of a URL). */
  readonly path: string;
  /** The plan's ref resolved to a commit. */
  readonly commit: string;
  /** Every file at that commit, repository-relative. */
  readonly files: readonly string[];
}

export type RepositoryResult = { readonly ok: true; readonly snapshot: RepositorySnapshot } | { readonly ok: false; readonly errors: Issue[] };

function stderrOf(error: unknown): string {
  const text = error instanceof GitCommandError ? error.stderr : String(error);
  return text.trim().split('\n').slice(-1)[0] ?? text;
}

/** Clones (or refreshes) a URL repository into the cache, keyed by the URL. */
async function cachedClone(url: string, cacheDir: string): Promise<string> {
  const dir = join(cacheDir, createHash('sha256').update(url).digest('hex').slice(0, 16));
  const exists = await stat(join(dir, 'HEAD')).then(() => true, () => false);
  if (exists) {
    await git(['fetch', '--quiet', '--prune', 'origin', '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'], { cwd: dir });
  } else {
    await mkdir(cacheDir, { recursive: true });
    await git(['clone', '--quiet', '--bare', '--', url, dir], { cwd: cacheDir });
  }
  return dir;
}

/**
 * Checks that the plan's repository exists and its ref resolves, and lists the files at that
 * commit — read-only: the user's checkout is never touched.
 */
export async function inspectRepository(repo: PlanRepo, options: { readonly cacheDir: string; readonly baseDir?: string }): Promise<RepositoryResult> {
  let path: string;
  if (repo.path !== undefined) {
    path = isAbsolute(repo.path) ? repo.path : resolve(options.baseDir ?? process.cwd(), repo.path);
    const isDir = await stat(path).then((s) => s.isDirectory(), () => false);
    if (!isDir) return { ok: false, errors: [{ path: 'repo.path', message: `${path} does not exist or is not a directory` }] };
    try {
      await git(['rev-parse', '--git-dir'], { cwd: path });
    } catch {
      return { ok: false, errors: [{ path: 'repo.path', message: `${path} is not a git repository` }] };
    }
  } else {
    try {
      path = await cachedClone(repo.url ?? '', options.cacheDir);
    } catch (error) {
      return { ok: false, errors: [{ path: 'repo.url', message: `could not clone ${repo.url ?? ''}: ${stderrOf(error)}` }] };
    }
  }
  if (repo.ref.startsWith('-')) return { ok: false, errors: [{ path: 'repo.ref', message: 'a ref cannot start with "-"' }] };
  let commit: string;
  try {
    commit = await gitText(['rev-parse', '--verify', '--quiet', '--end-of-options', `${repo.ref}^{commit}`], { cwd: path });
  } catch {
    return { ok: false, errors: [{ path: 'repo.ref', message: `ref "${repo.ref}" does not resolve to a commit in ${repo.path ?? repo.url ?? path}` }] };
  }
  const listing = (await git(['ls-tree', '-r', '-z', '--name-only', commit], { cwd: path })).stdout;
  const files = listing.split('\u0000').filter((f) => f.length > 0);
  return { ok: true, snapshot: { path: resolve(path), commit, files } };
}
