import { createHash, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { mkdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Issue, PlanRepo } from '@rloop/contracts';
import { maskSecrets, oneLine } from '@rloop/domain';
import { GitCommandError, UnsafeRepositoryError, git, gitText, repositoryIdentity } from '@rloop/git';
import {
  type UrlPolicy,
  displayUrl,
  isLocalAddress,
  localAddressIssue,
  outsideRootsIssue,
  parseRepoUrl,
  urlIssues,
} from './repo-source.js';

/** What the gate learns about a plan's repository. */
export interface RepositorySnapshot {
  /** Absolute path of a local clone (the user's repo, or our cache of a URL). */
  readonly path: string;
  /** The plan's ref resolved to a commit. */
  readonly commit: string;
  /** Every file at that commit, repository-relative. */
  readonly files: readonly string[];
  /** The plan's URL when it gave one: what workers on other hosts fetch from (absent for a local path). */
  readonly url?: string;
}

export type RepositoryResult =
  { readonly ok: true; readonly snapshot: RepositorySnapshot } | { readonly ok: false; readonly errors: Issue[] };

/** Where repositories may come from (config/trust.yaml `repositories`, resolved). */
export interface RepositoryPolicy {
  /** Absolute directories a local repository (or a file URL) must be in. */
  readonly localRoots: readonly string[];
  readonly url: UrlPolicy;
}

export interface InspectOptions {
  readonly cacheDir: string;
  readonly baseDir?: string;
  readonly policy: RepositoryPolicy;
}

function stderrOf(error: unknown): string {
  const text = error instanceof GitCommandError ? error.stderr : error instanceof Error ? error.message : String(error);
  return maskSecrets(oneLine(text.trim().split('\n').slice(-1)[0] ?? text));
}

/** The real path (symbolic links resolved) when it exists; the normalized path otherwise. */
async function realOrLexical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

function within(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Whether a path, once its symbolic links are resolved, is one of the roots or below one. */
async function insideRoots(path: string, roots: readonly string[]): Promise<boolean> {
  const real = await realOrLexical(path);
  for (const root of roots) if (within(await realOrLexical(root), real)) return true;
  return false;
}

/** Checks a local repository: inside the roots (the same answer for anything outside), a directory, a git repository whose git directory is inside the roots too. */
async function localRepository(
  field: 'repo.path' | 'repo.url',
  path: string,
  policy: RepositoryPolicy,
  configFile: string,
): Promise<Issue | null> {
  if (!(await insideRoots(path, policy.localRoots))) return outsideRootsIssue(field, path, configFile);
  const isDir = await stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) return { path: field, message: `${oneLine(path)} does not exist or is not a directory` };
  let common: string;
  try {
    common = await gitText(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: path });
  } catch (error) {
    if (error instanceof UnsafeRepositoryError) return { path: field, message: error.message };
    return { path: field, message: `${oneLine(path)} is not a git repository` };
  }
  // A worktree or a `.git` file can point at a repository elsewhere: its objects and refs must be inside the roots as well.
  if (!(await insideRoots(common, policy.localRoots))) return outsideRootsIssue(field, path, configFile);
  return null;
}

/** Settings and environment of a clone or fetch: only the allowed protocols, no redirects, the checked addresses pinned for http(s). */
function transport(
  url: string,
  policy: UrlPolicy,
  pinned: readonly string[],
): { config: string[]; env: Record<string, string> } {
  const parsed = parseRepoUrl(url);
  const config = ['-c', 'http.followRedirects=false'];
  if (
    parsed !== null &&
    parsed.host !== null &&
    pinned.length > 0 &&
    (parsed.scheme === 'https' || parsed.scheme === 'http')
  ) {
    const port = parsed.port ?? (parsed.scheme === 'https' ? 443 : 80);
    config.push(
      '-c',
      `http.curloptResolve=${parsed.host}:${port}:${pinned.map((a) => (isIP(a) === 6 ? `[${a}]` : a)).join(',')}`,
    );
  }
  return { config, env: { GIT_ALLOW_PROTOCOL: policy.schemes.join(':') } };
}

/** The host's addresses, or an issue when it does not resolve or reaches a local address the policy forbids. */
async function checkAddresses(url: string, policy: UrlPolicy): Promise<{ addresses: string[] } | { issue: Issue }> {
  const parsed = parseRepoUrl(url);
  const host = parsed?.host ?? null;
  if (host === null || parsed?.scheme === 'file') return { addresses: [] };
  let addresses: string[];
  try {
    addresses =
      isIP(host) !== 0 ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch (error) {
    return {
      issue: {
        path: 'repo.url',
        message: `${displayUrl(url)}: host ${oneLine(host)} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`,
      },
    };
  }
  const local = addresses.find(isLocalAddress);
  if (!policy.localAddresses && local !== undefined)
    return { issue: localAddressIssue(displayUrl(url), local, policy.configFile) };
  return { addresses };
}

/**
 * Clones (or refreshes) a URL repository into the cache, keyed by the repository's identity (two
 * spellings of one URL share a clone). A new clone is made beside its place and renamed into it,
 * so a gate that dies mid-clone, or two gates on one home, never leave a half clone where the next
 * plan looks.
 */
async function cachedClone(
  url: string,
  cacheDir: string,
  policy: UrlPolicy,
  pinned: readonly string[],
): Promise<string> {
  const dir = join(cacheDir, createHash('sha256').update(repositoryIdentity(url)).digest('hex').slice(0, 16));
  const exists = await stat(join(dir, 'HEAD')).then(
    () => true,
    () => false,
  );
  const { config, env } = transport(url, policy, pinned);
  if (exists) {
    // The URL as given this time (not the clone's remembered `origin`): the checks above were made on it.
    await git(
      [...config, 'fetch', '--quiet', '--prune', '--', url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
      { cwd: dir, env },
    );
    return dir;
  }
  await mkdir(cacheDir, { recursive: true });
  const scratch = join(cacheDir, `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await git([...config, 'clone', '--quiet', '--bare', '--no-recurse-submodules', '--', url, scratch], {
      cwd: cacheDir,
      env,
    });
    try {
      await rename(scratch, dir);
    } catch (error) {
      // Another gate finished the same clone first: its copy is as good.
      if (
        !(await stat(join(dir, 'HEAD')).then(
          () => true,
          () => false,
        ))
      )
        throw error;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return dir;
}

/**
 * Checks that the plan's repository may be used and exists, and that its ref resolves; lists the
 * files at that commit — read-only: the user's checkout is never touched. A local path must be
 * inside the operator's roots (anything outside gets one and the same answer, so the gate does not
 * tell what exists where); a URL must use an allowed scheme and host, carry no credentials, and not
 * reach a loopback or link-local address unless the operator allows it. No error echoes a credential.
 */
export async function inspectRepository(repo: PlanRepo, options: InspectOptions): Promise<RepositoryResult> {
  const { policy } = options;
  const configFile = policy.url.configFile;
  let path: string;
  let shown: string;
  let url: string | undefined;
  if (repo.path !== undefined) {
    path = isAbsolute(repo.path) ? repo.path : resolve(options.baseDir ?? process.cwd(), repo.path);
    shown = oneLine(repo.path);
    const issue = await localRepository('repo.path', path, policy, configFile);
    if (issue !== null) return { ok: false, errors: [issue] };
  } else {
    url = repo.url ?? '';
    shown = displayUrl(url);
    const issues = urlIssues(url, policy.url);
    if (issues.length > 0) return { ok: false, errors: issues };
    const localPath = parseRepoUrl(url)?.localPath ?? null;
    if (localPath !== null) {
      const issue = await localRepository('repo.url', resolve(localPath), policy, configFile);
      if (issue !== null) return { ok: false, errors: [issue] };
    }
    const addresses = await checkAddresses(url, policy.url);
    if ('issue' in addresses) return { ok: false, errors: [addresses.issue] };
    try {
      path = await cachedClone(url, options.cacheDir, policy.url, addresses.addresses);
    } catch (error) {
      return { ok: false, errors: [{ path: 'repo.url', message: `could not clone ${shown}: ${stderrOf(error)}` }] };
    }
  }
  if (repo.ref.startsWith('-'))
    return { ok: false, errors: [{ path: 'repo.ref', message: 'a ref cannot start with "-"' }] };
  let commit: string;
  try {
    commit = await gitText(['rev-parse', '--verify', '--quiet', '--end-of-options', `${repo.ref}^{commit}`], {
      cwd: path,
    });
  } catch {
    return {
      ok: false,
      errors: [{ path: 'repo.ref', message: `ref "${oneLine(repo.ref)}" does not resolve to a commit in ${shown}` }],
    };
  }
  const listing = (await git(['ls-tree', '-r', '-z', '--name-only', commit], { cwd: path })).stdout;
  const files = listing.split('\u0000').filter((f) => f.length > 0);
  return { ok: true, snapshot: { path: resolve(path), commit, files, ...(url === undefined ? {} : { url }) } };
}
