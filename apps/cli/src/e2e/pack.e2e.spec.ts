import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function run(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // PATH without the workspace's node_modules/.bin: `npx rloop` must find the installed package, not the checkout.
    const env = {
      ...process.env,
      PATH: (process.env['PATH'] ?? '')
        .split(':')
        .filter((p) => !p.includes('node_modules'))
        .join(':'),
      NO_COLOR: '1',
    };
    execFile(
      command,
      [...args],
      { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
      },
    );
  });
}

// The package users install: packed from the build, installed from the tarball into an empty
// directory (third-party dependencies from the npm registry), run with npx there.
describe('the rloop npm package', () => {
  let work: string;
  let project: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'rloop-pack-'));
    const packed = await run(process.execPath, [join(ROOT, 'scripts', 'pack-cli.mjs'), '--out', work], ROOT);
    if (packed.code !== 0) throw new Error(`pack failed: ${packed.stderr}`);
    const tarball = packed.stdout.trim();
    project = join(work, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], project);
    if (installed.code !== 0) throw new Error(`npm install of ${tarball} failed: ${installed.stderr}`);
    writeFileSync(join(project, 'src', 'app.js'), 'export function run(req) {\n  return eval(req.query.code);\n}\n');
  }, 600_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('installs into an empty directory and `npx rloop review .` reviews it there', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'apps', 'cli', 'package.json'), 'utf8')) as { version: string };
    expect((await run('npx', ['rloop', '--version'], project)).stdout.trim()).toBe(version.version);
    // The dependency audit needs the registry's advisory endpoint, which this network does not serve.
    const review = await run('npx', ['rloop', 'review', '.', '--skip', 'toolchain/dependency-audit'], project);
    expect(review.code).toBe(1);
    expect(review.stdout).toMatch(
      /^src\/app\.js\n {2}2:1 {2}critical +Code injection: request input reaches eval {2}sast\/code-injection$/m,
    );
    expect(review.stdout).toMatch(/✖ 1 finding \(1 critical, 0 medium, 0 low\) in 1 file/);
    const sarif = await run(
      'npx',
      ['rloop', 'review', '.', '--skip', 'toolchain/dependency-audit', '--format', 'sarif'],
      project,
    );
    expect(JSON.parse(sarif.stdout)).toMatchObject({
      version: '2.1.0',
      runs: [
        { tool: { driver: { name: 'rloop', version: version.version } }, invocations: [{ executionSuccessful: true }] },
      ],
    });
  }, 300_000);
});
