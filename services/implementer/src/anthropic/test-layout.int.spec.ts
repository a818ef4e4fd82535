import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TempDir, gitOut, tempDir } from '../testing/repos.test-helpers.js';
import { testLayoutOf } from './test-layout.js';

describe('the test layout shown to the test writer', () => {
  let tmp: TempDir;
  let repo: string;

  beforeAll(async () => {
    tmp = await tempDir('layout');
    repo = join(tmp.path, 'repo');
    await mkdir(join(repo, 'test'), { recursive: true });
    await writeFile(join(tmp.path, 'private.txt'), 'a file outside the worktree\n');
    await writeFile(
      join(repo, 'test', 'money.test.mjs'),
      "import { test } from 'node:test';\ntest('money', () => {});\n",
    );
    // The smallest "test file" is a tracked link to a file outside: it must never be read.
    await symlink(join(tmp.path, 'private.txt'), join(repo, 'test', 'a.test.mjs'));
    gitOut(tmp.path, ['init', '-q', '-b', 'main', repo]);
    gitOut(repo, ['add', '-A']);
    gitOut(repo, ['commit', '-qm', 'tests']);
  });

  afterAll(() => tmp.cleanup());

  it('given a tracked test file that is a symbolic link out of the worktree, when the layout is read, then the example is a real test file and the outside file is never shown', async () => {
    const layout = await testLayoutOf(repo, 'node --test');
    expect(layout.testFiles).toEqual(['test/a.test.mjs', 'test/money.test.mjs']);
    expect(layout.example).toEqual({
      path: 'test/money.test.mjs',
      content: "import { test } from 'node:test';\ntest('money', () => {});\n",
    });
    expect(JSON.stringify(layout)).not.toContain('outside the worktree');
  });

  it('given the repository’s package.json, when the layout is read, then it says the module system the tests follow (CommonJS unless "type": "module", as Node does)', async () => {
    expect((await testLayoutOf(repo, 'node --test')).moduleSystem).toBe('commonjs');
    await writeFile(join(repo, 'package.json'), '{ "name": "esm", "type": "module" }\n');
    expect((await testLayoutOf(repo, 'node --test')).moduleSystem).toBe('module');
    await writeFile(join(repo, 'package.json'), '{ "name": "cjs", "type": "commonjs" }\n');
    expect((await testLayoutOf(repo, 'node --test')).moduleSystem).toBe('commonjs');
  });
});
