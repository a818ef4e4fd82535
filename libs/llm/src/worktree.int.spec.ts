import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@rloop/testing';
import {
  CommandNotAllowedError,
  editWorktreeFile,
  listWorktreeFiles,
  PathOutsideWorktreeError,
  readWorktreeFile,
  resolveInWorktree,
  runAllowedCommand,
  runCommand,
  searchWorktree,
  writeWorktreeFile,
} from './index.js';

describe('worktree confinement and the command allowlist (real files, real processes)', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'rloop-wt-')));
    root = join(base, 'worktree');
    outside = join(base, 'outside');
    await mkdir(join(root, 'src'), { recursive: true });
    await mkdir(join(root, '.git', 'hooks'), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'secret.txt'), 'top secret\n');
    await writeFile(join(root, 'src', 'a.ts'), 'export const a = 1;\nexport const b = 2;\n');
    await symlink(join(outside, 'secret.txt'), join(root, 'src', 'leak.txt'));
    await symlink(outside, join(root, 'out'));
    await symlink(join(root, 'src', 'a.ts'), join(root, 'src', 'alias.ts'));
    await symlink(join(base, 'does-not-exist'), join(root, 'dangling'));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it.each([
    ['../outside/secret.txt', '".." is not allowed'],
    ['src/../../outside/secret.txt', '".." is not allowed'],
    ['/etc/passwd', 'absolute paths are not allowed'],
    ['.git/hooks/pre-commit', '.git directory is off limits'],
    ['src/.GIT/config', '.git directory is off limits'],
    ['src/leak.txt', 'outside the worktree'],
    ['out/secret.txt', 'outside the worktree'],
    ['out/new-file.txt', 'outside the worktree'],
    ['dangling', 'cannot be resolved'],
    ['src\\a.ts', 'forward slashes'],
    ['', 'empty path'],
  ])('refuses %j', async (path, why) => {
    const error = await resolveInWorktree(root, path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PathOutsideWorktreeError);
    expect(error).toMatchObject({
      code: 'LLM.PATH_OUTSIDE_WORKTREE',
      message: expect.stringContaining(why) as unknown,
    });
  });

  it('allows paths inside, including a symlink that stays inside and a new nested file', async () => {
    await expect(resolveInWorktree(root, './src/a.ts')).resolves.toEqual({
      absolute: join(root, 'src', 'a.ts'),
      relative: 'src/a.ts',
    });
    await expect(resolveInWorktree(root, 'src/alias.ts')).resolves.toEqual({
      absolute: join(root, 'src', 'a.ts'),
      relative: 'src/a.ts',
    });
    await expect(resolveInWorktree(root, 'src/new/deep/file.ts')).resolves.toMatchObject({
      relative: 'src/new/deep/file.ts',
    });
  });

  it('never reads or writes through a symlink that leaves the worktree', async () => {
    await expect(readWorktreeFile(root, 'src/leak.txt')).rejects.toBeInstanceOf(PathOutsideWorktreeError);
    await expect(writeWorktreeFile(root, 'out/planted.txt', 'x')).rejects.toBeInstanceOf(PathOutsideWorktreeError);
    await expect(writeWorktreeFile(root, 'src/leak.txt', 'overwritten')).rejects.toBeInstanceOf(
      PathOutsideWorktreeError,
    );
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('edits exactly one occurrence, lists without following links, and searches fixed strings', async () => {
    await writeWorktreeFile(root, 'src/new/b.ts', 'const x = 1;\nconst x2 = 1;\n');
    await expect(editWorktreeFile(root, 'src/new/b.ts', '= 1;', '= 2;')).rejects.toThrow('more than once');
    await expect(editWorktreeFile(root, 'src/new/b.ts', 'const x2 = 1;', 'const x2 = 2;')).resolves.toEqual({
      relative: 'src/new/b.ts',
      line: 2,
    });
    const { files } = await listWorktreeFiles(root);
    expect(files).toEqual(['src/a.ts', 'src/new/b.ts']);
    const { matches } = await searchWorktree(root, 'x2 = 2');
    expect(matches).toEqual(['src/new/b.ts:2: const x2 = 2;']);
  });

  it('runs only allowlisted command lines, without a shell for plain ones', async () => {
    const allow = ['node -e "console.log(process.argv.length)"'];
    await expect(
      runAllowedCommand('node -e "console.log(process.argv.length)"; rm -rf /', allow, { cwd: root, timeoutMs: 5000 }),
    ).rejects.toBeInstanceOf(CommandNotAllowedError);
    await expect(runAllowedCommand('node --version', allow, { cwd: root, timeoutMs: 5000 })).rejects.toBeInstanceOf(
      CommandNotAllowedError,
    );
    const result = await runAllowedCommand(' node -e "console.log(process.argv.length)" ', allow, {
      cwd: root,
      timeoutMs: 5000,
    });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: '1\n' });
  });

  it('gives commands no secrets from the environment and redacts their output', async () => {
    const key = 'sk-ant-api03-command-env-leak-0123456789abcdef';
    const result = await runCommand(
      'node -e "console.log(JSON.stringify(process.env)); console.log(process.argv[1])"',
      {
        cwd: root,
        timeoutMs: 5000,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          ANTHROPIC_API_KEY: key,
          GITHUB_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123',
          LANG: 'C',
        },
        extraArgs: [key],
      },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('ANTHROPIC_API_KEY');
    expect(result.stdout).not.toContain('GITHUB_TOKEN');
    expect(result.stdout).toContain('"LANG":"C"');
    // The key passed as an argument comes back in the output: it is masked there.
    expect(result.stdout).not.toContain(key);
    expect(result.stdout).toContain('[REDACTED]');
  });

  it('kills a command that runs past its timeout, children included', async () => {
    await writeFile(
      join(base, 'spawner.cjs'),
      [
        "const { spawn } = require('node:child_process');",
        "const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });",
        "require('node:fs').writeFileSync(process.argv[2], String(child.pid));",
        'setTimeout(() => {}, 60000);',
      ].join('\n'),
    );
    const pidFile = join(base, 'child.pid');
    const result = await runCommand(`node ${join(base, 'spawner.cjs')} ${pidFile}`, {
      cwd: root,
      timeoutMs: 500,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    const pid = Number(await readFile(pidFile, 'utf8'));
    // A killed process whose parent is gone lingers as a zombie until PID 1 reaps it: that counts as gone.
    const alive = async (): Promise<boolean> => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
      return stat !== null && !/^\d+ \(.*\) Z/.test(stat);
    };
    await eventually(async () => !(await alive()), {
      timeoutMs: 5000,
      description: `the grandchild ${pid} to be gone`,
    });
  });

  it("applies the operator's limits: a command is stopped past its output limit, and each process gets the memory limit", async () => {
    const flood = await runCommand('yes flooding the implementer', {
      cwd: root,
      timeoutMs: 20_000,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      limits: { outputBytes: 1024 * 1024, memoryBytes: null },
    });
    expect(flood.timedOut).toBe(false);
    expect(flood.stderr).toContain(`wrote more than ${1024 * 1024} bytes of output and was stopped`);
    const allocate =
      'node -e "const kept = []; for (let i = 0; i < 32; i++) kept.push(Buffer.alloc(64 * 1024 * 1024, 1)); console.log(\'allocated\')"';
    const limited = await runCommand(allocate, {
      cwd: root,
      timeoutMs: 20_000,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      limits: { outputBytes: 1024 * 1024, memoryBytes: 512 * 1024 * 1024 },
    });
    expect(limited.exitCode).not.toBe(0);
    expect(limited.stdout).not.toContain('allocated');
  });
});
