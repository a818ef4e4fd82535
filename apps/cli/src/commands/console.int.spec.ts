// `rloop console` as a user runs it: the address `rloop up` left under RLOOP_HOME, printed.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleAddressFile, writeConsoleAddress } from './console.js';

const RLOOP = fileURLToPath(new URL('../../bin/rloop.js', import.meta.url));

function rloop(home: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [RLOOP, ...args], {
    env: { ...process.env, RLOOP_HOME: home },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('rloop console', () => {
  it('prints the URL `rloop up` left, whose token file only its owner can read', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rloop-console-'));
    try {
      const file = await writeConsoleAddress(
        { url: 'http://127.0.0.1:9460/', token: 'a-token-of-sixteen-chars' },
        consoleAddressFile(home),
      );
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const run = rloop(home, 'console', '--print');
      expect(run).toMatchObject({ status: 0, stdout: 'console: http://127.0.0.1:9460/\n' });
      expect(run.stdout).not.toContain('a-token');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('says how to start the console when the fleet is not up', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rloop-console-'));
    try {
      const run = rloop(home, 'console', '--print');
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/rloop: no console address in .*console\.json — start the fleet with `rloop up`/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
