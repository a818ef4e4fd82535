import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Finding } from '@rloop/contracts';
import { compilerLinterCritic, runCritic } from '../index.js';
import { type FixtureRepo, fixtureRepo, lineOf } from '../__fixtures__/repo.js';

const BROKEN = `import { parse } from 'node:url';

export function host(link: string): string | null {
  return parse(link).hostname; // DEPRECATED
}

export function total(values: number[]): number {
  let sum = 0; // PREFER-CONST
  const count: number = 'many'; // TS2322
  const unused = values.length; // UNUSED
  return sum + count;
}
`;
const CLEAN = `export function host(link: string): string | null {
  return new URL(link).hostname;
}

export function total(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0);
}
`;

async function lint(
  dir: string,
  files: readonly string[],
  cacheDir?: string,
  options: { useRepoEslintConfig?: boolean } = {},
) {
  const result = await runCritic(compilerLinterCritic(options), {
    repoDir: dir,
    commit: '0'.repeat(40),
    files,
    phase: 'final_sweep',
    ...(cacheDir === undefined ? {} : { cacheDir }),
  });
  if (result.status !== 'reported') throw new Error(`${result.reason}: ${result.message}`);
  return result;
}

describe('toolchain/compiler-linter', () => {
  let broken: FixtureRepo;
  let cacheDir: string;
  let first: { findings: readonly Finding[]; notes: readonly string[] };
  beforeAll(async () => {
    broken = fixtureRepo({ 'src/lib.ts': BROKEN, 'src/clean.ts': CLEAN });
    cacheDir = mkdtempSync(join(tmpdir(), 'rloop-cl-cache-'));
    first = await lint(broken.dir, ['src/lib.ts', 'src/clean.ts'], cacheDir);
  });
  afterAll(() => {
    broken.remove();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('reports tsc errors, ESLint problems and deprecated APIs, all critical (Decision 8)', () => {
    const line = (marker: string): number => lineOf(BROKEN, marker);
    const at = (type: string, marker: string): Finding | undefined =>
      first.findings.find((f) => f.finding_type === type && f.line_range.start === line(marker));
    expect(at('tsc/TS2322', 'TS2322')).toMatchObject({ file: 'src/lib.ts', category: 'correctness' });
    expect(at('deprecation/parse', 'DEPRECATED')).toBeDefined();
    expect(at('eslint/@typescript-eslint/no-unused-vars', 'UNUSED')).toBeDefined();
    expect(at('eslint/prefer-const', 'PREFER-CONST')).toMatchObject({ fixable: true });
    expect(first.findings.every((f) => f.severity === 'critical')).toBe(true);
  });

  it("says of each finding whether a deterministic fix exists — ESLint's, a codemod — or why none does", async () => {
    const line = (marker: string): number => lineOf(BROKEN, marker);
    const at = (type: string, marker: string): Finding | undefined =>
      first.findings.find((f) => f.finding_type === type && f.line_range.start === line(marker));
    expect(at('eslint/prefer-const', 'PREFER-CONST')).toMatchObject({
      autofix: 'eslint',
      autofix_note: "ESLint's own fix for prefer-const (eslint --fix)",
    });
    expect(at('eslint/@typescript-eslint/no-unused-vars', 'UNUSED')).toMatchObject({ autofix: 'none', fixable: false });
    expect(at('tsc/TS2322', 'TS2322')).toMatchObject({ autofix: 'none' });
    expect(at('deprecation/parse', 'DEPRECATED')).toMatchObject({
      autofix: 'none',
      fixable: false,
      autofix_note: expect.stringMatching(/^url\.parse accepts relative and malformed URLs/) as unknown,
    });
    const legacy = fixtureRepo({
      'src/bytes.ts': 'export const pad = new Buffer(8);\nexport const head = (s: string): string => s.substr(0, 2);\n',
    });
    try {
      const { findings } = await lint(legacy.dir, ['src/bytes.ts']);
      expect(
        findings
          .filter((f) => f.finding_type.startsWith('deprecation/'))
          .map((f) => [f.finding_type, f.autofix, f.autofix_note, f.fixable]),
      ).toEqual([
        [
          'deprecation/Buffer',
          'codemod',
          'codemod buffer-constructor: new Buffer(size) → Buffer.alloc(size) (both zero-filled)',
          true,
        ],
        ['deprecation/substr', 'codemod', 'codemod string-substr: substr(0, length) → substring(0, length)', true],
      ]);
    } finally {
      legacy.remove();
    }
  });

  it('lints CommonJS as CommonJS: require() in a package without "type": "module" (or a .cjs file) is how it imports, not a finding; in an ES module package it is', async () => {
    const REQUIRES =
      "const { join } = require('node:path');\nmodule.exports = { where: (name) => join('data', name) };\n";
    const repo = fixtureRepo({
      'package.json': '{ "name": "cjs", "private": true }\n',
      'src/paths.js': REQUIRES,
      'esm/package.json': '{ "type": "module" }\n',
      'esm/paths.js': REQUIRES,
      'esm/legacy.cjs': REQUIRES,
    });
    try {
      const { findings } = await lint(repo.dir, ['src/paths.js', 'esm/paths.js', 'esm/legacy.cjs']);
      expect(findings.map((f) => `${f.file} ${f.finding_type}`)).toEqual([
        'esm/paths.js eslint/@typescript-eslint/no-require-imports',
      ]);
    } finally {
      repo.remove();
    }
  });

  it('says nothing about the clean file', () => {
    expect(first.findings.filter((f) => f.file === 'src/clean.ts')).toEqual([]);
  });

  it('reuses per-file results while a file and its imports are unchanged', async () => {
    const again = await lint(broken.dir, ['src/lib.ts', 'src/clean.ts'], cacheDir);
    expect(again.notes.join(' ')).toMatch(/0 checked, 2 reused/);
    expect(again.findings.map((f) => f.fingerprint).sort()).toEqual(first.findings.map((f) => f.fingerprint).sort());
  });

  it("by default never loads the repository's own config (it is code): the recommended sets review the file and a note says why", async () => {
    const marker = join(tmpdir(), `rloop-eslint-config-ran-${process.pid}`);
    const repo = fixtureRepo({
      'eslint.config.js': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport default [{ files: ['**/*.ts'], rules: { eqeqeq: 'error' } }];\n`,
      'src/same.ts': 'export const same = (a: number, b: number): boolean => a == b;\n',
    });
    try {
      const result = await lint(repo.dir, ['src/same.ts']);
      expect(existsSync(marker)).toBe(false);
      expect(result.findings.map((f) => f.finding_type)).toEqual([]);
      expect(result.notes.join(' ')).toMatch(
        /the repository's eslint\.config\.js was not loaded \(it is code; an operator opts in to running it\)/,
      );
    } finally {
      repo.remove();
      rmSync(marker, { force: true });
    }
  });

  it("uses the repository's own flat config when the operator opts in, and still checks deprecations", async () => {
    const repo = fixtureRepo({
      'eslint.config.js': "export default [{ files: ['**/*.ts'], rules: { 'no-var': 'error' } }];\n",
      'src/old.ts': "import { parse } from 'node:url';\nvar port = parse('http://x:1').port;\nexport { port };\n",
    });
    try {
      const result = await lint(repo.dir, ['src/old.ts'], undefined, { useRepoEslintConfig: true });
      expect(result.findings.map((f) => [f.finding_type, f.line_range.start]).sort()).toEqual([
        ['deprecation/parse', 2],
        ['eslint/no-var', 2],
      ]);
    } finally {
      repo.remove();
    }
  });

  it("falls back to the recommended sets when the repository's ESLint config cannot be loaded, and says so", async () => {
    const repo = fixtureRepo({
      'eslint.config.js': "import missing from 'an-uninstalled-eslint-plugin';\nexport default [missing];\n",
      'src/clean.ts': CLEAN,
    });
    try {
      const result = await lint(repo.dir, ['src/clean.ts'], undefined, { useRepoEslintConfig: true });
      expect(result.findings).toEqual([]);
      expect(result.notes.join(' ')).toMatch(/eslint\.config\.js could not be loaded/);
    } finally {
      repo.remove();
    }
  });

  it('never lets the compiler read through a link out of the checkout (its types would show up in diagnostics)', async () => {
    const outside = fixtureRepo({
      'evil.ts':
        'export interface RootSecretMarker4711 { readonly line: string }\nexport const secret: RootSecretMarker4711 = { line: "x" };\n',
    });
    const repo = fixtureRepo({
      'tsconfig.json': JSON.stringify({
        compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', noEmit: true },
        include: ['src'],
      }),
      'src/main.ts': "import { secret } from './evil';\nexport const n: number = secret;\n",
    });
    symlinkSync(join(outside.dir, 'evil.ts'), join(repo.dir, 'src/evil.ts'));
    try {
      const result = await lint(repo.dir, ['src/main.ts', 'src/evil.ts']);
      expect(JSON.stringify(result)).not.toContain('RootSecretMarker4711');
      // To the compiler the link is not there, so the import does not resolve.
      expect(result.findings.map((f) => [f.file, f.finding_type])).toContainEqual(['src/main.ts', 'tsc/TS2307']);
      expect(result.coverage?.skipped).toEqual([
        expect.objectContaining({ file: 'src/evil.ts', reason: 'outside_checkout' }),
      ]);
    } finally {
      repo.remove();
      outside.remove();
    }
  });
});
