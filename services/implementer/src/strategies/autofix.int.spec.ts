import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type TempDir, commandEnv, findingAt, letterFor, tempDir } from '../testing/repos.test-helpers.js';
import { createAutofixStrategy } from './autofix.js';

describe('the autofix strategy', () => {
  let tmp: TempDir;
  const apply = (files: readonly string[], strategy = createAutofixStrategy()) =>
    strategy.apply({
      worktreeDir: tmp.path,
      letter: letterFor(
        'autofix',
        'a'.repeat(40),
        files.map((file) => findingAt(file, 1)),
      ),
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
    expect(await readFile(join(tmp.path, 'src', 'a.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 2;\nexport { a, b };\n',
    );
    expect(await readFile(join(tmp.path, 'src', 'b.ts'), 'utf8')).toBe('let c = 3;\nexport { c };\n');
  });

  it("never loads the repository's own config unless the operator trusts it (it is code): the default config fixes, and the log says why", async () => {
    const marker = join(tmp.path, 'config-ran');
    await writeFile(join(tmp.path, 'src', 'c.js'), 'var d = 1;\nlet e = 2;\nexport { d, e };\n');
    await writeFile(
      join(tmp.path, 'eslint.config.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport default [{ files: ['**/*.js'], rules: { 'no-var': 'error' } }];\n`,
    );
    const outcome = await apply(['src/c.js']);
    expect(outcome.log).toContain("the repository's eslint.config.mjs is not loaded unless the operator trusts it");
    expect(await readFile(join(tmp.path, 'src', 'c.js'), 'utf8')).toBe('var d = 1;\nlet e = 2;\nexport { d, e };\n');
    expect(await readFile(marker, 'utf8').catch(() => null)).toBeNull();
  });

  it("uses the repository's own flat config when the operator trusts it and it loads", async () => {
    await writeFile(join(tmp.path, 'src', 'c.js'), 'var d = 1;\nlet e = 2;\nexport { d, e };\n');
    await writeFile(
      join(tmp.path, 'eslint.config.mjs'),
      "export default [{ files: ['**/*.js'], rules: { 'no-var': 'error' } }];\n",
    );
    const outcome = await apply(['src/c.js'], createAutofixStrategy({ repositoryEslintConfig: true }));
    expect(outcome.log).toContain("repository's eslint.config.mjs");
    // Only the repository's rule applied: no-var, not prefer-const.
    expect(await readFile(join(tmp.path, 'src', 'c.js'), 'utf8')).toBe('let d = 1;\nlet e = 2;\nexport { d, e };\n');
  });

  it("falls back to the default config, and says so, when the repository's config cannot load", async () => {
    await writeFile(
      join(tmp.path, 'eslint.config.mjs'),
      "import plugin from 'a-plugin-that-is-not-installed';\nexport default [plugin];\n",
    );
    const outcome = await apply(['src/b.ts'], createAutofixStrategy({ repositoryEslintConfig: true }));
    expect(outcome.log).toContain('could not be loaded');
    expect(outcome.changedFiles).toEqual(['src/b.ts']);
    expect(await readFile(join(tmp.path, 'src', 'b.ts'), 'utf8')).toBe('const c = 3;\nexport { c };\n');
  });

  it('changes nothing when the letter names no lintable file', async () => {
    const outcome = await apply(['docs/guide.md']);
    expect(outcome).toEqual({ changedFiles: [], log: "no lintable file among the letter's findings" });
  });

  it('neither reads nor writes a file through a symbolic link that leaves the worktree, and says so', async () => {
    const outside = await tempDir('autofix-outside');
    try {
      await writeFile(join(outside.path, 'victim.ts'), 'let victim = 1;\nexport { victim };\n');
      await mkdir(join(outside.path, 'dir'));
      await writeFile(join(outside.path, 'dir', 'deep.ts'), 'let deep = 1;\nexport { deep };\n');
      await symlink(join(outside.path, 'victim.ts'), join(tmp.path, 'src', 'link.ts'));
      await symlink(join(outside.path, 'dir'), join(tmp.path, 'linked-dir'));
      const outcome = await apply(['src/link.ts', 'linked-dir/deep.ts', 'src/b.ts']);
      expect(outcome.changedFiles).toEqual(['src/b.ts']);
      expect(outcome.log).toContain(
        'skipped linked-dir/deep.ts, src/link.ts: it leads out of the worktree (a symbolic link), so it is neither read nor written',
      );
      expect(await readFile(join(outside.path, 'victim.ts'), 'utf8')).toBe('let victim = 1;\nexport { victim };\n');
      expect(await readFile(join(outside.path, 'dir', 'deep.ts'), 'utf8')).toBe('let deep = 1;\nexport { deep };\n');
    } finally {
      await outside.cleanup();
    }
  });
});
