/**
 * Benchmark: input tokens billed over a 3-round refinement loop, with and without prompt caching,
 * with the critics dispatched in parallel as the fleet does.
 *
 * Each round runs what the loop dispatches to the model: three LLM critics on the same files
 * (quality/code-reviewer and two prompt critics) at once, as the critic-runner runs a round's
 * critics, then the test writer and the implementer's tool loop — through the real library and
 * the real SDK against the fake Messages API, which reports usage the way the real API does
 * (prefix caching at cache_control breakpoints, 5-minute TTL, 20-block lookback, 1024-token
 * minimum; tokens = characters / 4) and takes time like it: a reply starts after a time to first
 * token, and a cache entry becomes readable only when the response that writes it starts — so
 * parallel requests each pay the cache-write rate unless they share a warmup (the critic-runner's
 * CacheWarmup: the first request writes, the others follow once it is readable). Tests run for real
 * (`node --test`) in a sample repository in a temp dir, and each round's fix is committed, so the
 * files the critics see change from round to round.
 *
 * Modes: uncached (no cache_control: the baseline), cached but parallel without the warmup (what
 * parallel dispatch costs without it), and cached with the warmup (what the fleet does).
 * Billed input = input_tokens + cache_creation × (cache write / input price) + cache_read ×
 * (cache read / input price), from config/models.yaml. Target: cached ≤ 40% of uncached.
 *
 * Run: npm run bench:llm-cache
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Letter } from '@rloop/contracts';
import { type CriticContext, createCriticContext } from '@rloop/critics';
import {
  createAnthropicClient,
  createCacheWarmup,
  createCodeReviewerCritic,
  createCommandTestRunner,
  createPromptCritic,
  CRITIC_SYSTEM_PROMPT,
  findModelOrThrow,
  implementFix,
  IMPLEMENTER_SYSTEM_PROMPT,
  loadModelCatalogue,
  type ModelSpec,
  promptCriticSpec,
  TEST_WRITER_SYSTEM_PROMPT,
  type UsageRecord,
  weightedInputTokens,
  writeFailingTests,
} from '@rloop/llm';
import { type FakeMessagesRequest, type FakeTurn, fakeTurn, startFakeAnthropic } from '@rloop/testing';

const ROUNDS = 3;
const MODEL = 'claude-sonnet-5-5';
const TEST_COMMAND = 'node --test --test-reporter=tap';
/** Simulated time between rounds: critics, tests and fixes take minutes in a real loop. */
const ROUND_GAP_MS = 90_000;
const TARGET_RATIO = 0.4;
/** The fake API's latency: a reply starts after this, and its cache entries become readable then. */
const TIMING = { timeToFirstTokenMs: 250, outputTokensPerSecond: 4000 } as const;

type Mode = 'uncached' | 'parallel, no warmup' | 'parallel, warmup';

const here = dirname(fileURLToPath(import.meta.url));
const workspaceRoot = join(here, '../../..');

// ── The sample repository ──────────────────────────────────────────────────────────────────

const DOMAINS = ['orders', 'invoices', 'customers', 'payments', 'shipping', 'inventory', 'pricing', 'reports'];

function moduleSource(name: string): string {
  const entity = name.slice(0, -1);
  const lines = [
    `// ${name}: in-memory ${entity} records and the rules that apply to them.`,
    '',
    `const ${name} = new Map();`,
    '',
  ];
  for (const [i, verb] of ['create', 'update', 'archive', 'restore', 'validate', 'summarise'].entries()) {
    lines.push(
      '/**',
      ` * ${verb[0]?.toUpperCase() ?? ''}${verb.slice(1)}s a ${entity}. Throws when the id is unknown or the input is invalid;`,
      ` * the caller decides whether to retry. Amounts are integer cents, never floats.`,
      ' */',
      `export function ${verb}${entity[0]?.toUpperCase() ?? ''}${entity.slice(1)}(id, input = {}) {`,
      `  if (typeof id !== 'string' || id.length === 0) throw new TypeError('${entity} id must be a non-empty string');`,
      `  const current = ${name}.get(id) ?? { id, version: 0, status: 'draft', amountCents: 0 };`,
      `  if (input.amountCents !== undefined && !Number.isInteger(input.amountCents)) throw new RangeError('amountCents must be an integer');`,
      `  const next = { ...current, ...input, version: current.version + 1, status: '${verb}d', step: ${i} };`,
      `  ${name}.set(id, next);`,
      '  return next;',
      '}',
      '',
    );
  }
  return lines.join('\n');
}

async function createSampleRepo(): Promise<{ dir: string; base: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'rloop-bench-llm-cache-'));
  const files: Record<string, string> = {
    'package.json': '{ "name": "bench-sample", "type": "module", "private": true }\n',
    'src/round.js': "// The round counter the benchmark's fixes advance.\nexport const ROUND = 0;\n",
    'test/smoke.test.js':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { createOrder } from '../src/orders.js';\n\ntest('creates an order', () => {\n  assert.equal(createOrder('o1').version, 1);\n});\n",
  };
  for (const name of DOMAINS) files[`src/${name}.js`] = moduleSource(name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@example.com');
  git('config', 'user.name', 'bench');
  git('add', '-A');
  git('commit', '-q', '-m', 'sample');
  return { dir, base: git('rev-parse', 'HEAD') };
}

function commitAll(dir: string, message: string): string {
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['commit', '-q', '--allow-empty', '-m', message], { cwd: dir });
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
}

// ── The scripted model ─────────────────────────────────────────────────────────────────────

function systemText(request: FakeMessagesRequest): string {
  const system = request.system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b: { text?: string }) => b.text ?? '').join('') : '';
}

/** Answers like a model would for each kind of dispatch, deterministically. */
function scriptedModel(round: () => number): (request: FakeMessagesRequest) => FakeTurn {
  return (request) => {
    const system = systemText(request);
    const turns = request.messages.filter((m) => m.role === 'assistant').length;
    const n = round();
    if (system === CRITIC_SYSTEM_PROMPT) {
      return fakeTurn.toolUse('report_findings', {
        findings: [
          {
            severity: 'critical',
            score: 8,
            category: 'correctness',
            finding_type: 'llm/stale-round',
            file: 'src/round.js',
            line_range: { start: 2, end: 2 },
            title: `ROUND must reach ${n}`,
            current_behaviour: `ROUND is ${n - 1}`,
            expected_behaviour: `ROUND is at least ${n}`,
            observable_test_conditions: [`ROUND >= ${n}`],
            forbidden_in_test: [],
          },
        ],
      });
    }
    if (system === TEST_WRITER_SYSTEM_PROMPT) {
      if (turns > 0) return fakeTurn.text(`Wrote the test for round ${n}.`);
      return fakeTurn.toolUse('write_test_file', {
        path: `test/round-${n}.test.js`,
        content: `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { ROUND } from '../src/round.js';\n\ntest('round reaches ${n}', () => {\n  assert.ok(ROUND >= ${n});\n});\n`,
        finding_ids: [`f-round-${n}`],
        test_name: `round reaches ${n}`,
      });
    }
    if (system === IMPLEMENTER_SYSTEM_PROMPT) {
      const steps: FakeTurn[] = [
        fakeTurn.toolUse('list_files', {}),
        fakeTurn.toolUse('read_file', { path: 'src/round.js' }),
        fakeTurn.toolUse('search', { query: 'ROUND' }),
        fakeTurn.toolUse('read_file', { path: 'src/orders.js' }),
        fakeTurn.toolUse('edit_file', {
          path: 'src/round.js',
          old_string: `export const ROUND = ${n - 1};`,
          new_string: `export const ROUND = ${n};`,
        }),
        fakeTurn.toolUse('run_tests', { command: TEST_COMMAND }),
        fakeTurn.text(`ROUND is now ${n}; the round test passes.`),
      ];
      return steps[Math.min(turns, steps.length - 1)] ?? fakeTurn.text('done');
    }
    return fakeTurn.serverError(500, 'the benchmark does not know this dispatch');
  };
}

function letterFor(round: number, commit: string): Letter {
  return Letter.parse({
    letter_id: `01JBENCHLETTER00000000000${round}`,
    plan: 'bench-plan',
    run_id: '01JBENCHRUN000000000000000',
    round,
    phase: 'critical',
    k: 3,
    commit,
    created_at: '2026-11-30T10:00:00.000Z',
    critics: [
      { critic_id: 'quality/code-reviewer', core: true, outcome: 'reported', findings_total: 1, findings_kept: 1 },
    ],
    findings: [
      {
        id: `f-round-${round}`,
        fingerprint: 'abcdef012345',
        severity: 'critical',
        score: 8,
        category: 'correctness',
        finding_type: 'llm/stale-round',
        file: 'src/round.js',
        line_range: { start: 2, end: 2 },
        title: `ROUND must reach ${round}`,
        current_behaviour: `ROUND is ${round - 1}`,
        expected_behaviour: `ROUND is at least ${round}`,
        observable_test_conditions: [`ROUND >= ${round}`],
        forbidden_in_test: [],
        raised_by: 'quality/code-reviewer',
        related_findings: [],
      },
    ],
    counts: { critical: 1, medium: 0, low: 0 },
    complete: true,
    summary: `Round ${round}: ROUND is behind.`,
  });
}

// ── One 5-round loop ───────────────────────────────────────────────────────────────────────

interface Totals {
  /** Billed input per kind of dispatch: critics, test-writer, implementer. */
  readonly byKind: Readonly<Record<string, number>>;
  readonly calls: number;
  readonly input: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
  readonly output: number;
  readonly billedInput: number;
  readonly costUsd: number;
}

async function runLoop(
  mode: Mode,
  spec: ModelSpec,
  catalogue: Awaited<ReturnType<typeof loadModelCatalogue>>,
): Promise<Totals> {
  const caching = mode !== 'uncached';
  const repo = await createSampleRepo();
  let clock = Date.UTC(2026, 10, 30, 10, 0, 0);
  let round = 1;
  const fake = await startFakeAnthropic({ script: scriptedModel(() => round), now: () => clock, timing: TIMING });
  const client = createAnthropicClient({
    apiKey: 'sk-ant-api03-bench-not-a-real-key-000000',
    baseURL: fake.url,
    model: MODEL,
    maxRetries: 0,
    timeoutMs: 30_000,
  });
  const runTests = createCommandTestRunner({
    command: TEST_COMMAND,
    timeoutMs: 60_000,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
  });
  const usages: UsageRecord[] = [];
  const files = ['src/round.js', ...DOMAINS.map((d) => `src/${d}.js`)];
  const hints = () =>
    Promise.resolve({
      plan: {
        title: 'Advance the round counter',
        description: 'Each round moves ROUND forward and keeps the domain modules intact.',
      },
      baseCommit: repo.base,
      round,
    });
  // One warmup for the host's critics, as the critic-runner's LlmCriticHost has.
  const shared = mode === 'parallel, warmup' ? { cacheWarmup: createCacheWarmup() } : {};
  const critics = [
    createCodeReviewerCritic({ model: MODEL, catalogue, client, caching, resolveSubject: hints, ...shared }),
    ...['specialized/error-handler-checker', 'specialized/resilience-checker'].map((id) => {
      const critic = promptCriticSpec(id);
      if (critic === null) throw new Error(`no prompt critic ${id}`);
      return createPromptCritic({
        ...critic,
        model: MODEL,
        catalogue,
        client,
        caching,
        resolveSubject: hints,
        ...shared,
      });
    }),
  ];
  try {
    let head = commitAll(repo.dir, 'start');
    for (round = 1; round <= ROUNDS; round += 1) {
      const context: CriticContext = createCriticContext(
        { repoDir: repo.dir, commit: head, files, phase: 'critical' },
        { signal: new AbortController().signal },
      ).context;
      // The critic-runner runs a round's critics at once.
      usages.push(...(await Promise.all(critics.map((critic) => critic.review(context)))).map((r) => r.usage));
      const letter = letterFor(round, head);
      const written = await writeFailingTests({
        letter,
        worktreeDir: repo.dir,
        testLayout: { testFiles: ['test/smoke.test.js'], example: null, testCommand: TEST_COMMAND, testDir: 'test/' },
        runTests,
        client,
        spec,
        caching,
      });
      if (written.redTests.length !== 1)
        throw new Error(`round ${round}: expected one red test, got ${JSON.stringify(written.testsWritten)}`);
      usages.push(written.usage);
      const fix = await implementFix({
        letter,
        failingTests: written.redTests,
        worktreeDir: repo.dir,
        stepBudget: 10,
        allowedCommands: [TEST_COMMAND],
        commandEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
        client,
        spec,
        caching,
      });
      if (fix.outcome !== 'finished' || fix.commandsRun[0]?.exitCode !== 0)
        throw new Error(`round ${round}: the fix did not finish green`);
      usages.push(fix.usage);
      head = commitAll(repo.dir, `round ${round}`);
      clock += ROUND_GAP_MS;
    }
    if (fake.protocolErrors.length > 0)
      throw new Error(`the fake API rejected requests: ${fake.protocolErrors.join('; ')}`);
    const calls = fake.messageCalls();
    const byKind: Record<string, number> = {};
    for (const call of calls) {
      const system = systemText(call.body);
      const kind =
        system === CRITIC_SYSTEM_PROMPT
          ? 'critics'
          : system === TEST_WRITER_SYSTEM_PROMPT
            ? 'test-writer'
            : 'implementer';
      byKind[kind] = (byKind[kind] ?? 0) + weightedInputTokens(spec, call.usage);
    }
    return {
      byKind,
      calls: calls.length,
      input: calls.reduce((s, c) => s + c.usage.input_tokens, 0),
      cacheWrite: calls.reduce((s, c) => s + c.usage.cache_creation_input_tokens, 0),
      cacheRead: calls.reduce((s, c) => s + c.usage.cache_read_input_tokens, 0),
      output: calls.reduce((s, c) => s + c.usage.output_tokens, 0),
      billedInput: calls.reduce((s, c) => s + weightedInputTokens(spec, c.usage), 0),
      costUsd: usages.reduce((s, u) => s + u.cost_usd, 0),
    };
  } finally {
    await fake.close();
    await rm(repo.dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const catalogue = await loadModelCatalogue(join(workspaceRoot, 'config/models.yaml'));
  const spec = findModelOrThrow(catalogue, MODEL);
  const started = Date.now();
  const uncached = await runLoop('uncached', spec, catalogue);
  const apart = await runLoop('parallel, no warmup', spec, catalogue);
  const cached = await runLoop('parallel, warmup', spec, catalogue);
  const ratio = cached.billedInput / uncached.billedInput;
  const row = (name: string, t: Totals): string =>
    [
      name.padEnd(20),
      String(t.calls).padStart(5),
      String(t.input).padStart(9),
      String(t.cacheWrite).padStart(9),
      String(t.cacheRead).padStart(9),
      Math.round(t.billedInput).toString().padStart(13),
      `${((t.billedInput / uncached.billedInput) * 100).toFixed(1)}%`.padStart(8),
      `$${t.costUsd.toFixed(4)}`.padStart(10),
    ].join(' ');
  console.log(
    `llm-cache: ${ROUNDS}-round loop (3 critics in parallel + test writer + implementer per round), model ${MODEL}, prices of ${catalogue.pricesCheckedOn}`,
  );
  console.log(
    `fake API: ${TIMING.timeToFirstTokenMs} ms to first token, ${TIMING.outputTokensPerSecond} output tokens/s; a cache entry is readable once its writing response starts`,
  );
  console.log(
    [
      'mode'.padEnd(20),
      'calls'.padStart(5),
      'input'.padStart(9),
      'cache_wr'.padStart(9),
      'cache_rd'.padStart(9),
      'billed_input'.padStart(13),
      'ratio'.padStart(8),
      'cost'.padStart(10),
    ].join(' '),
  );
  console.log(row('uncached', uncached));
  console.log(row('parallel, no warmup', apart));
  console.log(row('parallel, warmup', cached));
  console.log(
    `billed input, cached (parallel, warmup) / uncached: ${(ratio * 100).toFixed(1)}% (target ≤ ${TARGET_RATIO * 100}%): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`,
  );
  console.log(`cost (input + output), cached / uncached: ${((cached.costUsd / uncached.costUsd) * 100).toFixed(1)}%`);
  for (const kind of Object.keys(uncached.byKind)) {
    const before = uncached.byKind[kind] ?? 0;
    const without = apart.byKind[kind] ?? 0;
    const after = cached.byKind[kind] ?? 0;
    console.log(
      `  ${kind.padEnd(12)} billed input ${Math.round(before)} -> ${Math.round(without)} without warmup (${((without / before) * 100).toFixed(1)}%) -> ${Math.round(after)} with (${((after / before) * 100).toFixed(1)}%)`,
    );
  }
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (ratio > TARGET_RATIO) process.exitCode = 1;
}

await main();
