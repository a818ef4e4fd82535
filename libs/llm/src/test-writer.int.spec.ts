import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeAnthropic, fakeTurn, startFakeAnthropic } from '@rloop/testing';
import {
  createCommandTestRunner,
  type ModelCatalogue,
  type ModelSpec,
  findModelOrThrow,
  writeFailingTests,
} from './index.js';
import {
  clientFor,
  createTempRepo,
  GREEN_TEST,
  GREEN_TEST_PATH,
  loadTestCatalogue,
  RED_TEST,
  RED_TEST_PATH,
  SAMPLE_FILES,
  sampleLetter,
  TEST_COMMAND,
  TEST_ENV,
  TEST_MODEL,
  type TempRepo,
} from './__fixtures__/helpers.js';

interface ToolResult {
  type: string;
  tool_use_id?: string;
  is_error?: boolean;
  content?: string;
}

async function exists(path: string): Promise<boolean> {
  return await access(path).then(
    () => true,
    () => false,
  );
}

describe('writeFailingTests (the test writer) against the fake API and a real node --test suite', () => {
  let catalogue: ModelCatalogue;
  let spec: ModelSpec;
  let repo: TempRepo;
  let fake: FakeAnthropic | undefined;
  const runTests = createCommandTestRunner({ command: TEST_COMMAND, timeoutMs: 30_000, env: TEST_ENV });
  const layout = {
    testFiles: ['test/double.test.js'],
    example: { path: 'test/double.test.js', content: SAMPLE_FILES['test/double.test.js'] ?? '' },
    testCommand: TEST_COMMAND,
    testDir: 'test/',
  };

  beforeAll(async () => {
    catalogue = await loadTestCatalogue();
    spec = findModelOrThrow(catalogue, TEST_MODEL);
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    await repo.remove();
  });

  it('keeps a red test, reports and removes a test that passes at once', async () => {
    repo = await createTempRepo(SAMPLE_FILES);
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUse('write_test_file', {
          path: RED_TEST_PATH,
          content: RED_TEST,
          finding_ids: ['f-clamp-min'],
          test_name: 'clamp returns min below the range',
        }),
        fakeTurn.toolUse('write_test_file', {
          path: GREEN_TEST_PATH,
          content: GREEN_TEST,
          finding_ids: ['f-clamp-min'],
          test_name: 'clamp returns max above the range',
        }),
        fakeTurn.text('Wrote two tests for f-clamp-min.'),
      ],
    });
    const result = await writeFailingTests({
      letter: sampleLetter(repo.base),
      worktreeDir: repo.dir,
      testLayout: layout,
      runTests,
      client: clientFor(fake.url),
      spec,
    });

    expect(result.testsWritten).toEqual({
      round: 1,
      letter_id: '01JTESTLETTER0000000000000',
      tests: [{ file: RED_TEST_PATH, finding_ids: ['f-clamp-min'], name: 'clamp returns min below the range' }],
      red: ['clamp returns min below the range'],
      passed_at_once: ['clamp returns max above the range'],
      not_clean: [],
    });
    expect(result.redTests).toEqual([expect.objectContaining({ file: RED_TEST_PATH, content: RED_TEST })]);
    expect(await exists(join(repo.dir, RED_TEST_PATH))).toBe(true);
    expect(await exists(join(repo.dir, GREEN_TEST_PATH))).toBe(false);
    expect(result.usage).toMatchObject({ dispatch: 'test-writer', round: 1, model: TEST_MODEL });
    expect(fake.protocolErrors).toEqual([]);
    // A fresh context that never saw the implementation.
    const first = JSON.stringify(fake.messageCalls()[0]?.body.messages);
    expect(first).toContain('clamp(-5, 0, 10) === 0');
    expect(first).not.toContain('value > max');
  });

  it('refuses non-test paths, existing tests, skipped tests, forbidden snippets and reading the implementation', async () => {
    repo = await createTempRepo(SAMPLE_FILES);
    const write = (path: string, content: string) =>
      fakeTurn.toolUse('write_test_file', { path, content, finding_ids: ['f-clamp-min'], test_name: path });
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUses([
          {
            name: 'write_test_file',
            input: { path: 'src/math.js', content: RED_TEST, finding_ids: ['f-clamp-min'], test_name: 'a' },
          },
          { name: 'read_test_file', input: { path: 'src/math.js' } },
        ]),
        write('test/double.test.js', RED_TEST),
        write('test/skipped.test.js', RED_TEST.replace("test('", "test.skip('")),
        write('test/mocked.test.js', `${RED_TEST}\n// mock.method(math, 'clamp')\n`),
        write('../escape.test.js', RED_TEST),
        fakeTurn.text('Done.'),
      ],
    });
    const result = await writeFailingTests({
      letter: sampleLetter(repo.base),
      worktreeDir: repo.dir,
      testLayout: layout,
      runTests,
      client: clientFor(fake.url),
      spec,
    });
    expect(result.testsWritten.tests).toEqual([]);
    const results = fake
      .messageCalls()
      .slice(1)
      .map((c) =>
        (c.body.messages[c.body.messages.length - 1]?.content as ToolResult[]).map((r) => ({
          error: r.is_error === true,
          content: r.content ?? '',
        })),
      );
    expect(results.flat().every((r) => r.error)).toBe(true);
    expect(results.flat().map((r) => r.content)).toEqual([
      expect.stringContaining('is not a test file'),
      expect.stringContaining('cannot read the implementation'),
      expect.stringContaining('existing test file'),
      expect.stringContaining('must not be skipped'),
      expect.stringContaining('forbids `mock.method`'),
      expect.stringContaining('".." is not allowed'),
    ]);
    expect(await exists(join(repo.dir, 'test/skipped.test.js'))).toBe(false);
    expect(fake.protocolErrors).toEqual([]);
  });

  it('given the loop’s linter, when a test it writes has warnings, then it is sent back with them, fixed by the test writer, and one left with warnings is dropped and reported', async () => {
    repo = await createTempRepo(SAMPLE_FILES);
    const UNUSED = RED_TEST.replace("test('", "const unused = 1;\ntest('");
    const OTHER = 'test/other.test.js';
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUse('write_test_file', {
          path: RED_TEST_PATH,
          content: UNUSED,
          finding_ids: ['f-clamp-min'],
          test_name: 'clamp returns min below the range',
        }),
        fakeTurn.toolUse('write_test_file', {
          path: RED_TEST_PATH,
          content: RED_TEST,
          finding_ids: ['f-clamp-min'],
          test_name: 'clamp returns min below the range',
        }),
        fakeTurn.toolUse('write_test_file', {
          path: OTHER,
          content: UNUSED.replace('clamp returns min', 'clamp still returns min'),
          finding_ids: ['f-clamp-min'],
          test_name: 'left with a warning',
        }),
        fakeTurn.text('Done.'),
      ],
    });
    // A stand-in for the compiler-linter critic: a test declaring `unused` has a warning.
    const lintTest = async (root: string, files: readonly string[] = []) =>
      (
        await Promise.all(
          files.map(async (file) =>
            (await readFile(join(root, file), 'utf8')).includes('const unused')
              ? [
                  {
                    file,
                    line: 3,
                    rule: 'eslint/no-unused-vars',
                    message: "'unused' is assigned a value but never used.",
                  },
                ]
              : [],
          ),
        )
      ).flat();
    const result = await writeFailingTests({
      letter: sampleLetter(repo.base),
      worktreeDir: repo.dir,
      testLayout: { ...layout, moduleSystem: 'commonjs' },
      runTests,
      client: clientFor(fake.url),
      spec,
      lintTest,
    });

    const first = fake.messageCalls()[1]?.body.messages.at(-1)?.content as ToolResult[];
    expect(first[0]).toMatchObject({
      is_error: true,
      content: expect.stringContaining(
        "report 1 warning(s) in it, and a test's warnings count like the code's:\ntest/clamp-lower-bound.test.js:3 eslint/no-unused-vars",
      ) as unknown,
    });
    expect(result.testsWritten).toMatchObject({
      red: ['clamp returns min below the range'],
      not_clean: ['left with a warning'],
    });
    expect(result.notClean).toEqual([OTHER]);
    expect(await exists(join(repo.dir, OTHER))).toBe(false);
    // The test writer was told how the repository loads modules, and that its tests are linted.
    const prompt = JSON.stringify(fake.messageCalls()[0]?.body.messages);
    expect(prompt).toContain('Module system: CommonJS');
    expect(prompt).toContain("checked by the loop's compiler and linter like the code");
  });
});
