import { existsSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CommitNotFoundError,
  pruneReadOnlyCheckouts,
  readOnlyCheckout,
  readOnlyCheckoutDir,
  removeReadOnlyCheckout,
} from '@rloop/git';
import { BranchCheckedOutError } from '../errors.js';
import { type SampleRepo, type TempDir, gitOut, sampleRepo, tempDir } from '../testing/repos.test-helpers.js';
import { branchFor, ensureWorktree, removeWorktree, worktreeDirFor } from './worktree.js';

describe("the plan's worktree", () => {
  let tmp: TempDir;
  let repo: SampleRepo;
  let workRoot: string;
  let second: string;

  beforeAll(async () => {
    tmp = await tempDir('worktree');
    repo = await sampleRepo(tmp.path, 'fixable');
    workRoot = join(tmp.path, 'home');
    await appendFile(join(repo.dir, 'README.md'), '\nmore\n');
    gitOut(repo.dir, ['commit', '-qam', 'second']);
    second = gitOut(repo.dir, ['rev-parse', 'HEAD']);
  });

  afterAll(() => tmp.cleanup());

  it('is created on rloop/<slug> at the gated commit, under the work root', async () => {
    const worktree = await ensureWorktree({ repoPath: repo.dir, slug: 'demo', workRoot, commit: repo.commit });
    expect(worktree).toEqual({
      dir: worktreeDirFor(workRoot, 'demo'),
      branch: 'rloop/demo',
      commit: repo.commit,
      repoPath: repo.dir,
    });
    expect(gitOut(worktree.dir, ['rev-parse', 'HEAD'])).toBe(repo.commit);
    expect(gitOut(worktree.dir, ['symbolic-ref', 'HEAD'])).toBe('refs/heads/rloop/demo');
    expect(gitOut(repo.dir, ['symbolic-ref', 'HEAD'])).toBe('refs/heads/main');
    expect(gitOut(repo.dir, ['rev-parse', 'HEAD'])).toBe(second);
  });

  it('is reset when ensured again, however dirty or displaced it was left', async () => {
    const { dir } = await ensureWorktree({ repoPath: repo.dir, slug: 'demo', workRoot, commit: second });
    await writeFile(join(dir, 'src', 'money.ts'), 'garbage\n');
    await writeFile(join(dir, 'untracked.txt'), 'junk\n');
    await mkdir(join(dir, 'new-dir'));
    await writeFile(join(dir, 'new-dir', 'file.ts'), 'junk\n');
    gitOut(dir, ['add', 'untracked.txt']);
    gitOut(dir, ['commit', '-qm', 'a commit someone made in the worktree']);
    gitOut(dir, ['checkout', '-q', '--detach', 'HEAD~1']);
    // A git process that crashed in the worktree left its lock behind.
    await writeFile(resolve(dir, gitOut(dir, ['rev-parse', '--git-path', 'index.lock'])), '');

    const again = await ensureWorktree({ repoPath: repo.dir, slug: 'demo', workRoot, commit: repo.commit });
    expect(again.dir).toBe(dir);
    expect(gitOut(dir, ['status', '--porcelain'])).toBe('');
    expect(gitOut(dir, ['symbolic-ref', 'HEAD'])).toBe('refs/heads/rloop/demo');
    expect(gitOut(dir, ['rev-parse', 'HEAD'])).toBe(repo.commit);
    expect(existsSync(join(dir, 'new-dir'))).toBe(false);
    expect(await readFile(join(dir, 'src', 'money.ts'), 'utf8')).toContain('export function toCents');
  });

  it('is recreated when its directory is not a usable worktree', async () => {
    const dir = worktreeDirFor(workRoot, 'broken');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'leftover'), 'from a crash\n');
    const worktree = await ensureWorktree({ repoPath: repo.dir, slug: 'broken', workRoot, commit: repo.commit });
    expect(existsSync(join(worktree.dir, 'leftover'))).toBe(false);
    expect(gitOut(worktree.dir, ['rev-parse', 'HEAD'])).toBe(repo.commit);
  });

  it('refuses to move a branch the user has checked out themselves', async () => {
    const other = await sampleRepo(tmp.path, 'fixable', 'user-on-branch');
    gitOut(other.dir, ['checkout', '-q', '-b', branchFor('mine')]);
    await expect(
      ensureWorktree({ repoPath: other.dir, slug: 'mine', workRoot, commit: other.commit }),
    ).rejects.toBeInstanceOf(BranchCheckedOutError);
  });

  it('refuses a commit the repository does not have', async () => {
    await expect(
      ensureWorktree({ repoPath: repo.dir, slug: 'demo', workRoot, commit: 'f'.repeat(40) }),
    ).rejects.toBeInstanceOf(CommitNotFoundError);
  });

  it('is removed with its registration, keeping the branch unless asked', async () => {
    await ensureWorktree({ repoPath: repo.dir, slug: 'gone', workRoot, commit: repo.commit });
    await removeWorktree({ repoPath: repo.dir, slug: 'gone', workRoot });
    expect(existsSync(worktreeDirFor(workRoot, 'gone'))).toBe(false);
    expect(gitOut(repo.dir, ['worktree', 'list'])).not.toContain('gone');
    expect(gitOut(repo.dir, ['branch', '--list', 'rloop/gone'])).toContain('rloop/gone');
    await removeWorktree({ repoPath: repo.dir, slug: 'gone', workRoot, deleteBranch: true });
    expect(gitOut(repo.dir, ['branch', '--list', 'rloop/gone'])).toBe('');
  });
});

describe('read-only checkouts for critics', () => {
  let tmp: TempDir;
  let repo: SampleRepo;
  let workRoot: string;

  beforeAll(async () => {
    tmp = await tempDir('checkout');
    repo = await sampleRepo(tmp.path, 'unfixable');
    workRoot = join(tmp.path, 'home');
  });

  afterAll(() => tmp.cleanup());

  it("extracts the pinned commit without write bits and without touching the user's index or checkout", async () => {
    await writeFile(join(repo.dir, 'src', 'money.ts'), 'uncommitted user edit\n');
    gitOut(repo.dir, ['add', 'src/money.ts']);
    const indexBefore = gitOut(repo.dir, ['diff', '--cached', '--stat']);

    const checkout = await readOnlyCheckout(repo.dir, repo.commit, { workRoot });
    expect(checkout).toEqual({ dir: readOnlyCheckoutDir(workRoot, repo.commit), commit: repo.commit, cached: false });
    expect(await readFile(join(checkout.dir, 'src', 'money.ts'), 'utf8')).toContain('export function toCents');
    expect(existsSync(join(checkout.dir, 'src', 'report.ts'))).toBe(true);
    expect(existsSync(join(checkout.dir, '.git'))).toBe(false);
    for (const path of [checkout.dir, join(checkout.dir, 'src'), join(checkout.dir, 'src', 'money.ts')]) {
      expect(statSync(path).mode & 0o222).toBe(0);
    }
    expect(gitOut(repo.dir, ['diff', '--cached', '--stat'])).toBe(indexBefore);
    expect(await readFile(join(repo.dir, 'src', 'money.ts'), 'utf8')).toBe('uncommitted user edit\n');
    expect(gitOut(repo.dir, ['worktree', 'list'])).not.toContain(workRoot);
  });

  it('is cached per commit, and cleaned up on request', async () => {
    const again = await readOnlyCheckout(repo.dir, repo.commit, { workRoot });
    expect(again.cached).toBe(true);
    await removeReadOnlyCheckout(workRoot, repo.commit);
    expect(existsSync(again.dir)).toBe(false);
    // Two critics asking at once: both get the same directory, one of them built it.
    const both = await Promise.all([
      readOnlyCheckout(repo.dir, repo.commit, { workRoot }),
      readOnlyCheckout(repo.dir, repo.commit, { workRoot }),
    ]);
    expect(new Set(both.map((c) => c.dir))).toEqual(new Set([again.dir]));
    expect(both.filter((c) => !c.cached).length).toBe(1);
    expect(await readFile(join(again.dir, 'src', 'money.ts'), 'utf8')).toContain('export function toCents');
  });

  it('prunes every cached commit but the ones to keep', async () => {
    await appendFile(join(repo.dir, 'README.md'), '\nmore\n');
    gitOut(repo.dir, ['commit', '-qam', 'second']);
    const second = gitOut(repo.dir, ['rev-parse', 'HEAD']);
    const [first, latest] = await Promise.all([
      readOnlyCheckout(repo.dir, repo.commit, { workRoot }),
      readOnlyCheckout(repo.dir, second, { workRoot }),
    ]);
    expect(await pruneReadOnlyCheckouts(workRoot, [second])).toEqual([repo.commit]);
    expect(existsSync(first.dir)).toBe(false);
    expect(existsSync(latest.dir)).toBe(true);
  });

  it('refuses a commit the repository does not have', async () => {
    await expect(readOnlyCheckout(repo.dir, 'e'.repeat(40), { workRoot })).rejects.toBeInstanceOf(CommitNotFoundError);
  });
});
