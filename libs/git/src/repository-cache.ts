import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { CommitNotFoundError, GitCommandError, PushRejectedError } from './errors.js';
import { commitExists, git } from './git.js';
import { type ReadOnlyCheckout, readOnlyCheckout } from './read-only-checkout.js';

/**
 * The protocols a worker may fetch a plan's repository over. `file` is there for a fleet on one
 * host (the gate only lets file URLs through when the operator allows local roots); `ext` and
 * other remote helpers never are.
 */
const ALLOWED_PROTOCOLS = 'https:http:ssh:git:file';

/** The variable naming the operator's git credentials file (git-credential-store format: one `https://user:token@host` a line). */
export const GIT_CREDENTIALS_VARIABLE = 'RLOOP_GIT_CREDENTIALS';

export interface RepositoryCacheOptions {
  /** Where the bare copies live (e.g. `<RLOOP_HOME>/cache/repos`): one directory per repository URL. */
  readonly root: string;
  /**
   * A git-credential-store file the operator gives for private repositories (RLOOP_GIT_CREDENTIALS).
   * git reads it through its own `store` helper; rloop never reads, prints or logs it.
   */
  readonly credentialsFile?: string;
}

/** The identity of a repository for comparisons: a URL without user info, scheme and host lower-cased, no trailing `.git` or slash; a path resolved. */
export function repositoryIdentity(location: string): string {
  const url = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^/@]*@)?([^/]*)(.*)$/.exec(location);
  if (url !== null) {
    const scheme = (url[1] ?? '').toLowerCase();
    const path = (url[3] ?? '').replace(/\/+$/, '').replace(/\.git$/, '');
    if (scheme === 'file') return resolve(decodeURIComponent(path));
    return `${scheme}://${(url[2] ?? '').toLowerCase()}${path}`;
  }
  // scp-like ssh (`git@host:org/repo.git`): the same repository as ssh://host/org/repo.
  const scp = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(?!\/\/)(.*)$/.exec(location);
  if (scp !== null && !isAbsolute(location))
    return `ssh://${(scp[1] ?? '').toLowerCase()}/${(scp[2] ?? '')
      .replace(/^\/+/, '')
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')}`;
  return resolve(location);
}

/** Whether a `git fetch` failure says the server will not hand out an object by its id (it only serves what its refs advertise). */
function shaFetchRefused(error: unknown): boolean {
  return (
    error instanceof GitCommandError &&
    /not our ref|couldn't find remote ref|Server does not allow request for unadvertised object|want .* not valid/i.test(
      error.stderr,
    )
  );
}

/** Whether a push failure is git refusing a lease (the remote ref is not what we expected) or a non-fast-forward. */
function leaseRefused(error: unknown): boolean {
  return (
    error instanceof GitCommandError &&
    /\[rejected\]|stale info|non-fast-forward|fetch first|atomic push failed/i.test(error.stderr)
  );
}

/** One ref update of a push: our object to the remote's ref, accepted only while the remote's ref is `expected` (null: it must not exist). */
export interface LeasedRefUpdate {
  /** A sha (or a local ref) to push. */
  readonly source: string;
  /** The full remote ref name (`refs/heads/rloop/<slug>`, `refs/rloop/<slug>/last`). */
  readonly ref: string;
  readonly expected: string | null;
}

/**
 * A worker's own copies of plans' repositories, so that no worker needs another's disk: a bare
 * repository per URL under its home, filled on demand by fetching exactly the commits a plan pins
 * (by sha; from every branch when the server will not serve a sha), and the place its read-only
 * checkouts and worktrees are built from. Every git call goes through the one hardened runner (no
 * hooks, no fsmonitor, bounded output); fetched objects are kept (gc.auto=0) since no ref
 * protects a commit fetched by sha. Calls for one repository are serialized within the process;
 * two processes sharing a home only ever add objects, never move a ref the other reads.
 */
export class RepositoryCache {
  private readonly root: string;
  private readonly credentialsFile: string | undefined;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: RepositoryCacheOptions) {
    this.root = resolve(options.root);
    this.credentialsFile = options.credentialsFile;
  }

  /** The cache's directory for a repository URL (named by a hash of its identity). */
  dirFor(url: string): string {
    return join(this.root, `${createHash('sha256').update(repositoryIdentity(url)).digest('hex').slice(0, 24)}.git`);
  }

  /** Transport settings of every fetch and push: allowed protocols only, no redirects, the operator's credentials when given. */
  private transport(): { config: string[]; env: Record<string, string> } {
    const config = ['-c', 'http.followRedirects=false', '-c', 'credential.interactive=false'];
    const env: Record<string, string> = { GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS };
    if (this.credentialsFile !== undefined) {
      // Given through git's environment, not its arguments, so no error message (they quote the
      // arguments) names the file. An empty helper first clears any helper the user's global config
      // names; then git's own store reads the operator's file.
      Object.assign(env, {
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'credential.helper',
        GIT_CONFIG_VALUE_0: '',
        GIT_CONFIG_KEY_1: 'credential.helper',
        GIT_CONFIG_VALUE_1: `store --file='${this.credentialsFile.replace(/'/g, `'\\''`)}'`,
      });
    }
    return { config, env };
  }

  /** Runs `work` after every earlier call for the same repository has finished (fetches and pushes of one bare copy never overlap here). */
  private serialized<T>(url: string, work: () => Promise<T>): Promise<T> {
    const key = this.dirFor(url);
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  /** The bare copy of a repository, created empty (atomically: built aside and renamed into place) the first time. */
  async ensure(url: string): Promise<string> {
    const dir = this.dirFor(url);
    if (existsSync(join(dir, 'HEAD'))) return dir;
    await mkdir(this.root, { recursive: true });
    const scratch = join(this.root, `.tmp-${randomBytes(6).toString('hex')}.git`);
    try {
      await git(['init', '-q', '--bare', scratch], { cwd: this.root });
      // Objects fetched by sha have no ref to keep them: never let an automatic gc drop them.
      await git(['config', 'gc.auto', '0'], { cwd: scratch });
      await git(['config', 'gc.autoDetach', 'false'], { cwd: scratch });
      try {
        await rename(scratch, dir);
      } catch (error) {
        // Another process made it first: its copy serves as well.
        if (!existsSync(join(dir, 'HEAD'))) throw error;
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    return dir;
  }

  /**
   * Makes sure `commit` is in the cache, fetching it from `url` by its sha when missing (a server
   * that refuses unadvertised objects gets a fetch of all its branches and tags instead). Returns
   * the cache directory; a commit the server does not have is a CommitNotFoundError.
   */
  async fetchCommit(url: string, commit: string): Promise<string> {
    const dir = await this.ensure(url);
    if (await commitExists(dir, commit)) return dir;
    return this.serialized(url, async () => {
      if (await commitExists(dir, commit)) return dir;
      const { config, env } = this.transport();
      try {
        await git([...config, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', url, commit], {
          cwd: dir,
          env,
        });
      } catch (error) {
        if (!shaFetchRefused(error)) throw error;
        await git(
          [
            ...config,
            'fetch',
            '--quiet',
            '--no-write-fetch-head',
            '--',
            url,
            '+refs/heads/*:refs/cache/heads/*',
            '+refs/tags/*:refs/cache/tags/*',
          ],
          { cwd: dir, env },
        );
      }
      if (!(await commitExists(dir, commit))) throw new CommitNotFoundError(url, commit);
      return dir;
    });
  }

  /**
   * Where a remote ref points now (null when it does not exist), with its objects fetched into the
   * cache and kept at `localRef` (deleted when the remote has none). What a lease is then taken on.
   */
  async fetchRef(url: string, remoteRef: string, localRef: string): Promise<string | null> {
    const dir = await this.ensure(url);
    return this.serialized(url, async () => {
      const { config, env } = this.transport();
      const listed = (await git([...config, 'ls-remote', '--', url, remoteRef], { cwd: dir, env })).stdout;
      const line = listed.split('\n').find((l) => l.endsWith(`\t${remoteRef}`));
      const sha = line?.split('\t')[0] ?? null;
      if (sha === null) {
        await git(['update-ref', '-d', localRef], { cwd: dir });
        return null;
      }
      const present = await git(['cat-file', '-e', sha], { cwd: dir, okExitCodes: [1, 128] });
      if (present.exitCode === 0) {
        await git(['update-ref', localRef, sha], { cwd: dir });
        return sha;
      }
      await git(
        [...config, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', url, `+${remoteRef}:${localRef}`],
        { cwd: dir, env },
      );
      return sha;
    });
  }

  /**
   * Pushes ref updates to the repository at `url`, all or none (`--atomic`), each with a lease
   * (`--force-with-lease=<ref>:<expected>`): a ref someone else moved meanwhile is not overwritten,
   * and the push fails with a PushRejectedError. `cwd` is the repository holding the objects (the
   * cache itself, or a worktree of it).
   */
  async push(url: string, updates: readonly LeasedRefUpdate[], cwd?: string): Promise<void> {
    if (updates.length === 0) return;
    const dir = await this.ensure(url);
    await this.serialized(url, async () => {
      const { config, env } = this.transport();
      const leases = updates.map((u) => `--force-with-lease=${u.ref}:${u.expected ?? ''}`);
      const refspecs = updates.map((u) => `${u.source}:${u.ref}`);
      try {
        await git([...config, 'push', '--quiet', '--atomic', '--no-verify', ...leases, '--', url, ...refspecs], {
          cwd: cwd ?? dir,
          env,
        });
      } catch (error) {
        if (leaseRefused(error))
          throw new PushRejectedError(
            url,
            updates.map((u) => u.ref),
            (error as GitCommandError).stderr,
            { cause: error },
          );
        throw error;
      }
    });
  }

  /** A read-only checkout (for critics) of a commit of the repository at `url`, fetched first when the cache lacks it. */
  async readOnlyCheckout(url: string, commit: string, options: { workRoot: string }): Promise<ReadOnlyCheckout> {
    const dir = await this.fetchCommit(url, commit);
    return readOnlyCheckout(dir, commit, options);
  }
}

const processCaches = new Map<string, RepositoryCache>();

/**
 * The process's one cache for a root (one serialization queue per repository however many callers
 * ask), with the operator's credentials file from RLOOP_GIT_CREDENTIALS when set. Reading
 * process.env here is deliberate, as in the git runner: every service that fetches gets the same
 * setting without passing a secret's location through its config; its value is never logged.
 */
export function repositoryCacheAt(root: string): RepositoryCache {
  const key = resolve(root);
  let cache = processCaches.get(key);
  if (cache === undefined) {
    const credentialsFile = process.env[GIT_CREDENTIALS_VARIABLE];
    cache = new RepositoryCache({
      root: key,
      ...(credentialsFile === undefined || credentialsFile === '' ? {} : { credentialsFile }),
    });
    processCaches.set(key, cache);
  }
  return cache;
}

/**
 * A read-only checkout of `commit` for a worker: from this worker's own cache of the repository
 * (`<workRoot>/repos`, the commit fetched by sha) when the plan gave a URL, so it needs no disk
 * shared with the gate; read in place from `path` when it did not (a fleet on one host).
 */
export function checkoutForWorker(
  repository: { readonly path: string; readonly url?: string | undefined },
  commit: string,
  workRoot: string,
): Promise<ReadOnlyCheckout> {
  return repository.url === undefined
    ? readOnlyCheckout(repository.path, commit, { workRoot })
    : repositoryCacheAt(join(workRoot, 'repos')).readOnlyCheckout(repository.url, commit, { workRoot });
}
