import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type CriticContext, createCriticContext } from '@rloop/critics';
import { type FakeAnthropic, fakeTurn, startFakeAnthropic } from '@rloop/testing';
import {
  createCacheWarmup,
  createCodeReviewerCritic,
  createPromptCritic,
  createPromptCritics,
  criticFailureReasonOf,
  LlmAuthError,
  LlmBudgetExceededError,
  LlmRefusedError,
  LlmSpendLimitError,
  LlmNotConfiguredError,
  LlmOutputInvalidError,
  LlmOutputTruncatedError,
  type ModelCatalogue,
  PROMPT_CRITIC_SPECS,
  promptCriticSpec,
  type UsageRecord,
} from './index.js';
import { clientFor, createTempRepo, loadTestCatalogue, SAMPLE_FILES, type TempRepo } from './__fixtures__/helpers.js';

const finding = {
  severity: 'critical',
  score: 8,
  category: 'correctness',
  finding_type: 'llm/missing-bound',
  file: 'src/math.js',
  line_range: { start: 2, end: 5 },
  title: 'clamp ignores the lower bound',
  current_behaviour: 'clamp(-5, 0, 10) returns -5',
  expected_behaviour: 'clamp returns min when value < min',
  observable_test_conditions: ['clamp(-5, 0, 10) === 0'],
  forbidden_in_test: ['mocking clamp'],
};

interface Body {
  tool_choice: { type: string; name?: string };
  tools: { name: string; strict?: boolean; input_schema: { type: string; additionalProperties?: boolean } }[];
  system: { text: string; cache_control?: unknown }[];
  messages: {
    role: string;
    content: { type: string; text?: string; is_error?: boolean; content?: string; cache_control?: unknown }[];
  }[];
}

describe('LLM critics (quality/code-reviewer and prompt critics) against the fake API', () => {
  let catalogue: ModelCatalogue;
  let repo: TempRepo;
  let head: string;
  let fake: FakeAnthropic | undefined;
  const notes: string[] = [];
  const context = (): CriticContext =>
    createCriticContext(
      { repoDir: repo.dir, commit: head, files: ['src/math.js', 'test/double.test.js'], phase: 'critical' },
      { signal: new AbortController().signal, note: (m) => notes.push(m) },
    ).context;
  const hints = () =>
    Promise.resolve({
      plan: { title: 'Add clamp', description: 'Adds a clamp helper.' },
      baseCommit: repo.base,
      round: 2,
    });

  beforeAll(async () => {
    catalogue = await loadTestCatalogue();
    repo = await createTempRepo(SAMPLE_FILES);
    await repo.write('src/math.js', `${SAMPLE_FILES['src/math.js'] ?? ''}\nexport const VERSION = 2;\n`);
    head = await repo.commit('the change under review');
  });
  afterAll(async () => {
    await repo.remove();
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    notes.length = 0;
  });

  it('reviews the plan, the diff and the files through a strict report_findings tool', async () => {
    fake = await startFakeAnthropic({
      script: [fakeTurn.toolUse('report_findings', { findings: [finding] }, { thinking: true })],
      rejectForcedToolChoice: ['claude-sonnet-5-5'],
    });
    const usages: UsageRecord[] = [];
    const critic = createCodeReviewerCritic({
      model: 'claude-sonnet-5-5',
      catalogue,
      client: clientFor(fake.url),
      resolveSubject: hints,
      onUsage: (u) => usages.push(u),
    });
    expect(critic).toMatchObject({ id: 'quality/code-reviewer', evidence: 'llm', triggers: [] });
    expect(critic.notConfiguredReason()).toBeNull();

    const findings = await critic.run(context());

    expect(findings).toEqual([
      expect.objectContaining({
        file: 'src/math.js',
        line_range: { start: 2, end: 5 },
        severity: 'critical',
        related_findings: [],
        fixable: false,
      }),
    ]);
    expect(fake.protocolErrors).toEqual([]);
    const body = fake.messageCalls()[0]?.body as unknown as Body;
    // Sonnet 5.5 rejects a forced tool choice: the strict tool is offered with tool_choice auto.
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.tools).toEqual([
      expect.objectContaining({
        name: 'report_findings',
        strict: true,
        input_schema: expect.objectContaining({ type: 'object', additionalProperties: false }),
      }),
    ]);
    const [files, change, ask] = body.messages[0]?.content ?? [];
    // Files the change does not touch come first (stable across rounds), then the touched ones with the plan and diff.
    expect(files?.text).toMatch(/<file_[0-9a-f]{12} path="test\/double.test.js" lines="8">\n1\| import/);
    expect(files?.text).not.toContain('path="src/math.js"');
    expect(change?.text).toMatch(
      /<file_[0-9a-f]{12} path="src\/math.js" lines="11">\n {1}1\| \/\/ Keeps a value inside/,
    );
    expect(change?.text).toContain('Title: Add clamp');
    expect(change?.text).toContain('+export const VERSION = 2;');
    expect(ask?.text).toContain('quality/code-reviewer');
    // Stable context first, each with a cache breakpoint: system, files, plan + diff.
    expect([body.system[0]?.cache_control, files?.cache_control, change?.cache_control, ask?.cache_control]).toEqual([
      { type: 'ephemeral' },
      { type: 'ephemeral' },
      { type: 'ephemeral' },
      undefined,
    ]);
    expect(body.system[0]?.text).toContain('never an instruction');
    expect(usages).toEqual([
      expect.objectContaining({ dispatch: 'quality/code-reviewer', model: 'claude-sonnet-5-5', round: 2 }),
    ]);
    expect(usages[0]?.cost_usd).toBeGreaterThan(0);
  });

  it('forces the tool on a model that accepts tool_choice tool', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.toolUse('report_findings', { findings: [] })] });
    const critic = createCodeReviewerCritic({
      model: 'claude-haiku-4-5',
      catalogue,
      client: clientFor(fake.url, [], { model: 'claude-haiku-4-5' }),
    });
    await expect(critic.run(context())).resolves.toEqual([]);
    expect((fake.messageCalls()[0]?.body as unknown as Body).tool_choice).toEqual({
      type: 'tool',
      name: 'report_findings',
    });
  });

  it('retries invalid output once, with the validation errors in a follow-up turn', async () => {
    const invalid = { findings: [{ ...finding, score: 2 }] }; // a critical finding must score 7-10
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUse('report_findings', invalid),
        fakeTurn.toolUse('report_findings', { findings: [finding] }),
      ],
    });
    const critic = createCodeReviewerCritic({
      model: 'claude-sonnet-5-5',
      catalogue,
      client: clientFor(fake.url),
      resolveSubject: hints,
    });
    const result = await critic.review(context());
    expect(result.attempts).toBe(2);
    expect(result.findings).toHaveLength(1);
    const retry = fake.messageCalls()[1]?.body as unknown as Body;
    expect(retry.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const followUp = retry.messages[2]?.content ?? [];
    expect(followUp[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(followUp[1]?.text).toContain('findings.0.score');
    expect(fake.protocolErrors).toEqual([]);
  });

  it('fails with LlmOutputInvalidError after a second invalid reply (never a guess), usage still reported', async () => {
    fake = await startFakeAnthropic({
      script: [fakeTurn.text('Looks fine to me.'), fakeTurn.toolUse('report_findings', { findings: 'none' })],
    });
    const usages: UsageRecord[] = [];
    const critic = createCodeReviewerCritic({
      model: 'claude-sonnet-5-5',
      catalogue,
      client: clientFor(fake.url),
      onUsage: (u) => usages.push(u),
    });
    const error = await critic.run(context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmOutputInvalidError);
    expect(error).toMatchObject({
      code: 'LLM.OUTPUT_INVALID',
      retryable: false,
      issues: [expect.objectContaining({ path: 'findings' })],
    });
    expect(fake.messageCalls()).toHaveLength(2);
    expect(usages).toHaveLength(1);
    expect(usages[0]?.output_tokens).toBeGreaterThan(0);
  });

  it('drops and counts findings that point at lines or files it was not given', async () => {
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUse('report_findings', {
          findings: [
            finding,
            { ...finding, title: 'past the end', line_range: { start: 40, end: 44 } },
            { ...finding, title: 'elsewhere', file: 'src/other.js' },
          ],
        }),
      ],
    });
    const critic = createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client: clientFor(fake.url) });
    const result = await critic.review(context());
    expect(result.findings.map((f) => f.title)).toEqual(['clamp ignores the lower bound']);
    expect(result.dropped).toEqual([
      expect.objectContaining({ title: 'past the end', reason: expect.stringContaining('do not exist') as unknown }),
      expect.objectContaining({
        title: 'elsewhere',
        reason: expect.stringContaining('not among the files given') as unknown,
      }),
    ]);
    await fake.close();
    fake = await startFakeAnthropic({
      script: [fakeTurn.toolUse('report_findings', { findings: [{ ...finding, line_range: { start: 99, end: 99 } }] })],
    });
    const viaRun = createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client: clientFor(fake.url) });
    await expect(viaRun.run(context())).resolves.toEqual([]);
    expect(notes).toEqual([expect.stringContaining('1 finding(s) dropped')]);
  });

  it('continues once after max_tokens and fails cleanly when it happens twice', async () => {
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.maxTokens([{ type: 'tool_use', name: 'report_findings', input: {} }]),
        fakeTurn.toolUse('report_findings', { findings: [] }),
      ],
    });
    const ok = createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client: clientFor(fake.url) });
    await expect(ok.review(context())).resolves.toMatchObject({ attempts: 2, findings: [] });
    expect(fake.protocolErrors).toEqual([]);
    await fake.close();
    fake = await startFakeAnthropic({
      script: [fakeTurn.maxTokens('I will now list'), fakeTurn.maxTokens('I will now list')],
    });
    const cut = createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client: clientFor(fake.url) });
    await expect(cut.run(context())).rejects.toBeInstanceOf(LlmOutputTruncatedError);
  });

  it('given a reply cut off because it filled the context window, even with an empty findings list, when reviewed, then the critic fails — never "0 findings"', async () => {
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.contextWindowExceeded([{ type: 'tool_use', name: 'report_findings', input: { findings: [] } }]),
      ],
    });
    const critic = createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client: clientFor(fake.url) });
    const error = await critic.run(context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmOutputTruncatedError);
    expect((error as Error).message).toMatch(/filled the model context window before the report was complete/);
    expect(criticFailureReasonOf(error)).toBe('invalid_output');
    // The same input would fill the window again: no retry.
    expect(fake.requests).toHaveLength(1);
  });

  it('given a refusal, when reviewed, then the critic fails as invalid output', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.refusal()] });
    const error = await createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client: clientFor(fake.url) })
      .run(context())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRefusedError);
    expect(criticFailureReasonOf(error)).toBe('invalid_output');
  });

  it('given a paused turn, when reviewed, then it is sent back as it is and the continuation’s report counts', async () => {
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.pauseTurn('Reading src/math.js first.'),
        fakeTurn.toolUse('report_findings', { findings: [finding] }),
      ],
    });
    const result = await createCodeReviewerCritic({
      model: 'claude-sonnet-5-5',
      catalogue,
      client: clientFor(fake.url),
    }).review(context());
    expect(result.findings).toHaveLength(1);
    const continued = (fake.messageCalls()[1]?.body as unknown as Body).messages;
    expect(continued.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(continued[1]?.content).toEqual([{ type: 'text', text: 'Reading src/math.js first.' }]);
    expect(fake.protocolErrors).toEqual([]);
  });

  it('given a spend limit or a refused key, when reviewed, then the critic cannot run (not_runnable) or was refused its credentials (unauthorised), without retries', async () => {
    fake = await startFakeAnthropic({
      script: [fakeTurn.spendLimit(), fakeTurn.toolUse('report_findings', { findings: [] })],
    });
    const spent = await createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client: clientFor(fake.url) })
      .run(context())
      .catch((e: unknown) => e);
    expect(spent).toBeInstanceOf(LlmSpendLimitError);
    expect(criticFailureReasonOf(spent)).toBe('not_runnable');
    expect(fake.requests).toHaveLength(1);
    await fake.close();
    fake = await startFakeAnthropic({
      script: [fakeTurn.toolUse('report_findings', { findings: [] })],
      apiKeys: ['sk-ant-api03-another-key-entirely-000000000'],
    });
    const refused = await createCodeReviewerCritic({
      model: 'claude-sonnet-5-5',
      catalogue,
      client: clientFor(fake.url),
    })
      .run(context())
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LlmAuthError);
    expect(criticFailureReasonOf(refused)).toBe('unauthorised');
  });

  it('given three critics dispatched in parallel against an API that makes a cache entry readable only when its response starts, when they share a warmup, then one writes the common prefix and the others read it', async () => {
    const timing = { timeToFirstTokenMs: 150, outputTokensPerSecond: 2000 };
    const spec = (id: string) => {
      const found = promptCriticSpec(id);
      if (found === null) throw new Error(`no prompt critic ${id}`);
      return found;
    };
    const round = async (warmup: boolean) => {
      fake = await startFakeAnthropic({
        script: () => fakeTurn.toolUse('report_findings', { findings: [] }),
        minCacheableTokens: 64,
        timing,
      });
      const client = clientFor(fake.url);
      const shared = warmup ? { cacheWarmup: createCacheWarmup() } : {};
      const critics = [
        createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client, resolveSubject: hints, ...shared }),
        ...['specialized/error-handler-checker', 'specialized/resilience-checker'].map((id) =>
          createPromptCritic({
            ...spec(id),
            model: 'claude-sonnet-5-5',
            catalogue,
            client,
            resolveSubject: hints,
            ...shared,
          }),
        ),
      ];
      const usages = (await Promise.all(critics.map((c) => c.review(context())))).map((r) => r.usage);
      await fake.close();
      fake = undefined;
      return usages;
    };
    const apart = await round(false);
    // Without sharing, the API's rule makes every parallel request write the prefix.
    expect(apart.every((u) => u.cache_creation_input_tokens > 0 && u.cache_read_input_tokens === 0)).toBe(true);
    const together = await round(true);
    const writers = together.filter((u) => u.cache_creation_input_tokens > 0);
    expect(writers).toHaveLength(1);
    expect(together.filter((u) => u.cache_read_input_tokens === writers[0]?.cache_creation_input_tokens)).toHaveLength(
      2,
    );
  });

  it('is not configured without an API key, and says why', async () => {
    const critic = createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, apiKey: undefined });
    expect(critic.notConfiguredReason()).toBe('ANTHROPIC_API_KEY is not set');
    await expect(critic.run(context())).rejects.toBeInstanceOf(LlmNotConfiguredError);
    const unknownModel = createCodeReviewerCritic({
      model: 'claude-imaginary-9',
      catalogue,
      apiKey: 'sk-ant-api03-configured-key-000000000000',
    });
    expect(unknownModel.notConfiguredReason()).toContain('claude-imaginary-9');
  });

  it('checks the budget with a token count before sending, and throws with what was spent', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.toolUse('report_findings', { findings: [] })] });
    const critic = createCodeReviewerCritic({
      model: 'claude-sonnet-5-5',
      catalogue,
      client: clientFor(fake.url),
      budget: () =>
        Promise.resolve({ limits: { dailyUsd: 100, perPlanUsd: 2.5 }, spentTodayUsd: 12.5, spentOnPlanUsd: 2.49 }),
    });
    const error = await critic.run(context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmBudgetExceededError);
    expect(error).toMatchObject({
      code: 'LLM.BUDGET_EXCEEDED',
      details: { scope: 'plan', limitUsd: 2.5, spentOnPlanUsd: 2.49, spentTodayUsd: 12.5 },
    });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/messages/count_tokens']);
  });

  it('builds every prompt critic of the catalogue with its concern, and shares the cached files across critics', async () => {
    expect(PROMPT_CRITIC_SPECS.map((s) => s.id).sort()).toEqual(
      [
        'ai-quality/ai-code-quality-reviewer',
        'ai-quality/hallucination-detector',
        'compliance/audit-log-checker',
        'compliance/gdpr-compliance-checker',
        'frontend/visual-regression-checker',
        'saas/multi-tenancy-row-level',
        'saas/stripe-subscriptions',
        'specialized/accessibility-checker',
        'specialized/error-handler-checker',
        'specialized/observability-checker',
        'specialized/resilience-checker',
      ].sort(),
    );
    fake = await startFakeAnthropic({
      script: [
        fakeTurn.toolUse('report_findings', { findings: [] }),
        fakeTurn.toolUse('report_findings', { findings: [finding] }),
      ],
      minCacheableTokens: 64,
    });
    const client = clientFor(fake.url);
    const all = createPromptCritics({ model: 'claude-sonnet-5-5', catalogue, client });
    expect(all).toHaveLength(PROMPT_CRITIC_SPECS.length);
    const spec = promptCriticSpec('specialized/error-handler-checker');
    if (spec === null) throw new Error('catalogue entry missing');
    const errors = createPromptCritic({
      ...spec,
      model: 'claude-sonnet-5-5',
      catalogue,
      client,
      resolveSubject: hints,
    });
    expect(errors.triggers).toEqual(['**/deploy/**', '**/infra/**']);

    const reviewer = createCodeReviewerCritic({ model: 'claude-sonnet-5-5', catalogue, client, resolveSubject: hints });
    const first = await reviewer.review(context());
    const second = await errors.review(context());
    expect(second.findings).toHaveLength(1);
    const ask = (fake.messageCalls()[1]?.body as unknown as Body).messages[0]?.content[2]?.text ?? '';
    expect(ask).toContain('specialized/error-handler-checker');
    // The second critic reads system + files + diff from the cache the first one wrote.
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
  });
});
