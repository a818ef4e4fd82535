// The LLM layer end to end: a fleet with ANTHROPIC_API_KEY whose Anthropic API is a scripted fake
// server in this process (reached through ANTHROPIC_BASE_URL, so the services' real SDK speaks
// HTTP to it). The panel is kept small — the code reviewer is the only LLM critic — and four
// plans run at once, each one scenario, told apart by a marker in its title (which the reviewer
// sees in the plan, and the test writer and the implementer in the finding's title).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { RloopEvent } from '@rloop/contracts';
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
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

const API_KEY = 'sk-ant-api03-e2eLlmFleetKey-7f3a9c1d5e2b8046aa71c3d9e5f0b2c4';
const SCENARIOS = ['A', 'B', 'C', 'D'] as const;
type Scenario = (typeof SCENARIOS)[number];

function finding(scenario: Scenario, lines: { start: number; end: number }): Record<string, unknown> {
  return {
    severity: 'critical',
    score: 8,
    category: 'correctness',
    finding_type: 'llm/unchecked-input',
    file: 'src/tax.js',
    line_range: lines,
    title: `invoiceNumber accepts a sequence below 1 [scenario ${scenario}]`,
    current_behaviour: 'invoiceNumber(2026, -1) returns "INV-2026-00-1"',
    expected_behaviour: 'invoiceNumber throws a RangeError for a sequence below 1',
    observable_test_conditions: ['invoiceNumber(2026, -1) throws a RangeError'],
    forbidden_in_test: ['mocking invoiceNumber with `mock.method`'],
  };
}

function firstUserText(request: FakeMessagesRequest): string {
  const content = request.messages[0]?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content.map((b: { text?: unknown }) => (typeof b.text === 'string' ? b.text : '')).join('\n')
    : '';
}

function scenarioOf(text: string): Scenario | null {
  const match = /\[scenario ([ABCD])\]/.exec(text);
  return (match?.[1] as Scenario | undefined) ?? null;
}

const unexpected: string[] = [];
let budgetReplySent = false;

/** The scripted model: answers by role (from the tools offered) and scenario (from the text). */
function script(request: FakeMessagesRequest): FakeTurn {
  const tools = (request.tools ?? []).map((t) => String(t['name']));
  const text = firstUserText(request);
  const scenario = scenarioOf(text);
  const turn = request.messages.length; // 1 for the first call of a dispatch, then 3, 5, … in a tool loop
  if (tools.includes('report_findings')) {
    switch (scenario) {
      case 'A':
        // Reports the unchecked sequence until the code under review throws for it.
        return fakeTurn.toolUse('report_findings', {
          findings: text.includes('throw new RangeError') ? [] : [finding('A', { start: 20, end: 22 })],
        });
      case 'B':
        return fakeTurn.toolUse('report_findings', { findings: [finding('B', { start: 20, end: 22 })] });
      case 'C':
        // src/tax.js has 22 lines: lines 40-44 do not exist.
        return fakeTurn.toolUse('report_findings', { findings: [finding('C', { start: 40, end: 44 })] });
      case 'D': {
        // One expensive review (600k output tokens, $6 at Sonnet 5.5's $10/MTok) passes the $5 plan budget.
        const reply = fakeTurn.toolUse('report_findings', { findings: [finding('D', { start: 20, end: 22 })] });
        if (budgetReplySent) return reply;
        budgetReplySent = true;
        return { ...reply, output_tokens: 600_000 };
      }
      case null:
        break;
    }
  } else if (tools.includes('write_test_file') && (scenario === 'A' || scenario === 'B')) {
    if (turn > 1) return fakeTurn.text('One failing test written for the finding.');
    const id = /"id": "([^"]+)"/.exec(text)?.[1] ?? 'unknown';
    return fakeTurn.toolUse('write_test_file', {
      path: RED_TEST_PATH,
      content: RED_TEST,
      finding_ids: [id],
      test_name: 'invoiceNumber rejects a sequence below 1',
    });
  } else if (tools.includes('edit_file') && scenario === 'A') {
    if (turn === 1)
      return fakeTurn.toolUse('edit_file', {
        path: 'src/tax.js',
        old_string: INVOICE_SIGNATURE,
        new_string: `${INVOICE_SIGNATURE}${SEQUENCE_GUARD}`,
      });
    if (turn === 3) return fakeTurn.toolUse('run_tests', { command: 'node --test' });
    return fakeTurn.text('invoiceNumber now throws a RangeError for a sequence below 1.');
  } else if (tools.includes('edit_file') && scenario === 'B') {
    // A "fix" that only edits a test (an existing one: the red test itself is read-only).
    if (turn === 1) {
      return fakeTurn.toolUse('edit_file', {
        path: 'test/invoice-number.test.mjs',
        old_string: "test('invoice numbers are zero-padded'",
        new_string: "test('invoice numbers are zero-padded, checked'",
      });
    }
    return fakeTurn.text('Adjusted the test.');
  }
  unexpected.push(`${tools.join(',')} / scenario ${scenario ?? 'none'} / turn ${turn}`);
  return fakeTurn.text('unexpected request');
}

const PLANS: Readonly<Record<Scenario, { slug: string; strategy: 'anthropic' | 'autofix' }>> = {
  A: { slug: 'llm-converges', strategy: 'anthropic' },
  B: { slug: 'llm-refused', strategy: 'anthropic' },
  C: { slug: 'llm-dropped', strategy: 'anthropic' },
  D: { slug: 'llm-budget', strategy: 'autofix' },
};

let fake: FakeAnthropic;
let t: TestFleet;
const runs = new Map<Scenario, string>();

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}

async function events(scenario: Scenario): Promise<RloopEvent[]> {
  return (await t.bus.journal.events(PLANS[scenario].slug)).entries.map((e) => e.event);
}

function ofType<T extends RloopEvent['type']>(
  list: readonly RloopEvent[],
  type: T,
): Extract<RloopEvent, { type: T }>[] {
  return list.filter((e): e is Extract<RloopEvent, { type: T }> => e.type === type);
}

const repos = new Map<Scenario, string>();

beforeAll(async () => {
  fake = await startFakeAnthropic({
    script,
    knownModels: ['claude-sonnet-5-5'],
    rejectForcedToolChoice: ['claude-sonnet-5-5'],
  });
  t = await startTestFleet({
    env: { ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: fake.url },
    // The reviewer is the only LLM critic (the billing trigger's LLM critics are dropped); small caps end plan B soon.
    catalogue: (c) => ({
      ...c,
      core: ['quality/code-reviewer', 'security/secrets-detector'],
      dynamic: [],
      soft_caps: { critical: 2, medium: 2, low: 2, final_sweep: 2 },
    }),
    models: (m) => ({ ...m, budgets: { daily_usd: 1000, per_plan_usd: 5, per_dispatch_usd: null } }),
  });
  for (const scenario of SCENARIOS) repos.set(scenario, await t.sampleRepo('fixable', PLANS[scenario].slug));
  // All four loops run at once.
  for (const scenario of SCENARIOS) {
    const plan = samplePlan(PLANS[scenario].slug, repos.get(scenario) ?? '', {
      title: `Invoice numbers: reject bad sequences [scenario ${scenario}]`,
      implementer: { strategy: PLANS[scenario].strategy },
    });
    const reply = await t.submit(plan);
    if (reply.status !== 'accepted') throw new Error(`plan ${scenario} was rejected: ${JSON.stringify(reply)}`);
    runs.set(scenario, reply.event_id);
  }
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await fake?.close();
}, 60_000);

async function outcome(scenario: Scenario): Promise<string> {
  const slug = PLANS[scenario].slug;
  try {
    return (await t.outcome(slug, runs.get(scenario) ?? '', 120_000)).status;
  } catch (error) {
    // Where the loop stood and what the fleet said last, so a hang is diagnosable from the failure alone.
    const state = (await t.bus.journal.loopState(slug)).state;
    const tail = t.lines.filter((l) => l.includes(slug) || /error|warn/i.test(l)).slice(-40);
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n${slug} is ${state?.status ?? 'unknown'} at round ${state?.round ?? 0}; last lines:\n${tail.join('\n')}`,
      { cause: error },
    );
  }
}

describe('the LLM judgement layer and the anthropic fix cycle, end to end against a scripted Messages API', () => {
  it('(a) the reviewer finds a bug, the test writer writes a red test, the implementer turns it green, the verifier accepts, and the loop converges', async () => {
    expect(await outcome('A')).toBe('converged');
    const list = await events('A');
    const written = ofType(list, 'TestsWritten');
    expect(written).toHaveLength(1);
    expect(written[0]?.data).toMatchObject({
      round: 1,
      red: ['invoiceNumber rejects a sequence below 1'],
      passed_at_once: [],
      tests: [{ file: RED_TEST_PATH }],
    });
    const fixes = ofType(list, 'FixApplied');
    expect(fixes).toHaveLength(1);
    expect(fixes[0]?.data).toMatchObject({
      strategy: 'anthropic',
      outcome: 'committed',
      tests_added: [RED_TEST_PATH],
      tests_result: { failed: 0, regressions: 0 },
    });
    // The fix commit holds the guard and the red test, now green.
    const repo = repos.get('A') ?? '';
    expect(git(repo, 'show', `rloop/${PLANS.A.slug}:src/tax.js`)).toContain('throw new RangeError');
    expect(git(repo, 'show', `rloop/${PLANS.A.slug}:${RED_TEST_PATH}`)).toBe(RED_TEST.trimEnd());
    // Rounds 2-5 (critical again, medium, low, final sweep) found nothing: the reviewer saw the fixed code.
    const letters = ofType(list, 'LetterWritten').map((e) => e.data.letter.findings.length);
    expect(letters).toEqual([1, 0, 0, 0, 0]);
    const converged = list.at(-1);
    expect(converged?.type === 'LoopConverged' && converged.data.panel.critics).toContain('quality/code-reviewer');
    // Every dispatch's cost is in the journal, and `rloop status` adds it up.
    const usage = ofType(list, 'UsageRecorded');
    expect(new Set(usage.map((u) => u.data.dispatch))).toEqual(
      new Set(['quality/code-reviewer', 'test-writer', 'implementer']),
    );
    expect(
      usage.every((u) => u.data.model === 'claude-sonnet-5-5' && u.data.cost_usd > 0 && u.data.round !== undefined),
    ).toBe(true);
    const [status] = await t.bus.journal.status(PLANS.A.slug);
    expect(status?.spend_usd).toBeCloseTo(
      usage.reduce((sum, u) => sum + u.data.cost_usd, 0),
      6,
    );
  }, 150_000);

  it("(b) a fix that only edits a test is refused by the verifier: nothing is committed and the refusal's reasons are in FixApplied", async () => {
    expect(await outcome('B')).toBe('escalated');
    const list = await events('B');
    const fixes = ofType(list, 'FixApplied');
    expect(fixes.length).toBeGreaterThanOrEqual(1);
    for (const fix of fixes) {
      expect(fix.data).toMatchObject({ strategy: 'anthropic', outcome: 'failed', commit: null });
      expect(fix.data.reason).toContain('the verifier refused the fix');
      expect(fix.data.reason).toContain('no_source_change');
      expect(fix.data.reason).toContain('red_test_still_failing');
    }
    expect(ofType(list, 'TestsWritten').length).toBe(fixes.length);
    // The branch never moved past the plan's commit.
    const repo = repos.get('B') ?? '';
    expect(git(repo, 'rev-parse', `rloop/${PLANS.B.slug}`)).toBe(git(repo, 'rev-parse', 'main'));
    // The soft cap ends it (or a stuck-loop heuristic, whichever the panel sees first).
    expect(['soft_cap', 'heuristic']).toContain(ofType(list, 'EscalationRaised')[0]?.data.reason);
  }, 150_000);

  it('(c) findings naming lines that do not exist are dropped and counted, never put in the letter', async () => {
    expect(await outcome('C')).toBe('converged');
    const list = await events('C');
    expect(ofType(list, 'LetterWritten').every((e) => e.data.letter.findings.length === 0)).toBe(true);
    expect(ofType(list, 'FixRequested')).toEqual([]);
    const reports = ofType(list, 'FindingsReported').filter((e) => e.data.critic_id === 'quality/code-reviewer');
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.every((r) => r.data.findings.length === 0)).toBe(true);
    expect(
      t.lines.some((l) =>
        l.includes(
          `${PLANS.C.slug} round 1: quality/code-reviewer: 0 finding(s) kept, 1 dropped for naming files or lines it was not given (src/tax.js:40-44)`,
        ),
      ),
    ).toBe(true);
  }, 150_000);

  it('(d) a plan whose spend reaches its budget is escalated with what was spent, and its LLM critics are not dispatched again', async () => {
    expect(await outcome('D')).toBe('escalated');
    const list = await events('D');
    const escalation = ofType(list, 'EscalationRaised')[0];
    expect(escalation?.data.reason).toBe('budget');
    expect(escalation?.data.round).toBe(2);
    expect(escalation?.data.report.trigger.detail).toMatch(
      /^the per-plan LLM budget of \$5\.00 is reached before the round's LLM critics: \$6\.\d\d spent on this plan's loop/,
    );
    expect(escalation?.data.markdown).toContain('budget');
    const failed = ofType(list, 'CriticFailed').filter((e) => e.data.round === 2);
    expect(failed).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          critic_id: 'quality/code-reviewer',
          reason: 'not_runnable',
          message: expect.stringContaining('not run: the per-plan LLM budget') as unknown,
        }),
      }),
    ]);
    // The model was asked once for this plan: round 2 never reached it.
    expect(fake.messageCalls().filter((c) => scenarioOf(firstUserText(c.body)) === 'D')).toHaveLength(1);
    const spent = ofType(list, 'UsageRecorded').reduce((sum, u) => sum + u.data.cost_usd, 0);
    expect(spent).toBeGreaterThan(6);
    const [status] = await t.bus.journal.status(PLANS.D.slug);
    expect(status?.spend_usd).toBeCloseTo(spent, 6);
    const journalSpend = await t.bus.journal.spend(PLANS.D.slug, new Date().toISOString().slice(0, 10), runs.get('D'));
    expect(journalSpend.run_usd).toBeCloseTo(spent, 6);
    expect(journalSpend.plan_usd).toBeCloseTo(spent, 6);
    expect(journalSpend.day_usd).toBeGreaterThanOrEqual(spent);
  }, 150_000);

  it('sent every request with the key, answered every one of them, and the key appears in no event, letter or log line', async () => {
    for (const scenario of SCENARIOS) await outcome(scenario);
    expect(unexpected).toEqual([]);
    expect(fake.protocolErrors).toEqual([]);
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(fake.requests.every((r) => r.apiKey === API_KEY)).toBe(true);
    // With budgets configured, every call is counted before it is sent.
    expect(fake.requests.filter((r) => r.path === '/v1/messages/count_tokens').length).toBe(fake.messageCalls().length);
    const client = new pg.Client({ connectionString: t.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number; leaked: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE data::text LIKE $1 OR metadata::text LIKE $1)::int AS leaked FROM events`,
        [`%${API_KEY}%`],
      );
      expect(rows[0]?.n).toBeGreaterThan(50);
      expect(rows[0]?.leaked).toBe(0);
    } finally {
      await client.end();
    }
    expect(t.lines.length).toBeGreaterThan(0);
    expect(t.lines.filter((l) => l.includes(API_KEY))).toEqual([]);
  }, 150_000);
});
