import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { FixApplied, type Finding } from '@rloop/contracts';
import {
  type BudgetReached,
  type BudgetState,
  type ModelSpec,
  type UsageRecord,
  createAnthropicClient,
  findModelOrThrow,
  loadModelCatalogue,
} from '@rloop/llm';
import {
  type FakeAnthropic,
  type FakeMessagesRequest,
  type FakeTurn,
  INVOICE_SIGNATURE,
  RED_TEST,
  RED_TEST_PATH,
  SEQUENCE_GUARD,
  fakeTurn,
  startFakeAnthropic,
} from '@rloop/testing';
import { type FixRequestedData, applyFix } from '../fix/fix-cycle.js';
import { fixRecordRef } from '../git/records.js';
import { builtInStrategies } from '../strategies/resolve.js';
import {
  type SampleRepo,
  type TempDir,
  TEST_COMMANDS,
  commandEnv,
  findingAt,
  gitOut,
  letterFor,
  sampleRepo,
  tempDir,
} from '../testing/repos.test-helpers.js';
import { type TestsWrittenData, createAnthropicStrategy } from './strategy.js';
import { createPlanTestRunner } from './test-runner.js';
import { testsRecordRef } from './tests-record.js';
import { createWarningLister } from './warnings.js';

const MODEL = 'claude-sonnet-5-5';
const API_KEY = 'sk-ant-api03-implementer-int-0123456789abcdefghij';

function sequenceFinding(): Finding {
  return {
    ...findingAt('src/tax.js', 20, 'llm/unchecked-input'),
    id: 'f-sequence',
    line_range: { start: 20, end: 22 },
    category: 'correctness',
    raised_by: 'quality/code-reviewer',
    title: 'invoiceNumber accepts a sequence below 1',
    current_behaviour: 'invoiceNumber(2026, -1) returns "INV-2026-00-1"',
    expected_behaviour: 'invoiceNumber throws a RangeError for a sequence below 1',
    observable_test_conditions: ['invoiceNumber(2026, -1) throws a RangeError'],
    forbidden_in_test: ['mocking invoiceNumber with `mock.method`'],
  };
}

/** How the scripted implementer behaves: fixes the code, or only touches a test. */
type Behaviour = 'fix' | 'edit-test-only';

function scriptFor(behaviour: () => Behaviour): (request: FakeMessagesRequest) => FakeTurn {
  return (request) => {
    const tools = (request.tools ?? []).map((t) => String(t['name']));
    const turn = request.messages.length;
    if (tools.includes('write_test_file')) {
      return turn === 1
        ? fakeTurn.toolUse('write_test_file', {
            path: RED_TEST_PATH,
            content: RED_TEST,
            finding_ids: ['f-sequence'],
            test_name: 'invoiceNumber rejects a sequence below 1',
          })
        : fakeTurn.text('Wrote one failing test.');
    }
    if (behaviour() === 'fix') {
      if (turn === 1)
        return fakeTurn.toolUse('edit_file', {
          path: 'src/tax.js',
          old_string: INVOICE_SIGNATURE,
          new_string: `${INVOICE_SIGNATURE}${SEQUENCE_GUARD}`,
        });
      if (turn === 3) return fakeTurn.toolUse('run_tests', { command: 'node --test' });
      return fakeTurn.text('Added the guard.');
    }
    if (turn === 1)
      return fakeTurn.toolUse('edit_file', {
        path: 'test/invoice-number.test.mjs',
        old_string: "test('invoice numbers are zero-padded'",
        new_string: "test('invoice numbers are zero-padded, checked'",
      });
    return fakeTurn.text('Adjusted a test.');
  };
}

describe('the anthropic strategy in the fix cycle, against the fake Messages API and a real sample repository', () => {
  let tmp: TempDir;
  let fake: FakeAnthropic;
  let spec: ModelSpec;
  let behaviour: Behaviour = 'fix';
  let published: { tests: TestsWrittenData[]; usage: UsageRecord[]; budgets: BudgetReached[] };

  beforeAll(async () => {
    tmp = await tempDir('anthropic');
    spec = findModelOrThrow(
      await loadModelCatalogue(join(import.meta.dirname, '../../../../config/models.yaml')),
      MODEL,
    );
    fake = await startFakeAnthropic({ script: scriptFor(() => behaviour), knownModels: [MODEL] });
  });

  afterAll(async () => {
    await fake.close();
    await tmp.cleanup();
  });

  afterEach(() => {
    behaviour = 'fix';
  });

  function setup(repo: SampleRepo, slug: string, budget: BudgetState | null = null) {
    published = { tests: [], usage: [], budgets: [] };
    const request: FixRequestedData = {
      round: 1,
      attempt: 1,
      letter: letterFor(slug, repo.commit, [sequenceFinding()]),
      base_commit: repo.commit,
      branch: `rloop/${slug}`,
      repo_path: repo.dir,
      test_cmd: 'node --test',
      implementer: { strategy: 'anthropic' },
      baseline_failing: [],
    };
    const client = createAnthropicClient({
      apiKey: API_KEY,
      baseURL: fake.url,
      model: MODEL,
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    const strategy = createAnthropicStrategy({
      request,
      testWriter: { client, spec, stepBudget: 4 },
      implementer: { client, spec, stepBudget: 6 },
      budget,
      runTests: createPlanTestRunner({ command: request.test_cmd, timeoutMs: 30_000, env: commandEnv() }),
      listWarnings: createWarningLister({ cacheDir: join(tmp.path, 'cache', slug) }),
      lintCommands: [],
      commandEnv: commandEnv(),
      commandTimeoutMs: 30_000,
      maxDiffLines: 50,
      hooks: {
        onTestsWritten: (data) => Promise.resolve(void published.tests.push(data)),
        onUsage: (usage) => Promise.resolve(void published.usage.push(usage)),
        onBudgetReached: (reached) => Promise.resolve(void published.budgets.push(reached)),
      },
    });
    const deps = {
      workRoot: join(tmp.path, 'home'),
      env: commandEnv(),
      commands: TEST_COMMANDS,
      testTimeoutMs: 30_000,
      strategyFor: builtInStrategies({ commandTimeoutMs: 30_000, extra: { anthropic: strategy } }),
    };
    return { request, run: () => applyFix(request, deps) };
  }

  it('given a finding, when the strategy runs, then a red test is written, the tool loop turns it green, the verifier accepts, and code and test are committed together', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'green');
    const { run } = setup(repo, 'green');
    const calls = fake.messageCalls().length;
    const result = await run();

    expect(FixApplied.shape.data.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      strategy: 'anthropic',
      outcome: 'committed',
      tests_added: [RED_TEST_PATH],
      tests_result: { failed: 0, regressions: 0 },
    });
    expect(result.fixes_applied.find((f) => f.file === 'src/tax.js')?.fixed_findings).toEqual(['f-sequence']);
    expect(gitOut(repo.dir, ['show', `${result.commit ?? ''}:src/tax.js`])).toContain('throw new RangeError');
    expect(published.tests).toEqual([
      {
        round: 1,
        letter_id: result.letter_id,
        tests: [{ file: RED_TEST_PATH, finding_ids: ['f-sequence'], name: 'invoiceNumber rejects a sequence below 1' }],
        red: ['invoiceNumber rejects a sequence below 1'],
        passed_at_once: [],
        not_clean: [],
      },
    ]);
    expect(published.usage.map((u) => u.dispatch)).toEqual(['test-writer', 'implementer']);
    expect(published.usage.every((u) => u.model === MODEL && u.cost_usd > 0 && u.round === 1)).toBe(true);
    // The test writer saw the letter and the test layout, never the implementation.
    const testWriterCall = fake.messageCalls()[calls]?.body;
    expect(JSON.stringify(testWriterCall?.messages)).toContain('test/tax.test.mjs');
    expect(JSON.stringify(testWriterCall?.messages)).not.toContain('padStart');
    expect(fake.messageCalls().length - calls).toBe(2 + 3);

    // A redelivered request gets the stored answer back; nothing is dispatched again.
    expect(await run()).toEqual(result);
    expect(fake.messageCalls().length - calls).toBe(5);
  });

  it('given a "fix" that only edits a test, when verified, then it is refused with the reasons, nothing is committed, and a redelivery reuses the red tests', async () => {
    behaviour = 'edit-test-only';
    const repo = await sampleRepo(tmp.path, 'fixable', 'refused');
    const { request, run } = setup(repo, 'refused');
    const result = await run();
    expect(result).toMatchObject({ strategy: 'anthropic', outcome: 'failed', commit: null, fixes_applied: [] });
    expect(result.reason).toMatch(/^the verifier refused the fix: .*no_source_change/s);
    expect(result.reason).toContain('red_test_still_failing');
    expect(gitOut(repo.dir, ['rev-parse', `rloop/refused`])).toBe(repo.commit);
    expect(gitOut(join(tmp.path, 'home', 'worktrees', 'refused'), ['status', '--porcelain'])).toBe('');

    // As if the process died before it stored its answer: the letter's red tests are not paid for twice.
    gitOut(repo.dir, ['update-ref', '-d', fixRecordRef('refused', request.letter.letter_id)]);
    expect(gitOut(repo.dir, ['rev-parse', '--verify', testsRecordRef('refused', request.letter.letter_id)])).toMatch(
      /^[0-9a-f]{40}$/,
    );
    const firstTests = published.tests[0];
    published.tests.length = 0;
    published.usage.length = 0;
    const again = await run();
    expect(again).toMatchObject({ outcome: 'failed' });
    expect(published.tests).toEqual([firstTests]);
    expect(published.usage.map((u) => u.dispatch)).toEqual(['implementer']);
  });

  it('given a plan that spent its budget, when a fix is requested, then nothing is dispatched and the stop is reported with the spend', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'budget');
    const { run } = setup(repo, 'budget', {
      limits: { dailyUsd: 100, perPlanUsd: 5, perDispatchUsd: null },
      spentOnPlanUsd: 5.5,
      spentTodayUsd: 7,
    });
    const calls = fake.requests.length;
    const result = await run();
    expect(result).toMatchObject({ outcome: 'failed', commit: null });
    expect(result.reason).toContain(
      'stopped: the per-plan LLM budget of $5.00 is reached before the test writer: $5.50 spent',
    );
    expect(published.budgets).toEqual([
      expect.objectContaining({ scope: 'plan', limitUsd: 5, spentUsd: 5.5, spentTodayUsd: 7 }),
    ]);
    expect(fake.requests.length).toBe(calls);
  });

  it('never sent a malformed request', () => {
    expect(fake.protocolErrors).toEqual([]);
  });
});
