import { join } from 'node:path';
import { TransientError } from '@rloop/contracts';
import { type RepositoryCache, repositoryCacheAt } from '@rloop/git';

/**
 * A plan given by URL, as this implementer works on it: its own bare copy of the repository under
 * its home (worktrees are made from it), and the URL the plan's branch and rloop's refs are pushed
 * to. Nothing of it lives on a disk another implementer must share.
 */
export interface PlanRemote {
  readonly url: string;
  readonly cache: RepositoryCache;
  /** The cache's directory: the repository every local git step of the plan runs in. */
  readonly dir: string;
}

/** Where this implementer's copies of plans' repositories live, under its work root. */
export function implementerCacheRoot(workRoot: string): string {
  return join(workRoot, 'implementer', 'repos');
}

/** Where the cache keeps what a remote ref pointed at when last read (never a branch: nothing checks it out). */
export function trackingRef(ref: string): string {
  return `refs/rloop-remote/${ref.replace(/^refs\//, '')}`;
}

/**
 * The plan's remote when it was given by URL (null: a local plan, worked on in place), with
 * `commits` fetched into the cache by sha.
 */
export async function planRemote(
  repoUrl: string | undefined,
  workRoot: string,
  commits: readonly string[],
): Promise<PlanRemote | null> {
  if (repoUrl === undefined) return null;
  const cache = repositoryCacheAt(implementerCacheRoot(workRoot));
  let dir = await cache.ensure(repoUrl);
  for (const commit of commits) dir = await cache.fetchCommit(repoUrl, commit);
  return { url: repoUrl, cache, dir };
}

/** The repository a request's local git steps run in: the cache of its URL (fetching `commit`), or its path. */
export async function localRepoPath(
  request: { readonly repo_path: string; readonly repo_url?: string },
  workRoot: string,
  commit: string,
): Promise<string> {
  return (await planRemote(request.repo_url, workRoot, [commit]))?.dir ?? request.repo_path;
}

/** A push lost its lease to another implementer (or a person) moving the plan's refs: read the remote again and retry. */
export class RemoteMovedError extends TransientError {
  constructor(what: string, options: { cause?: unknown } = {}) {
    super(
      'IMPLEMENTER.REMOTE_MOVED',
      `${what}: the plan's repository moved meanwhile; read again and retried`,
      options,
    );
  }
}
