import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RepositoryPolicy, inspectRepository } from './repository.js';

let root: string;
let allowed: string;
let repo: string;
let outside: string;
let head: string;
let listener: Server;
let listenerUrl: string;
let requests = 0;
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    encoding: 'utf8',
  }).trim();

async function makeRepo(dir: string): Promise<string> {
  await mkdir(join(dir, 'src/billing'), { recursive: true });
  await writeFile(join(dir, 'src/billing/invoice.ts'), 'export const x = 1;\n');
  await writeFile(join(dir, 'README.md'), '# r\n');
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
  return git(dir, 'rev-parse', 'HEAD');
}

const TRUST = '/etc/rloop/trust.yaml';
const policy = (overrides: Partial<RepositoryPolicy['url']> = {}, roots = [allowed]): RepositoryPolicy => ({
  localRoots: roots,
  url: { schemes: ['https', 'ssh'], hosts: [], localAddresses: false, configFile: TRUST, ...overrides },
});
const inspect = (repoSpec: { path?: string; url?: string; ref?: string }, p: RepositoryPolicy = policy()) =>
  inspectRepository({ ref: 'main', ...repoSpec }, { cacheDir: join(root, 'cache'), policy: p });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rloop-gate-'));
  allowed = join(root, 'allowed');
  repo = join(allowed, 'repo');
  head = await makeRepo(repo);
  outside = join(root, 'elsewhere', 'repo');
  await makeRepo(outside);
  // A listener on loopback: a plan must not make the gate talk to it.
  listener = createServer((_req, res) => {
    requests += 1;
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/repo.git`;
});

afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
  await rm(root, { recursive: true, force: true });
});

describe("inspecting a plan's repository", () => {
  it('given a local repository inside an allowed root and a branch ref, when inspected, then the ref resolves and the files at it are listed', async () => {
    expect(await inspect({ path: repo })).toEqual({
      ok: true,
      snapshot: { path: repo, commit: head, files: ['README.md', 'src/billing/invoice.ts'] },
    });
  });

  it('given paths outside the allowed roots (a repository, a plain directory, nothing at all), when inspected, then each gets the same answer', async () => {
    const plain = join(root, 'plain');
    await mkdir(plain);
    for (const path of [outside, plain, join(root, 'missing')]) {
      expect(await inspect({ path })).toEqual({
        ok: false,
        errors: [
          {
            path: 'repo.path',
            message: `${path} is not in a repository root this fleet allows (repositories.local_roots in ${TRUST})`,
          },
        ],
      });
    }
  });

  it('given a symbolic link inside a root that leads outside (to a repository, to a plain directory), when inspected, then it is outside', async () => {
    const plainOutside = join(root, 'plain-outside');
    await mkdir(plainOutside);
    for (const [name, target] of [
      ['to-repo', outside],
      ['to-dir', plainOutside],
    ] as const) {
      const link = join(allowed, name);
      await symlink(target, link);
      expect(await inspect({ path: link })).toEqual({
        ok: false,
        errors: [
          {
            path: 'repo.path',
            message: `${link} is not in a repository root this fleet allows (repositories.local_roots in ${TRUST})`,
          },
        ],
      });
    }
  });

  it('given a directory inside the roots that is not a repository, or nothing, when inspected, then the error says which', async () => {
    const plain = join(allowed, 'plain');
    await mkdir(plain);
    expect(await inspect({ path: plain })).toEqual({
      ok: false,
      errors: [{ path: 'repo.path', message: `${plain} is not a git repository` }],
    });
    const missing = join(allowed, 'missing');
    expect(await inspect({ path: missing })).toEqual({
      ok: false,
      errors: [{ path: 'repo.path', message: `${missing} does not exist or is not a directory` }],
    });
  });

  it('given a ref that does not exist or looks like an option, when inspected, then it is refused', async () => {
    expect(await inspect({ path: repo, ref: 'nope' })).toEqual({
      ok: false,
      errors: [{ path: 'repo.ref', message: `ref "nope" does not resolve to a commit in ${repo}` }],
    });
    expect((await inspect({ path: repo, ref: '--output=/tmp/x' })).ok).toBe(false);
  });

  it('given a file:// URL, when the operator has not allowed the file scheme, then it is refused; allowed and inside the roots, it is cloned', async () => {
    expect(await inspect({ url: `file://${repo}` })).toEqual({
      ok: false,
      errors: [
        {
          path: 'repo.url',
          message: `file://${repo}: the file scheme is not allowed on this fleet (allowed: https, ssh; repositories.url.schemes in ${TRUST})`,
        },
      ],
    });
    const withFile = policy({ schemes: ['https', 'file'] });
    const cloned = await inspect({ url: `file://${repo}` }, withFile);
    expect(cloned.ok && cloned.snapshot.commit).toBe(head);
    // The URL travels with the plan: workers on other hosts fetch from it, not from the gate's clone.
    expect(cloned.ok && cloned.snapshot.url).toBe(`file://${repo}`);
    // The same repository spelled with a trailing slash is the same clone, refreshed in place.
    const again = await inspect({ url: `file://${repo}/` }, withFile);
    expect(again.ok && cloned.ok && again.snapshot.path === cloned.snapshot.path).toBe(true);
    expect(await inspect({ url: `file://${outside}` }, withFile)).toMatchObject({
      ok: false,
      errors: [{ path: 'repo.url', message: expect.stringContaining('is not in a repository root') as unknown }],
    });
  });

  it('given URLs to a loopback listener, when inspected, then no request reaches it, whether the host is not allowed, literal or named', async () => {
    expect(await inspect({ url: listenerUrl }, policy({ schemes: ['http'] }))).toEqual({
      ok: false,
      errors: [
        {
          path: 'repo.url',
          message: `${listenerUrl}: this fleet takes no repository by URL (repositories.url.hosts in ${TRUST} is empty); give repo.path instead`,
        },
      ],
    });
    expect(await inspect({ url: listenerUrl }, policy({ schemes: ['http'], hosts: ['127.0.0.1'] }))).toEqual({
      ok: false,
      errors: [
        {
          path: 'repo.url',
          message: `${listenerUrl} reaches 127.0.0.1, a loopback or link-local address; repositories.url.local_addresses in ${TRUST} allows that`,
        },
      ],
    });
    const named = listenerUrl.replace('127.0.0.1', 'localhost');
    expect(await inspect({ url: named }, policy({ schemes: ['http'], hosts: ['localhost'] }))).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringMatching(/reaches (127\.0\.0\.1|::1), a loopback/) as unknown }],
    });
    const metadata = 'http://169.254.169.254/latest/meta-data.git';
    expect(await inspect({ url: metadata }, policy({ schemes: ['http'], hosts: ['169.254.169.254'] }))).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringContaining('reaches 169.254.169.254') as unknown }],
    });
    expect(requests).toBe(0);
  });

  it('given credentials in the URL, when inspected, then the plan is refused and no reply text echoes them', async () => {
    const token = ['ghp', '_R8xk2LmQ9vT4wZ7pN3cY6bH1sD5fG0aJ2eK8'].join('');
    for (const url of [
      `https://ci:${token}@github.com/org/repo.git`,
      `https://${token}@github.com/org/repo.git`,
      `ssh://git:${token}@github.com/org/repo.git`,
    ]) {
      const result = await inspect({ url }, policy({ hosts: ['github.com'] }));
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain(token);
      expect(JSON.stringify(result)).toContain('must not carry credentials');
    }
  });

  it('given a transport helper URL (ext::) that would run a command, when inspected, then it is refused before git sees it', async () => {
    const marker = join(root, 'ext-ran');
    const result = await inspect({ url: `ext::sh -c touch% ${marker}` }, policy({ hosts: ['github.com'] }));
    expect(result).toMatchObject({
      ok: false,
      errors: [{ path: 'repo.url', message: expect.stringContaining('the ext scheme is not allowed') as unknown }],
    });
    expect(existsSync(marker)).toBe(false);
  });
});
