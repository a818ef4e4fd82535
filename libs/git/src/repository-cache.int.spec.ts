import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GitDaemon, startGitDaemon } from '@rloop/testing';
import { PushRejectedError, RepositoryCache, repositoryIdentity } from './index.js';

// Two workers with homes of their own (no shared disk) and one repository served over git's
// daemon protocol on 127.0.0.1: what two hosts and a hosting service are.
let root: string;
let daemon: GitDaemon;
let url: string;
let first: string;
let second: string;

const raw = (dir: string, ...args: string[]): string =>
  execFileSync(
    'git',
    ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'core.hooksPath=/dev/null', ...args],
    { encoding: 'utf8', stdio: 'pipe' },
  ).trim();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rloop-cache-'));
  const served = join(root, 'served');
  const origin = join(served, 'app');
  execFileSync('git', ['init', '-q', '-b', 'main', origin]);
  writeFileSync(join(origin, 'a.txt'), 'one\n');
  raw(origin, 'add', '-A');
  raw(origin, 'commit', '-qm', 'one');
  first = raw(origin, 'rev-parse', 'HEAD');
  writeFileSync(join(origin, 'a.txt'), 'two\n');
  raw(origin, 'commit', '-qam', 'two');
  second = raw(origin, 'rev-parse', 'HEAD');
  // A pushed-to repository must not have the pushed branch checked out: serve a bare copy, as a host does.
  execFileSync('git', ['clone', '-q', '--bare', origin, join(served, 'app.git')]);
  daemon = await startGitDaemon(served);
  url = daemon.urlOf('app.git');
});

afterAll(async () => {
  await daemon.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('RepositoryCache', () => {
  it('fetches a pinned commit by its sha into a home of its own and checks it out read-only', async () => {
    const cache = new RepositoryCache({ root: join(root, 'host-a', 'repos') });
    const dir = await cache.fetchCommit(url, first);
    expect(dir.startsWith(join(root, 'host-a'))).toBe(true);
    const checkout = await cache.readOnlyCheckout(url, first, { workRoot: join(root, 'host-a') });
    expect(readFileSync(join(checkout.dir, 'a.txt'), 'utf8')).toBe('one\n');
    // Only what was asked for came over: the later commit is not in this cache until asked for.
    expect(() => raw(dir, 'cat-file', '-e', `${second}^{commit}`)).toThrow();
  });

  it('says which commit the server does not have', async () => {
    const cache = new RepositoryCache({ root: join(root, 'host-b', 'repos') });
    await expect(cache.fetchCommit(url, 'f'.repeat(40))).rejects.toThrow(/not our ref|f{40}/);
  });

  it('pushes with a lease: the first of two hosts moves the branch, the second is refused', async () => {
    const a = new RepositoryCache({ root: join(root, 'host-c', 'repos') });
    const b = new RepositoryCache({ root: join(root, 'host-d', 'repos') });
    await a.fetchCommit(url, second);
    await b.fetchCommit(url, first);
    expect(await a.fetchRef(url, 'refs/heads/rloop/p', 'refs/cache/rloop/p')).toBeNull();
    expect(await b.fetchRef(url, 'refs/heads/rloop/p', 'refs/cache/rloop/p')).toBeNull();
    await a.push(url, [{ source: second, ref: 'refs/heads/rloop/p', expected: null }]);
    await expect(b.push(url, [{ source: first, ref: 'refs/heads/rloop/p', expected: null }])).rejects.toBeInstanceOf(
      PushRejectedError,
    );
    // Read again, the second host sees the first's commit and may move it on from there.
    expect(await b.fetchRef(url, 'refs/heads/rloop/p', 'refs/cache/rloop/p')).toBe(second);
    await b.push(url, [{ source: first, ref: 'refs/heads/rloop/p', expected: second }]);
    expect(await a.fetchRef(url, 'refs/heads/rloop/p', 'refs/cache/rloop/p')).toBe(first);
  });

  it('moves several refs all or none', async () => {
    const cache = new RepositoryCache({ root: join(root, 'host-e', 'repos') });
    await cache.fetchCommit(url, second);
    await cache.push(url, [{ source: second, ref: 'refs/rloop/q/last', expected: null }]);
    await expect(
      cache.push(url, [
        { source: first, ref: 'refs/heads/rloop/q', expected: null },
        { source: first, ref: 'refs/rloop/q/last', expected: first },
      ]),
    ).rejects.toBeInstanceOf(PushRejectedError);
    expect(await cache.fetchRef(url, 'refs/heads/rloop/q', 'refs/cache/rloop/q')).toBeNull();
  });
});

describe('operator credentials (RLOOP_GIT_CREDENTIALS)', () => {
  it("are given by git's own store helper to a server that asks, and named in no error", async () => {
    // An HTTP server that asks for credentials and records what it was given (then has no repository).
    const seen: string[] = [];
    const server = createServer((request, response) => {
      const auth = request.headers.authorization;
      if (auth === undefined) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
        return;
      }
      seen.push(Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8'));
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const credentials = join(root, 'git-credentials');
    writeFileSync(credentials, `http://ci-bot:s3cret-token@127.0.0.1:${port}\n`, { mode: 0o600 });
    try {
      const cache = new RepositoryCache({ root: join(root, 'host-g', 'repos'), credentialsFile: credentials });
      const error = await cache.fetchCommit(`http://127.0.0.1:${port}/org/app.git`, first).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).not.toContain(credentials);
      expect((error as Error).message).not.toContain('s3cret-token');
      expect(seen).toContain('ci-bot:s3cret-token');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('repositoryIdentity', () => {
  it('names one repository the same however its URL is written', () => {
    expect(repositoryIdentity('https://user@Example.COM/org/app.git/')).toBe('https://example.com/org/app');
    expect(repositoryIdentity('git@example.com:org/app.git')).toBe('ssh://example.com/org/app');
    expect(repositoryIdentity('ssh://git@example.com/org/app')).toBe('ssh://example.com/org/app');
    expect(repositoryIdentity('file:///srv/app/')).toBe('/srv/app');
    expect(repositoryIdentity('/srv/x/../app')).toBe('/srv/app');
    expect(repositoryIdentity('https://example.com/org/app')).not.toBe(
      repositoryIdentity('https://example.com/org/other'),
    );
  });
});
