import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Letter } from '@rloop/contracts';
import { freePort, writeZip } from '@rloop/testing';
import { MINIMIST_ADVISORY, writeMinimistRepo } from './advisories.test-helpers.js';

// `rloop advisories update` and `rloop review --advisories` as a user runs them (the built CLI),
// against a local server laid out like osv.dev's export bucket: this machine cannot reach osv.dev.

const CLI = fileURLToPath(new URL('../../bin/rloop.js', import.meta.url));

function rloop(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, RLOOP_ADVISORIES: '', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      },
    );
  });
}

let work: string;
let server: Server;
let base: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rloop-cli-advisories-'));
  writeZip(join(work, 'npm.zip'), [{ name: `${MINIMIST_ADVISORY.id}.json`, data: JSON.stringify(MINIMIST_ADVISORY) }]);
  const zip = readFileSync(join(work, 'npm.zip'));
  server = createServer((req, res) => {
    if (req.url === '/npm/all.zip') res.end(zip);
    else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});

describe('rloop advisories update', () => {
  it('downloads the export into $RLOOP_HOME/advisories and says how to use it; rloop review then audits offline', async () => {
    const home = join(work, 'home');
    const update = await rloop(['advisories', 'update', '--ecosystem', 'npm', '--url', base], { RLOOP_HOME: home });
    expect(update).toMatchObject({ code: 0 });
    expect(update.stdout).toContain(
      `npm: 1 records, newest modified 2026-11-01T00:00:00Z, 0.0 MiB → ${join(home, 'advisories', 'npm', 'all.zip')}`,
    );
    expect(update.stdout).toContain(`Use it: RLOOP_ADVISORIES=${join(home, 'advisories')}`);

    const repo = join(work, 'repo');
    writeMinimistRepo(repo);
    // RLOOP_ADVISORIES is what an operator sets; no registry is asked (npm_config_registry points nowhere).
    const review = await rloop(['review', repo, '--json', '--no-cache', '--critics', 'toolchain/dependency-audit'], {
      RLOOP_ADVISORIES: join(home, 'advisories'),
      npm_config_registry: 'http://127.0.0.1:9/',
    });
    expect(review.code).toBe(1);
    const letter = Letter.parse(JSON.parse(review.stdout));
    expect(letter.findings.map((f) => [f.finding_type, f.file, f.line_range.start])).toEqual([
      ['cve/GHSA-vh95-rmgr-6w4m', 'package.json', 3],
    ]);
    // The notes say which export was read and how old it is (the review runs at today's date).
    expect(review.stderr).toMatch(
      /OSV export .*advisories: 1 npm record\(s\); newest record modified 2026-11-01, \d+ day\(s\) before this review/,
    );
  }, 60_000);

  it('exits 1 with the way around it when the host cannot be reached, and 2 for an unknown ecosystem', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const offline = await rloop(['advisories', 'update', '--url', closed, '--dir', join(work, 'offline')]);
    expect(offline.code).toBe(1);
    expect(offline.stderr).toMatch(
      /rloop: could not reach http:\/\/127\.0\.0\.1:\d+\/npm\/all\.zip \(ECONNREFUSED.*\): this machine has no route to it; download .* and copy it to .*offline\/npm\/all\.zip/,
    );
    const unknown = await rloop(['advisories', 'update', '--ecosystem', 'maven', '--dir', join(work, 'x')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown ecosystem "maven"; the audit reads npm, crates.io, Go, PyPI/);
    writeFileSync(join(work, 'one.zip'), '');
    const file = await rloop(['advisories', 'update'], { RLOOP_ADVISORIES: join(work, 'one.zip') });
    expect(file.stderr).toMatch(/RLOOP_ADVISORIES names a file/);
  }, 60_000);
});
