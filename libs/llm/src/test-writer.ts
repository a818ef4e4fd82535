import { rm } from 'node:fs/promises';
import type { Finding, Letter } from '@rloop/contracts';
import { z } from 'zod';
import type { BudgetState } from './budget.js';
import type { LlmClient } from './client.js';
import { dataBlock } from './data-blocks.js';
import { Dispatcher, textBlock } from './dispatcher.js';
import { describeWarnings, type WarningLister } from './lint-warnings.js';
import type { ModelSpec } from './models.js';
import { TEST_WRITER_SYSTEM_PROMPT } from './prompts.js';
import { runPassed, type TestRunner, type TestRunResult } from './test-runner.js';
import { forbiddenSnippets, isTestPath, testSourceStats } from './test-source.js';
import { defineTool, runToolLoop, type ToolLoopResult } from './tool-loop.js';
import type { UsageRecord } from './usage.js';
import { readWorktreeFile, realWorktreeRoot, resolveInWorktree, writeWorktreeFile } from './worktree.js';

/** What the test writer may know about the repository's tests (and nothing of the implementation). */
export interface TestLayout {
  /** Existing test files, repo-relative. */
  readonly testFiles: readonly string[];
  /** One existing test to copy conventions from. */
  readonly example: { readonly path: string; readonly content: string } | null;
  /** The plan's test command (shown for context; the test writer runs nothing itself). */
  readonly testCommand: string;
  /** Where new tests belong, e.g. `test/`. */
  readonly testDir?: string;
  /** How the repository's JavaScript loads modules (package.json `type`): tests follow it. */
  readonly moduleSystem?: 'commonjs' | 'module';
}

/** A test file written for the letter, with the content it had when it was confirmed red. */
export interface WrittenTest {
  readonly file: string;
  readonly finding_ids: readonly string[];
  readonly name: string;
  readonly content: string;
}

/** The data of the TestsWritten event. */
export interface TestsWrittenData {
  readonly round: number;
  readonly letter_id: string;
  readonly tests: { readonly file: string; readonly finding_ids: string[]; readonly name: string }[];
  readonly red: string[];
  readonly passed_at_once: string[];
  /** Tests the test writer left with compiler or linter warnings: deleted, not kept. */
  readonly not_clean: string[];
}

export interface WriteFailingTestsOptions {
  readonly letter: Letter;
  readonly worktreeDir: string;
  readonly testLayout: TestLayout;
  /** Runs given test files in the worktree (createCommandTestRunner over the plan's test command). */
  readonly runTests: TestRunner;
  readonly client: LlmClient;
  readonly spec: ModelSpec;
  readonly budget?: BudgetState;
  /** Model calls allowed. Default 12. */
  readonly stepBudget?: number;
  /** Default 8192. */
  readonly maxOutputTokens?: number;
  readonly caching?: boolean;
  /** Which paths count as tests (where the test writer may write). Default isTestPath. */
  readonly isTestFile?: (path: string) => boolean;
  /**
   * The compiler and linter the loop checks code with, on one test file. A test it warns about is
   * sent back to the test writer to fix (the loop counts a test's warnings like the code's); one
   * still warned about at the end is deleted and reported in not_clean. Absent: not checked.
   */
  readonly lintTest?: WarningLister;
  readonly signal?: AbortSignal;
}

export interface WriteFailingTestsResult {
  readonly testsWritten: TestsWrittenData;
  /** Kept tests (confirmed red), with their content: the fixed points verifyFix checks. */
  readonly redTests: readonly WrittenTest[];
  /** Files deleted because their tests passed at once (or never finished). */
  readonly removed: readonly string[];
  /** Files deleted because their run timed out: neither red nor green. */
  readonly timedOut: readonly string[];
  /** Files deleted because the test writer left compiler or linter warnings in them. */
  readonly notClean: readonly string[];
  readonly outcome: 'finished' | 'step_budget_exhausted';
  readonly runs: readonly { readonly file: string; readonly result: TestRunResult }[];
  readonly usage: UsageRecord;
}

const SKIPPING = /\.(?:skip|only|todo)\b|\b(?:xit|xdescribe|fit|fdescribe)\s*\(|\{\s*(?:skip|todo|only)\s*:/;

function letterForTests(letter: Letter): string {
  const findings = letter.findings.map((f: Finding) => ({
    id: f.id,
    severity: f.severity,
    category: f.category,
    title: f.title,
    file: f.file,
    line_range: f.line_range,
    current_behaviour: f.current_behaviour,
    expected_behaviour: f.expected_behaviour,
    observable_test_conditions: f.observable_test_conditions,
    forbidden_in_test: f.forbidden_in_test,
  }));
  return JSON.stringify(
    { letter_id: letter.letter_id, round: letter.round, summary: letter.summary, findings },
    null,
    2,
  );
}

/**
 * The test writer (step a of the anthropic strategy): a fresh context that sees the letter and
 * the test layout — not the implementation — writes a test file per finding condition, then
 * runs each new file alone. Failing files are red and kept; a file that passes at once proves
 * nothing: it is reported in passed_at_once and deleted.
 */
export async function writeFailingTests(options: WriteFailingTestsOptions): Promise<WriteFailingTestsResult> {
  const root = await realWorktreeRoot(options.worktreeDir);
  const isTest = options.isTestFile ?? isTestPath;
  const caching = options.caching ?? true;
  const findingsById = new Map(options.letter.findings.map((f) => [f.id, f]));
  const existing = new Set(options.testLayout.testFiles);
  const written = new Map<string, WrittenTest>();
  const dispatcher = new Dispatcher({
    client: options.client,
    spec: options.spec,
    dispatch: 'test-writer',
    round: options.letter.round,
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });

  const writeTestFile = defineTool(
    'write_test_file',
    'Create a new test file (or replace one you wrote earlier in this session). The path must be a test file, relative to the repository root. One test per file.',
    z.strictObject({
      path: z.string().min(1).max(1024),
      content: z.string().min(1).max(200_000),
      finding_ids: z.array(z.string().min(1).max(128)).min(1).max(20),
      test_name: z.string().min(1).max(500),
    }),
    async (input) => {
      const target = await resolveInWorktree(root, input.path);
      if (!isTest(target.relative))
        throw new Error(
          `${target.relative} is not a test file; put tests ${options.testLayout.testDir === undefined ? 'in a test directory or a *.test.* file' : `under ${options.testLayout.testDir}`}`,
        );
      if (existing.has(target.relative) && !written.has(target.relative))
        throw new Error(
          `${target.relative} is an existing test file; write a new file instead of changing existing tests`,
        );
      const unknown = input.finding_ids.filter((id) => !findingsById.has(id));
      if (unknown.length > 0) throw new Error(`unknown finding ids: ${unknown.join(', ')}`);
      if (SKIPPING.test(input.content)) throw new Error('tests must not be skipped, focused or marked todo');
      if (testSourceStats(input.content).tests === 0 && !/\bdef\s+test_|\bfunc\s+Test/.test(input.content))
        throw new Error('the file declares no test');
      for (const id of input.finding_ids) {
        const snippet = forbiddenSnippets(findingsById.get(id)?.forbidden_in_test ?? []).find((s) =>
          input.content.includes(s),
        );
        if (snippet !== undefined) throw new Error(`finding ${id} forbids \`${snippet}\` in its tests`);
      }
      await writeWorktreeFile(root, target.relative, input.content);
      written.set(target.relative, {
        file: target.relative,
        finding_ids: input.finding_ids,
        name: input.test_name,
        content: input.content,
      });
      const warnings = options.lintTest === undefined ? [] : await options.lintTest(root, [target.relative]);
      if (warnings.length > 0) {
        throw new Error(
          `wrote ${target.relative}, but the loop's compiler and linter report ${warnings.length} warning(s) in it, and a test's warnings count like the code's:\n${describeWarnings(warnings)}\nWrite the file again without them.`,
        );
      }
      return `wrote ${target.relative}`;
    },
  );

  const readTestFile = defineTool(
    'read_test_file',
    'Read an existing test file (only test files can be read).',
    z.strictObject({ path: z.string().min(1).max(1024) }),
    async (input) => {
      const target = await resolveInWorktree(root, input.path);
      if (!isTest(target.relative))
        throw new Error(`${target.relative} is not a test file; the test writer cannot read the implementation`);
      const { content } = await readWorktreeFile(root, target.relative);
      return content;
    },
  );

  const moduleSystem = options.testLayout.moduleSystem;
  const layout = [
    '## Test layout',
    `Test command: ${options.testLayout.testCommand}`,
    ...(options.testLayout.testDir === undefined ? [] : [`New tests go under: ${options.testLayout.testDir}`]),
    ...(moduleSystem === undefined
      ? []
      : [
          moduleSystem === 'commonjs'
            ? 'Module system: CommonJS (package.json has no "type": "module"): a .js test loads modules with require() and exports with module.exports, as the example does; write your tests the same way.'
            : 'Module system: ES modules (package.json has "type": "module"): a .js test uses import and export, as the example does; write your tests the same way.',
        ]),
    ...(options.lintTest === undefined
      ? []
      : [
          "Your tests are checked by the loop's compiler and linter like the code: a test file with warnings (an unused variable, a deprecated API) is sent back to you to fix.",
        ]),
    'Existing test files:',
    ...(options.testLayout.testFiles.length === 0
      ? ['(none)']
      : options.testLayout.testFiles.slice(0, 500).map((f) => `- ${f}`)),
    ...(options.testLayout.example === null
      ? []
      : [
          '',
          `Example test (${options.testLayout.example.path}):`,
          dataBlock('test', options.testLayout.example.content, { path: options.testLayout.example.path }),
        ]),
  ].join('\n');

  let loop: ToolLoopResult;
  try {
    loop = await runToolLoop({
      dispatcher,
      system: TEST_WRITER_SYSTEM_PROMPT,
      tools: [writeTestFile, readTestFile],
      firstMessage: [
        textBlock(`## The letter\n${dataBlock('letter', letterForTests(options.letter))}`),
        textBlock(layout, caching),
        textBlock('Write the failing tests for every finding of the letter now.'),
      ],
      // TODO(calibration): 12 calls covers a letter of K=7 findings with a retry or two; revisit with step counts from real runs.
      stepBudget: options.stepBudget ?? 12,
      maxOutputTokens: options.maxOutputTokens ?? 8192,
      caching,
    });
  } catch (error) {
    throw dispatcher.annotate(error);
  }

  const red: WrittenTest[] = [];
  const passedAtOnce: WrittenTest[] = [];
  const timedOut: WrittenTest[] = [];
  const notClean: WrittenTest[] = [];
  const runs: { file: string; result: TestRunResult }[] = [];
  for (const test of written.values()) {
    // What the test writer did not fix is not kept: the loop would count it against the fix.
    if (options.lintTest !== undefined && (await options.lintTest(root, [test.file])).length > 0) {
      notClean.push(test);
      continue;
    }
    const result = await options.runTests({
      worktreeDir: root,
      testFiles: [test.file],
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    runs.push({ file: test.file, result });
    if (result.timedOut) timedOut.push(test);
    else if (runPassed(result)) passedAtOnce.push(test);
    else red.push(test);
  }
  for (const test of [...passedAtOnce, ...timedOut, ...notClean])
    await rm((await resolveInWorktree(root, test.file)).absolute, { force: true });

  return {
    testsWritten: {
      round: options.letter.round,
      letter_id: options.letter.letter_id,
      tests: red.map((t) => ({ file: t.file, finding_ids: [...t.finding_ids], name: t.name })),
      red: red.map((t) => t.name),
      passed_at_once: passedAtOnce.map((t) => t.name),
      not_clean: notClean.map((t) => t.name),
    },
    redTests: red,
    removed: [...passedAtOnce, ...timedOut, ...notClean].map((t) => t.file),
    timedOut: timedOut.map((t) => t.file),
    notClean: notClean.map((t) => t.file),
    outcome: loop.outcome,
    runs,
    usage: dispatcher.record,
  };
}
