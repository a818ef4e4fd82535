import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, buildProgram } from '../program.js';
import { type ReviewIo, reviewCommandWith } from './review.js';

function capture(): { io: ReviewIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const cache = mkdtempSync(join(tmpdir(), 'rloop-cli-cache-'));
  return { io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t), now: () => new Date('2026-11-30T00:00:00Z'), cacheRoot: () => cache }, out, err };
}

async function run(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = capture();
  const program = buildProgram([reviewCommandWith(io)]).exitOverride();
  try {
    await program.parseAsync(['node', 'rloop', 'review', ...args]);
    return { code: 0, out: out.join(''), err: err.join('') };
  } catch (error) {
    if (error instanceof CliError) return { code: error.exitCode, out: out.join(''), err: `${err.join('')}${error.message}` };
    throw error;
  }
}

describe('rloop review', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rloop-cli-review-'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/clean.ts'), 'export const add = (a: number, b: number): number => a + b;\n');
    writeFileSync(join(dir, 'src/bad.ts'), 'export function run(req: { query: { code: string } }) {\n  return eval(req.query.code);\n}\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const fast = ['--critics', 'security/sast-scanner', 'security/secrets-detector'];

  it('exits 1 and prints the Markdown letter when there is a critical finding', async () => {
    const result = await run([dir, ...fast]);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^# Letter d_/);
    expect(result.out).toContain('sast/code-injection');
    expect(result.err).toMatch(/security\/sast-scanner reported 1 finding/);
  });

  it('exits 0 on a clean selection and prints JSON with --json', async () => {
    const result = await run([dir, '--files', 'src/clean.ts', '--json', ...fast]);
    expect(result.code).toBe(0);
    const letter = JSON.parse(result.out) as { findings: unknown[]; phase: string };
    expect(letter).toMatchObject({ findings: [], phase: 'final_sweep' });
  });

  it('prints SARIF 2.1.0 with --sarif', async () => {
    const result = await run([dir, '--sarif', ...fast]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ version: '2.1.0', runs: [{ tool: { driver: { name: 'rloop' } } }] });
  });

  it('exits 2 on errors: a missing path, two formats, an unknown critic, or a critic that cannot run', async () => {
    expect((await run([join(dir, 'nope'), ...fast])).code).toBe(2);
    expect((await run([dir, '--json', '--md', ...fast])).code).toBe(2);
    expect((await run([dir, '--critics', 'no/such-critic'])).code).toBe(2);
    writeFileSync(join(dir, 'package.json'), '{ "dependencies": { "left-pad": "1.3.0" } }\n');
    const audit = await run([dir, '--files', 'src/clean.ts', '--critics', 'toolchain/dependency-audit']);
    expect(audit.code).toBe(2);
    expect(audit.err).toMatch(/incomplete review: toolchain\/dependency-audit \(not_runnable\)/);
    expect((await run([dir, '--skip', 'no/such-critic', ...fast])).code).toBe(2);
    expect((await run([dir, '--files', 'src/clean.ts', '--skip', 'toolchain/dependency-audit', '--critics', 'toolchain/dependency-audit', 'security/secrets-detector'])).code).toBe(0);
  });

  it('exits 2 when a file it reviews could not be analysed (too large), 0 once the operator sets a bound that reads it', async () => {
    const big = mkdtempSync(join(tmpdir(), 'rloop-cli-big-'));
    try {
      mkdirSync(join(big, 'src'));
      writeFileSync(join(big, 'src/padded.ts'), `// ${'x'.repeat(4 * 1024 * 1024)}\nexport const two = 2;\n`);
      // Alone, the padded file makes the core SAST critic fail (it analysed nothing); beside another it is a gap.
      expect((await run([big, ...fast])).err).toMatch(/incomplete review: security\/sast-scanner \(no_files_analysed\)/);
      writeFileSync(join(big, 'src/one.ts'), 'export const one = 1;\n');
      const skipped = await run([big, ...fast]);
      expect(skipped.code).toBe(2);
      expect(skipped.err).toMatch(/incomplete review: not analysed: src\/padded\.ts \(too large: \d+ bytes, over the 4194304-byte bound\) by security\/sast-scanner/);
      expect(skipped.out).toContain('## Files not analysed');
      expect((await run([big, '--max-file-bytes', String(8 * 1024 * 1024), ...fast])).code).toBe(0);
      await expect(run([big, '--max-file-bytes', '0', ...fast])).rejects.toThrow(/expected a positive whole number, got "0"/);
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });

  it('reviews a sub-directory that its repository ignores as its own tree', async () => {
    const project = mkdtempSync(join(tmpdir(), 'rloop-cli-project-'));
    try {
      writeFileSync(join(project, '.gitignore'), '.rloop/\n');
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
      mkdirSync(join(project, '.rloop/samples/app/src'), { recursive: true });
      writeFileSync(join(project, '.rloop/samples/app/src/bad.ts'), 'export function run(req: { query: { code: string } }) {\n  return eval(req.query.code);\n}\n');
      const result = await run([join(project, '.rloop/samples/app'), '--json', ...fast]);
      expect(result.code).toBe(1);
      expect((JSON.parse(result.out) as { findings: { finding_type: string }[] }).findings.map((f) => f.finding_type)).toEqual(['sast/code-injection']);
      expect((await run([join(project, '.rloop/samples/app'), '--base', 'HEAD', ...fast])).err).toMatch(/--base needs a git repository/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
