import { posix } from 'node:path';
import { git } from '@rloop/git';
import { type TestLayout, isTestPath, readWorktreeFile, realWorktreeRoot } from '@rloop/llm';

// An example longer than this is not shown: it would only cost tokens.
const MAX_EXAMPLE_BYTES = 16 * 1024;

/** The most common directory of the test files (`test/` for `test/a.test.mjs`), or undefined. Pure. */
export function commonTestDir(testFiles: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const file of testFiles) {
    const dir = posix.dirname(file);
    if (dir !== '.') counts.set(`${dir}/`, (counts.get(`${dir}/`) ?? 0) + 1);
  }
  return [...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b))[0]?.[0];
}

/**
 * What the test writer may know of the repository: its test files, one of them as an example
 * (the smallest, as the cheapest to show) and its module system, never the implementation.
 */
export async function testLayoutOf(worktreeDir: string, testCommand: string): Promise<TestLayout> {
  const listed = await git(['ls-files', '-z'], { cwd: worktreeDir });
  const testFiles = listed.stdout
    .split('\u0000')
    .filter((f) => f !== '' && isTestPath(f))
    .sort();
  let example: TestLayout['example'] = null;
  const root = await realWorktreeRoot(worktreeDir);
  for (const path of testFiles) {
    // Read inside the worktree only: a tracked symbolic link leading out of it is never shown to the model.
    const content = await readWorktreeFile(root, path, MAX_EXAMPLE_BYTES).then(
      (file) => file.content,
      () => null,
    );
    if (content === null) continue;
    if (example === null || content.length < example.content.length) example = { path, content };
  }
  const testDir = commonTestDir(testFiles);
  return {
    testFiles,
    example,
    testCommand,
    moduleSystem: await moduleSystemOf(root),
    ...(testDir === undefined ? {} : { testDir }),
  };
}

/** How Node loads the repository's .js files: package.json `type` (read inside the worktree; CommonJS when absent, as Node does). */
async function moduleSystemOf(root: string): Promise<'commonjs' | 'module'> {
  const manifest = await readWorktreeFile(root, 'package.json', MAX_EXAMPLE_BYTES * 4).then(
    (file) => file.content,
    () => null,
  );
  if (manifest === null) return 'commonjs';
  try {
    return (JSON.parse(manifest) as { type?: unknown }).type === 'module' ? 'module' : 'commonjs';
  } catch {
    // Not JSON: Node refuses such a package; the default stands.
    return 'commonjs';
  }
}
