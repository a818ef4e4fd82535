import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectRepository } from './repository.js';

let root: string;
let repo: string;
let head: string;
const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rloop-gate-'));
  repo = join(root, 'repo');
  await mkdir(join(repo, 'src/billing'), { recursive: true });
  await writeFile(join(repo, 'src/billing/invoice.ts'), 'export const x = 1;\n');
  await writeFile(join(repo, 'README.md'), '# r\n');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git('add', '.');
  git('commit', '-qm', 'init');
  head = git('rev-parse', 'HEAD');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("inspecting a plan's repository", () => {
  it('given a local repository and a branch ref, when inspected, then the ref resolves and the files at it are listed', async () => {
    const result = await inspectRepository({ path: repo, ref: 'main' }, { cacheDir: join(root, 'cache') });
    expect(result).toEqual({ ok: true, snapshot: { path: repo, commit: head, files: ['README.md', 'src/billing/invoice.ts'] } });
  });

  it('given a file:// URL, when inspected, then it is cloned into the cache and resolved', async () => {
    const result = await inspectRepository({ url: `file://${repo}`, ref: 'main' }, { cacheDir: join(root, 'cache') });
    expect(result.ok && result.snapshot.commit).toBe(head);
  });

  it('given a ref that does not exist, when inspected, then the error names the ref', async () => {
    const result = await inspectRepository({ path: repo, ref: 'nope' }, { cacheDir: join(root, 'cache') });
    expect(result).toEqual({ ok: false, errors: [{ path: 'repo.ref', message: `ref "nope" does not resolve to a commit in ${repo}` }] });
  });

  it('given a directory that is not a repository, or no directory at all, when inspected, then the error says which', async () => {
    const plain = join(root, 'plain');
    await mkdir(plain);
    expect(await inspectRepository({ path: plain, ref: 'HEAD' }, { cacheDir: join(root, 'cache') })).toEqual({ ok: false, errors: [{ path: 'repo.path', message: `${plain} is not a git repository` }] });
    const missing = join(root, 'missing');
    expect(await inspectRepository({ path: missing, ref: 'HEAD' }, { cacheDir: join(root, 'cache') })).toEqual({
      ok: false,
      errors: [{ path: 'repo.path', message: `${missing} does not exist or is not a directory` }],
    });
  });

  it('given a ref that looks like an option, when inspected, then it is refused', async () => {
    const result = await inspectRepository({ path: repo, ref: '--output=/tmp/x' }, { cacheDir: join(root, 'cache') });
    expect(result.ok).toBe(false);
  });
});
