import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitOutputTooLargeError, UnsafeRepositoryError, git, gitText, readOnlyCheckout } from './index.js';

// A hostile repository: its .git/config names programs (an fsmonitor hook, filters, a diff
// driver, hooks) that each leave a marker file when git runs them.
let root: string;
let repo: string;
let markers: string;
let head: string;

const rawGit = (dir: string, ...args: string[]): string =>
  execFileSync(
    'git',
    [
      '-C',
      dir,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.com',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.hooksPath=/dev/null',
      ...args,
    ],
    { encoding: 'utf8' },
  ).trim();

function markerScript(name: string): string {
  const path = join(root, `${name}.sh`);
  writeFileSync(path, `#!/bin/sh\ntouch ${join(markers, name)}\ncat\n`);
  chmodSync(path, 0o755);
  return path;
}

const ran = (): string[] =>
  ['fsmonitor', 'smudge', 'clean', 'textconv', 'hook'].filter((name) => existsSync(join(markers, name)));

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rloop-git-'));
  markers = join(root, 'markers');
  mkdirSync(markers);
  repo = join(root, 'hostile');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src/a.txt'), 'alpha\n');
  writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil diff=evil\n');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  rawGit(repo, 'add', '-A');
  rawGit(repo, 'commit', '-qm', 'init');
  head = rawGit(repo, 'rev-parse', 'HEAD');
  rawGit(repo, 'config', 'core.fsmonitor', markerScript('fsmonitor'));
  rawGit(repo, 'config', 'filter.evil.smudge', markerScript('smudge'));
  rawGit(repo, 'config', 'filter.evil.clean', markerScript('clean'));
  rawGit(repo, 'config', 'diff.evil.textconv', markerScript('textconv'));
  const hook = markerScript('hook');
  for (const name of ['post-checkout', 'post-index-change', 'reference-transaction'])
    writeFileSync(join(repo, '.git/hooks', name), readFileSync(hook));
  for (const name of ['post-checkout', 'post-index-change', 'reference-transaction'])
    chmodSync(join(repo, '.git/hooks', name), 0o755);
  writeFileSync(join(repo, 'src/a.txt'), 'alpha, edited\n');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the hardened git runner on a hostile repository', () => {
  it('given a repository whose config names an fsmonitor hook, filters, a textconv driver and hooks, when rloop lists, diffs, shows and checks out, then none of them runs', async () => {
    // The setup is live: plain git runs the fsmonitor hook on the same listing.
    execFileSync('git', ['-C', repo, 'ls-files'], { stdio: 'ignore' });
    expect(ran()).toEqual(['fsmonitor']);
    rmSync(join(markers, 'fsmonitor'));

    await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo });
    await git(['status', '--porcelain'], { cwd: repo });
    await git(['diff', '--textconv', 'HEAD', '--'], { cwd: repo });
    await git(['add', '-A'], { cwd: repo });
    await git(['checkout', '-q', '-B', 'other'], { cwd: repo });
    expect(await gitText(['show', `${head}:src/a.txt`], { cwd: repo })).toBe('alpha');
    const checkout = await readOnlyCheckout(repo, head, { workRoot: join(root, 'work') });
    expect(readFileSync(join(checkout.dir, 'src/a.txt'), 'utf8')).toBe('alpha\n');
    expect(ran()).toEqual([]);
  });

  it('given replace refs that swap a committed file for another, when rloop reads the commit, then it sees what was committed', async () => {
    const other = rawGit(repo, 'hash-object', '-w', '--no-filters', join(repo, 'src', 'a.txt'));
    const original = rawGit(repo, 'rev-parse', `${head}:src/a.txt`);
    rawGit(repo, 'replace', '-f', original, other);
    expect(execFileSync('git', ['-C', repo, 'show', `${head}:src/a.txt`], { encoding: 'utf8' })).not.toBe('alpha\n');
    expect((await git(['show', `${head}:src/a.txt`], { cwd: repo })).stdout).toBe('alpha\n');
    rawGit(repo, 'replace', '-d', original);
  });

  it("given secrets and git settings in the service's environment, when git runs, then it sees neither", async () => {
    const saved = { ...process.env };
    process.env['ANTHROPIC_API_KEY'] = 'sk-ant-api03-never-reaches-git-0000000000';
    process.env['DATABASE_URL'] = 'postgres://rloop:pw@db/rloop';
    process.env['GIT_CONFIG_PARAMETERS'] = "'core.fsmonitor'='" + join(root, 'fsmonitor.sh') + "'";
    try {
      const env = await gitText(['-c', 'alias.printenv=!env', 'printenv'], { cwd: repo });
      expect(env).not.toMatch(/ANTHROPIC_API_KEY|DATABASE_URL/);
      // git passes its own -c settings to the alias in GIT_CONFIG_PARAMETERS; the injected one is not among them.
      expect(env).not.toContain(join(root, 'fsmonitor.sh'));
      expect(env).toMatch(/^PATH=/m);
      await git(['ls-files'], { cwd: repo });
      expect(ran()).toEqual([]);
    } finally {
      for (const key of ['ANTHROPIC_API_KEY', 'DATABASE_URL', 'GIT_CONFIG_PARAMETERS']) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it('given a command that prints more than the bound, when rloop runs it, then git is stopped with a typed error and a command under the bound reads whole', async () => {
    const big = join(root, 'big');
    mkdirSync(big);
    execFileSync('git', ['init', '-q', '-b', 'main', big]);
    writeFileSync(join(big, 'blob.txt'), 'x'.repeat(64 * 1024));
    rawGit(big, 'add', '-A');
    rawGit(big, 'commit', '-qm', 'big');
    await expect(git(['show', 'HEAD:blob.txt'], { cwd: big, maxOutputBytes: 1024 })).rejects.toThrow(
      GitOutputTooLargeError,
    );
    expect((await git(['show', 'HEAD:blob.txt'], { cwd: big })).stdout).toHaveLength(64 * 1024);
  });

  it('given a file with a non-ASCII name, when rloop asks for literal paths, then git prints the name as it is', async () => {
    const named = join(root, 'named');
    mkdirSync(named);
    execFileSync('git', ['init', '-q', '-b', 'main', named]);
    writeFileSync(join(named, 'café.txt'), 'x\n');
    expect(await gitText(['ls-files', '--others'], { cwd: named })).toBe('"caf\\303\\251.txt"');
    expect(await gitText(['ls-files', '--others'], { cwd: named, literalPaths: true })).toBe('café.txt');
  });

  it('given a repository configured to work on another directory (core.worktree), when rloop runs git there, then it is refused', async () => {
    const moved = join(root, 'moved');
    execFileSync('git', ['init', '-q', moved]);
    rawGit(moved, 'config', 'core.worktree', '/etc');
    await expect(git(['ls-files', '--others'], { cwd: moved })).rejects.toThrow(UnsafeRepositoryError);
    await expect(git(['ls-files', '--others'], { cwd: moved })).rejects.toThrow(/sets core.worktree/);
  });

  it("given a repository owned by another user, when rloop runs git there, then git's ownership check stands and the error says what to do", async () => {
    // The fleet runs as root here: a repository handed to another uid is one git refuses.
    expect(process.getuid?.()).toBe(0);
    const foreign = join(root, 'foreign');
    execFileSync('git', ['init', '-q', foreign]);
    execFileSync('chown', ['-R', '4321:4321', foreign]);
    chownSync(foreign, 4321, 4321);
    const error = await git(['rev-parse', '--git-dir'], { cwd: foreign, okExitCodes: [128] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeRepositoryError);
    expect((error as Error).message).toMatch(/owned by another user, so git refuses it \(safe\.directory\)/);
  });
});
