import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type TempDir, commandEnv, findingAt, letterFor, tempDir } from '../testing/repos.test-helpers.js';
import { createAutofixStrategy } from './autofix.js';

describe('the autofix strategy', () => {
  let tmp: TempDir;
  const strategy = createAutofixStrategy();
  const apply = (files: readonly string[]) =>
    strategy.apply({
      worktreeDir: tmp.path,
      letter: letterFor('autofix', 'a'.repeat(40), files.map((file) => findingAt(file, 1))),
      round: 1,
      env: commandEnv(),
      signal: new AbortController().signal,
    });

  beforeEach(async () => {
    tmp = await tempDir('autofix');
    await mkdir(join(tmp.path, 'src'));
    await writeFile(join(tmp.path, 'src', 'a.ts'), 'let a = 1;\nvar b = 2;\nexport { a, b };\n');
    await writeFile(join(tmp.path, 'src', 'b.ts'), 'let c = 3;\nexport { c };\n');
  });

  afterEach(() => tmp.cleanup());

  it('fixes only the files the letter names, with the default config when the repository has none', async () => {
    const outcome = await apply(['src/a.ts', 'README.md', 'src/missing.ts']);
    expect(outcome.changedFiles).toEqual(['src/a.ts']);
    expect(outcome.log).toContain('default config');
    expect(await readFile(join(tmp.path, 'src', 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\nexport { a, b };\n');
    expect(await readFile(join(tmp.path, 'src', 'b.ts'), 'utf8')).toBe('let c = 3;\nexport { c };\n');
  });

  it('uses the repository\'s own flat config when it loads', async () => {
    await writeFile(join(tmp.path, 'src', 'c.js'), 'var d = 1;\nlet e = 2;\nexport { d, e };\n');
    await writeFile(join(tmp.path, 'eslint.config.mjs'), "export default [{ files: ['**/*.js'], rules: { 'no-var': 'error' } }];\n");
    const outcome = await apply(['src/c.js']);
    expect(outcome.log).toContain("repository's eslint.config.mjs");
    // Only the repository's rule applied: no-var, not prefer-const.
    expect(await readFile(join(tmp.path, 'src', 'c.js'), 'utf8')).toBe('let d = 1;\nlet e = 2;\nexport { d, e };\n');
  });

  it('falls back to the default config, and says so, when the repository\'s config cannot load', async () => {
    await writeFile(join(tmp.path, 'eslint.config.mjs'), "import plugin from 'a-plugin-that-is-not-installed';\nexport default [plugin];\n");
    const outcome = await apply(['src/b.ts']);
    expect(outcome.log).toContain('could not be loaded');
    expect(outcome.changedFiles).toEqual(['src/b.ts']);
    expect(await readFile(join(tmp.path, 'src', 'b.ts'), 'utf8')).toBe('const c = 3;\nexport { c };\n');
  });

  it('changes nothing when the letter names no lintable file', async () => {
    const outcome = await apply(['docs/guide.md']);
    expect(outcome).toEqual({ changedFiles: [], log: "no lintable file among the letter's findings" });
  });
});
