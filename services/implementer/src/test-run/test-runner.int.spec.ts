import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TempDir, commandEnv, tempDir } from '../testing/repos.test-helpers.js';
import { COMMAND_FAILED } from './test-output.js';
import { runTests } from './test-runner.js';

describe("running a plan's test command", () => {
  let dir: TempDir;

  beforeAll(async () => {
    dir = await tempDir('runner');
    await mkdir(join(dir.path, 'test'));
    await writeFile(
      join(dir.path, 'test', 'a.test.mjs'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('passes', () => {});\ntest('fails', () => assert.equal(1, 2));\n",
    );
  });

  afterAll(() => dir.cleanup());

  it('runs node --test through the shell and names the failing test', async () => {
    const run = await runTests({ cwd: dir.path, command: 'node --test', env: commandEnv(), timeoutMs: 20_000 });
    expect(run).toMatchObject({
      runner: 'node_test',
      passed: 1,
      failed: 1,
      total: 2,
      failing: ['fails'],
      exitCode: 1,
      timedOut: false,
      warnings: 0,
    });
    expect(run.outputTail).toContain('# fail 1');
  });

  it('kills a command that outlives its timeout, with the processes it started, and counts it as failed', async () => {
    const run = await runTests({
      cwd: dir.path,
      command: 'echo started; sleep 30 & sleep 30',
      env: commandEnv(),
      timeoutMs: 300,
    });
    expect(run.timedOut).toBe(true);
    expect(run.failing).toEqual([COMMAND_FAILED]);
    expect(run.outputTail).toContain('started');
    expect(run.outputTail).toContain('timed out after 300 ms');
  });

  it('does not wait for background processes a finished command left behind', async () => {
    const run = await runTests({
      cwd: dir.path,
      command: 'sleep 30 & echo "3 passed, 0 failed"',
      env: commandEnv(),
      timeoutMs: 20_000,
    });
    expect(run).toMatchObject({ runner: 'summary_line', passed: 3, exitCode: 0, timedOut: false });
  });

  it('keeps only the tail of a long output for reports', async () => {
    const run = await runTests({
      cwd: dir.path,
      command: 'seq 1 100000',
      env: commandEnv(),
      timeoutMs: 20_000,
      tailBytes: 100,
    });
    expect(Buffer.byteLength(run.outputTail)).toBeLessThanOrEqual(100);
    expect(run.outputTail).toContain('100000');
    expect(run).toMatchObject({ runner: 'exit_code', passed: 1, total: 1 });
  });

  it('stops a command that writes more output than its limit, with the processes it started, and counts it as failed', async () => {
    const run = await runTests({
      cwd: dir.path,
      command: 'yes "flooding the implementer" & yes "and again"',
      env: commandEnv(),
      timeoutMs: 60_000,
      limits: { outputBytes: 1024 * 1024, memoryBytes: null },
    });
    expect(run.timedOut).toBe(false);
    expect(run.failing).toEqual([COMMAND_FAILED]);
    expect(run.outputTail).toContain(`wrote more than ${1024 * 1024} bytes of output and was stopped`);
  });

  it('limits the memory of each process the command starts, where the OS allows it', async () => {
    const allocate = `node -e "const kept = []; for (let i = 0; i < 32; i++) kept.push(Buffer.alloc(64 * 1024 * 1024, 1)); console.log('allocated 2 GiB')"`;
    const limited = await runTests({
      cwd: dir.path,
      command: allocate,
      env: commandEnv(),
      timeoutMs: 60_000,
      limits: { outputBytes: 1024 * 1024, memoryBytes: 512 * 1024 * 1024 },
    });
    expect(limited.exitCode).not.toBe(0);
    expect(limited.outputTail).not.toContain('allocated 2 GiB');
    const free = await runTests({
      cwd: dir.path,
      command: allocate,
      env: commandEnv(),
      timeoutMs: 60_000,
      limits: { outputBytes: 1024 * 1024, memoryBytes: null },
    });
    expect(free.outputTail).toContain('allocated 2 GiB');
  });
});
