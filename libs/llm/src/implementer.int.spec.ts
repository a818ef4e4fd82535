import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeAnthropic, type FakeMessagesRequest, fakeTurn, startFakeAnthropic } from '@rloop/testing';
import { createCommandTestRunner, findModelOrThrow, implementFix, type ModelSpec, runPassed } from './index.js';
import {
  clientFor,
  createTempRepo,
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
  is_error?: boolean;
  content?: string;
}

function lastToolResults(request: FakeMessagesRequest): ToolResult[] {
  return request.messages[request.messages.length - 1]?.content as ToolResult[];
}

const FIX = {
  path: 'src/math.js',
  old_string: '  if (value > max) return max;\n',
  new_string: '  if (value > max) return max;\n  if (value < min) return min;\n',
};

describe('implementFix (the tool loop) against the fake API, a real worktree and node --test', () => {
  let spec: ModelSpec;
  let repo: TempRepo;
  let fake: FakeAnthropic | undefined;
  const failingTests = [
    { file: RED_TEST_PATH, finding_ids: ['f-clamp-min'], name: 'clamp returns min below the range', content: RED_TEST },
  ];

  beforeAll(async () => {
    spec = findModelOrThrow(await loadTestCatalogue(), TEST_MODEL);
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    await repo.remove();
  });

  const prepare = async (): Promise<void> => {
    repo = await createTempRepo(SAMPLE_FILES);
    await repo.write(RED_TEST_PATH, RED_TEST);
  };

  it('reads, edits and runs the tests until the failing test is green', async () => {
    await prepare();
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUse('read_file', { path: 'src/math.js' }, { thinking: true }),
        fakeTurn.toolUse('edit_file', FIX),
        fakeTurn.toolUse('run_tests', { command: TEST_COMMAND }),
        fakeTurn.text('clamp now returns min below the range.'),
      ],
      minCacheableTokens: 64,
    });
    const result = await implementFix({
      letter: sampleLetter(repo.base),
      failingTests,
      worktreeDir: repo.dir,
      stepBudget: 8,
      allowedCommands: [TEST_COMMAND],
      commandEnv: TEST_ENV,
      client: clientFor(fake.url),
      spec,
    });

    expect(result).toMatchObject({
      outcome: 'finished',
      steps: 4,
      filesTouched: ['src/math.js'],
      summary: 'clamp now returns min below the range.',
      toolCalls: 3,
    });
    expect(result.commandsRun).toEqual([
      expect.objectContaining({ command: TEST_COMMAND, exitCode: 0, timedOut: false }),
    ]);
    expect(await readFile(join(repo.dir, 'src/math.js'), 'utf8')).toContain('if (value < min) return min;');
    const runner = createCommandTestRunner({ command: TEST_COMMAND, timeoutMs: 30_000, env: TEST_ENV });
    expect(runPassed(await runner({ worktreeDir: repo.dir, testFiles: [RED_TEST_PATH] }))).toBe(true);

    const calls = fake.messageCalls();
    expect(fake.protocolErrors).toEqual([]);
    expect(lastToolResults(calls[1]?.body as FakeMessagesRequest)[0]?.content).toMatch(
      /^src\/math.js\n1\t\/\/ Keeps a value/,
    );
    expect(lastToolResults(calls[3]?.body as FakeMessagesRequest)[0]?.content).toContain(
      'ok 1 - clamp returns min below the range',
    );
    // The thinking block of the first reply is passed back unchanged (the fake checks its signature).
    expect(JSON.stringify(calls[1]?.body.messages[1])).toContain('"type":"thinking"');
    // A rolling breakpoint lets each turn read the previous turn's prefix from the cache.
    expect(calls[3]?.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({ dispatch: 'implementer', round: 1 });
    expect(result.usage.cache_read_input_tokens).toBe(
      calls.reduce((sum, c) => sum + c.usage.cache_read_input_tokens, 0),
    );
  });

  it('refuses edits of the failing test, commands off the allowlist and paths outside the worktree', async () => {
    await prepare();
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUses([
          {
            name: 'edit_file',
            input: {
              path: RED_TEST_PATH,
              old_string: 'assert.equal(clamp(-5, 0, 10), 0);',
              new_string: 'assert.ok(true);',
            },
          },
          { name: 'write_file', input: { path: `./${RED_TEST_PATH}`, content: 'ok' } },
          { name: 'run_tests', input: { command: 'rm -rf /' } },
          { name: 'read_file', input: { path: '../../etc/passwd' } },
          { name: 'write_file', input: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\necho pwned\n' } },
          { name: 'read_file', input: { path: '/etc/passwd' } },
        ]),
        fakeTurn.text('I could not do it.'),
      ],
    });
    const result = await implementFix({
      letter: sampleLetter(repo.base),
      failingTests,
      worktreeDir: repo.dir,
      stepBudget: 4,
      allowedCommands: [TEST_COMMAND],
      commandEnv: TEST_ENV,
      client: clientFor(fake.url),
      spec,
    });
    expect(result.filesTouched).toEqual([]);
    const results = lastToolResults(fake.messageCalls()[1]?.body as FakeMessagesRequest);
    expect(results.map((r) => r.is_error)).toEqual([true, true, true, true, true, true]);
    expect(results.map((r) => r.content)).toEqual([
      expect.stringContaining('one of the failing tests'),
      expect.stringContaining('one of the failing tests'),
      expect.stringContaining('invalid input: command'),
      expect.stringContaining('".." is not allowed'),
      expect.stringContaining('.git directory is off limits'),
      expect.stringContaining('absolute paths are not allowed'),
    ]);
    expect(await readFile(join(repo.dir, RED_TEST_PATH), 'utf8')).toBe(RED_TEST);
  });

  it('does not run a tool call cut off by max_tokens, and stops at the step budget', async () => {
    await prepare();
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.maxTokens([{ type: 'tool_use', name: 'edit_file', input: FIX }]),
        fakeTurn.toolUse('read_file', { path: 'src/math.js' }),
        fakeTurn.toolUse('read_file', { path: 'src/math.js' }),
      ],
    });
    const result = await implementFix({
      letter: sampleLetter(repo.base),
      failingTests,
      worktreeDir: repo.dir,
      stepBudget: 3,
      allowedCommands: [TEST_COMMAND],
      commandEnv: TEST_ENV,
      client: clientFor(fake.url),
      spec,
    });
    expect(result.outcome).toBe('step_budget_exhausted');
    expect(result.filesTouched).toEqual([]);
    expect(await readFile(join(repo.dir, 'src/math.js'), 'utf8')).toBe(SAMPLE_FILES['src/math.js']);
    const afterCut = lastToolResults(fake.messageCalls()[1]?.body as FakeMessagesRequest);
    expect(afterCut[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: expect.stringContaining('Not executed') as unknown,
    });
    expect(fake.protocolErrors).toEqual([]);
  });

  it('given a paused turn, when the loop goes on, then the turn is sent back as it is and its continuation is one assistant turn; a filled context window ends the loop', async () => {
    await prepare();
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.pauseTurn('Let me look at the code.'),
        fakeTurn.toolUse('edit_file', FIX),
        fakeTurn.contextWindowExceeded('The conversation is too long'),
      ],
    });
    const error = await implementFix({
      letter: sampleLetter(repo.base),
      failingTests,
      worktreeDir: repo.dir,
      stepBudget: 5,
      allowedCommands: [TEST_COMMAND],
      commandEnv: TEST_ENV,
      client: clientFor(fake.url),
      spec,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LLM.OUTPUT_TRUNCATED' });
    const calls = fake.messageCalls().map((c) => c.body.messages);
    // The paused turn went back as the last message, unchanged.
    expect(calls[1]?.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(calls[1]?.[1]?.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Let me look at the code.' }),
    ]);
    // Its continuation (the edit) joined it: one assistant turn, then the tool's result.
    expect(calls[2]?.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect((calls[2]?.[1]?.content as { type: string }[]).map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(await readFile(join(repo.dir, 'src/math.js'), 'utf8')).toContain('if (value < min) return min;');
    expect(fake.protocolErrors).toEqual([]);
  });
});
