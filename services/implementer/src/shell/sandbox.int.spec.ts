import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureWorktree } from '../git/worktree.js';
import { createCommandStrategy } from '../strategies/command.js';
import { type TempDir, commandEnv, letterFor, sampleRepo, tempDir } from '../testing/repos.test-helpers.js';
import { type SandboxSettings, checkBubblewrap } from './sandbox.js';

// The bubblewrap sandbox of the `command` implementer, for real: .ci/run installs bubblewrap, and
// checkBubblewrap fails this spec with the reason when it cannot run here.

describe('the command implementer in the bubblewrap sandbox', () => {
  let tmp: TempDir;
  let worktree: string;
  let serviceHome: string;
  let rloopHome: string;
  let outsideFile: string;

  beforeAll(async () => {
    await checkBubblewrap();
    tmp = await tempDir('sandbox');
    serviceHome = join(tmp.path, 'service-home');
    rloopHome = join(tmp.path, 'rloop-home');
    await mkdir(join(serviceHome, '.ssh'), { recursive: true });
    await writeFile(join(serviceHome, '.ssh', 'id_ed25519'), 'the service user key\n');
    await mkdir(join(rloopHome, 'journal'), { recursive: true });
    await writeFile(join(rloopHome, 'journal', 'events.db'), 'every plan of the fleet\n');
    outsideFile = join(tmp.path, 'outside.txt');
    const repo = await sampleRepo(tmp.path, 'fixable');
    worktree = (
      await ensureWorktree({ repoPath: repo.dir, slug: 'sandboxed', workRoot: rloopHome, commit: repo.commit })
    ).dir;
  }, 60_000);

  afterAll(() => tmp.cleanup());

  const settings = (network: boolean): SandboxSettings => ({
    kind: 'bubblewrap',
    network,
    readOnly: [],
    writable: [],
    hidden: [serviceHome, rloopHome],
  });

  it('given an agent that tries to leave its worktree, when it runs sandboxed, then it edits the worktree and nothing else, sees no secret file and reaches no network', async () => {
    const agent = [
      'echo "// sandboxed edit" >> src/money.ts',
      `echo escaped > ${outsideFile} 2>/dev/null; echo "outside write: $?" > report.txt`,
      `cat ${join(serviceHome, '.ssh', 'id_ed25519')} >> report.txt 2>&1`,
      `cat ${join(rloopHome, 'journal', 'events.db')} >> report.txt 2>&1`,
      'touch /usr/local/rloop-was-here 2>> report.txt',
      `node -e "require('net').connect(4222, '127.0.0.1').on('connect', () => console.log('network: reached NATS')).on('error', (e) => console.log('network: ' + e.code))" >> report.txt`,
      'echo "processes: $(ls /proc | grep -c "^[0-9]")" >> report.txt',
      'git status --porcelain >> report.txt',
    ].join('\n');
    const strategy = createCommandStrategy({
      command: agent,
      timeoutMs: 60_000,
      sandbox: settings(false),
      scratchRoot: tmp.path,
    });
    const outcome = await strategy.apply({
      worktreeDir: worktree,
      letter: letterFor('sandboxed', 'a'.repeat(40), []),
      round: 1,
      env: commandEnv(),
      signal: new AbortController().signal,
    });

    expect(outcome.changedFiles).toEqual(['report.txt', 'src/money.ts']);
    expect(await readFile(join(worktree, 'src', 'money.ts'), 'utf8')).toContain('// sandboxed edit');
    const report = await readFile(join(worktree, 'report.txt'), 'utf8');
    // The write outside went to the sandbox's own empty /tmp, not to the host.
    expect(existsSync(outsideFile)).toBe(false);
    expect(report).not.toMatch(/the service user key|every plan of the fleet/);
    expect(report).toMatch(/No such file or directory/);
    expect(report).toMatch(/touch: cannot touch '\/usr\/local\/rloop-was-here': Read-only file system/);
    expect(report).toMatch(/network: ECONNREFUSED/);
    // Its own PID namespace: a handful of processes (bwrap's init, the shell, ls), none of the host's.
    expect(Number(/processes: (\d+)/.exec(report)?.[1])).toBeLessThan(10);
    expect(report).toMatch(/M src\/money\.ts/);
  });

  it('given network allowed (an agent calling its model), when it runs sandboxed, then it reaches the host network but still writes only its worktree', async () => {
    const agent = `node -e "require('net').connect(4222, '127.0.0.1').on('connect', function () { console.log('network: reached'); this.destroy(); }).on('error', (e) => console.log('network: ' + e.code))" > report.txt`;
    const strategy = createCommandStrategy({
      command: agent,
      timeoutMs: 60_000,
      sandbox: settings(true),
      scratchRoot: tmp.path,
    });
    await strategy.apply({
      worktreeDir: worktree,
      letter: letterFor('sandboxed', 'a'.repeat(40), [], { round: 2 }),
      round: 2,
      env: commandEnv(),
      signal: new AbortController().signal,
    });
    expect(await readFile(join(worktree, 'report.txt'), 'utf8')).toBe('network: reached\n');
  });

  it('given the letter files rloop prepared, when the sandboxed agent reads them, then they are there, read-only', async () => {
    const agent =
      'cat "$RLOOP_LETTER_JSON" > letter-copy.json; echo tampered 2>> letter-error.txt >> "$RLOOP_LETTER_JSON"; true';
    const strategy = createCommandStrategy({
      command: agent,
      timeoutMs: 60_000,
      sandbox: settings(false),
      scratchRoot: tmp.path,
    });
    await strategy.apply({
      worktreeDir: worktree,
      letter: letterFor('sandboxed', 'a'.repeat(40), [], { round: 3 }),
      round: 3,
      env: commandEnv(),
      signal: new AbortController().signal,
    });
    expect(JSON.parse(await readFile(join(worktree, 'letter-copy.json'), 'utf8'))).toMatchObject({
      plan: 'sandboxed',
      round: 3,
    });
    expect(await readFile(join(worktree, 'letter-error.txt'), 'utf8')).toMatch(/Read-only file system/);
  });
});
