// The anthropic strategy on a CommonJS repository, end to end: a fleet whose Anthropic API is a
// scripted fake server in this process, with the compiler-linter critic in the panel. The
// repository's own tests use require(); the test writer follows them, first with a lint warning
// (an unused variable), which comes back to it as a tool error and which it fixes; the
// implementer makes the red test pass; the verifier judges the fix by the code's warnings; and the
// loop converges. Before: the critics flagged every require() of a CommonJS file, and the verifier
// counted the red test's warnings as the fix's, so a correct fix stalled and escalated.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RloopEvent } from '@rloop/contracts';
import {
  type FakeAnthropic,
  type FakeMessagesRequest,
  type FakeTurn,
  fakeTurn,
  startFakeAnthropic,
} from '@rloop/testing';
import { type TestFleet, samplePlan, scriptedRepo, startTestFleet } from './fleet.test-helpers.js';

const API_KEY = 'sk-ant-api03-e2eCommonJsFleetKey-4b8d2f6a1c9e7035bd12e4f6a8c0d2e4';
const SLUG = 'commonjs-converges';

const SIGNATURE = 'function invoiceNumber(year, sequence) {\n';
const GUARD =
  "  if (!Number.isInteger(sequence) || sequence < 1) throw new RangeError('sequence must be an integer from 1');\n";
const FILES = {
  'package.json': `${JSON.stringify({ name: 'invoices', version: '1.0.0', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
  'src/invoice.js': `'use strict';\n\n/** The number of an invoice: INV-<year>-<sequence, four digits>. */\n${SIGNATURE}  return \`INV-\${year}-\${String(sequence).padStart(4, '0')}\`;\n}\n\nmodule.exports = { invoiceNumber };\n`,
  'test/ok.test.mjs': "import test from 'node:test';\n\ntest('the suite runs', () => {});\n",
  'test/invoice.test.js':
    "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert/strict');\nconst { invoiceNumber } = require('../src/invoice.js');\n\ntest('numbers are zero-padded', () => {\n  assert.equal(invoiceNumber(2026, 42), 'INV-2026-0042');\n});\n",
};
const RED_TEST_PATH = 'test/invoice-sequence.test.js';
const RED_TEST =
  "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert/strict');\nconst { invoiceNumber } = require('../src/invoice.js');\n\ntest('a sequence below 1 is refused', () => {\n  assert.throws(() => invoiceNumber(2026, 0), RangeError);\n});\n";
const WITH_WARNING = RED_TEST.replace('const { invoiceNumber }', 'const year = 2026;\nconst { invoiceNumber }');

const FINDING = {
  severity: 'critical',
  score: 8,
  category: 'correctness',
  finding_type: 'llm/unchecked-input',
  file: 'src/invoice.js',
  line_range: { start: 4, end: 6 },
  title: 'invoiceNumber accepts a sequence below 1',
  current_behaviour: 'invoiceNumber(2026, 0) returns "INV-2026-0000"',
  expected_behaviour: 'invoiceNumber throws a RangeError for a sequence below 1',
  observable_test_conditions: ['invoiceNumber(2026, 0) throws a RangeError'],
  forbidden_in_test: ['mocking invoiceNumber'],
};

function allText(request: FakeMessagesRequest): string {
  return JSON.stringify(request.messages);
}

const unexpected: string[] = [];
const testWriterResults: string[] = [];

/** The scripted model, by role (the tools it is offered) and turn. */
function script(request: FakeMessagesRequest): FakeTurn {
  const tools = (request.tools ?? []).map((t) => String(t['name']));
  const turn = request.messages.length;
  if (tools.includes('report_findings')) {
    // Reports the unchecked sequence until the code under review refuses it.
    return fakeTurn.toolUse('report_findings', {
      findings: allText(request).includes('throw new RangeError') ? [] : [FINDING],
    });
  }
  if (tools.includes('write_test_file')) {
    const id = /\\"id\\": \\"([^"\\]+)\\"/.exec(allText(request))?.[1] ?? 'unknown';
    const write = (content: string) =>
      fakeTurn.toolUse('write_test_file', {
        path: RED_TEST_PATH,
        content,
        finding_ids: [id],
        test_name: 'a sequence below 1 is refused',
      });
    if (turn === 1) return write(WITH_WARNING);
    if (turn === 3) {
      testWriterResults.push(allText(request));
      return write(RED_TEST);
    }
    return fakeTurn.text('One failing test, CommonJS like the others.');
  }
  if (tools.includes('edit_file')) {
    if (turn === 1)
      return fakeTurn.toolUse('edit_file', {
        path: 'src/invoice.js',
        old_string: SIGNATURE,
        new_string: `${SIGNATURE}${GUARD}`,
      });
    if (turn === 3) return fakeTurn.toolUse('run_tests', { command: 'node --test' });
    return fakeTurn.text('invoiceNumber refuses a sequence below 1.');
  }
  unexpected.push(`${tools.join(',')} / turn ${turn}`);
  return fakeTurn.text('unexpected request');
}

let fake: FakeAnthropic;
let t: TestFleet;
let repo: string;
let runId: string;

function git(...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}

function ofType<T extends RloopEvent['type']>(
  list: readonly RloopEvent[],
  type: T,
): Extract<RloopEvent, { type: T }>[] {
  return list.filter((e): e is Extract<RloopEvent, { type: T }> => e.type === type);
}

beforeAll(async () => {
  fake = await startFakeAnthropic({
    script,
    knownModels: ['claude-sonnet-5-5'],
    rejectForcedToolChoice: ['claude-sonnet-5-5'],
    apiKeys: [API_KEY],
  });
  t = await startTestFleet({
    env: { ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: fake.url },
    // The LLM reviewer and the compiler-linter judge the repository; small caps would end a stall soon.
    catalogue: (c) => ({
      ...c,
      core: ['quality/code-reviewer', 'toolchain/compiler-linter', 'security/secrets-detector'],
      dynamic: [],
      soft_caps: { critical: 3, medium: 2, low: 2, final_sweep: 2 },
    }),
  });
  repo = await scriptedRepo(join(t.home, 'repos', SLUG), FILES);
  const reply = await t.submit(
    samplePlan(SLUG, repo, {
      title: 'Invoice numbers refuse bad sequences',
      files: ['src/**/*.js', 'test/**/*.js'],
      implementer: { strategy: 'anthropic' },
    }),
  );
  if (reply.status !== 'accepted') throw new Error(`the plan was rejected: ${JSON.stringify(reply)}`);
  runId = reply.event_id;
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await fake?.close();
}, 60_000);

describe('the anthropic strategy on a CommonJS repository', () => {
  it('converges: the test writer follows require() and fixes its lint warning, the implementer makes the red test pass, and no critic counts CommonJS or the red test against the fix', async () => {
    let status: string;
    try {
      status = (await t.outcome(SLUG, runId, 240_000)).status;
    } catch (error) {
      const tail = t.lines.filter((l) => l.includes(SLUG) || /error|warn/i.test(l)).slice(-40);
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nlast lines:\n${tail.join('\n')}`, {
        cause: error,
      });
    }
    expect(status).toBe('converged');
    const list = (await t.bus.journal.events(SLUG)).entries.map((e) => e.event);

    // The test writer got its warning back, and wrote the test again without it.
    expect(testWriterResults).toEqual([
      expect.stringContaining("report 1 warning(s) in it, and a test's warnings count like the code's"),
    ]);
    expect(testWriterResults[0]).toContain(`${RED_TEST_PATH}:4 eslint/@typescript-eslint/no-unused-vars`);
    expect(ofType(list, 'TestsWritten').map((e) => e.data)).toEqual([
      expect.objectContaining({ round: 1, red: ['a sequence below 1 is refused'], passed_at_once: [], not_clean: [] }),
    ]);

    const fixes = ofType(list, 'FixApplied');
    expect(fixes).toHaveLength(1);
    expect(fixes[0]?.data).toMatchObject({
      strategy: 'anthropic',
      outcome: 'committed',
      tests_added: [RED_TEST_PATH],
      tests_result: { failed: 0, regressions: 0, warnings: 0 },
    });
    expect(git('show', `rloop/${SLUG}:src/invoice.js`)).toContain(GUARD.trim());
    expect(git('show', `rloop/${SLUG}:${RED_TEST_PATH}`)).toBe(RED_TEST.trimEnd());

    // Round 1 has the reviewer's finding only (no require() flagged); every later round is clean.
    const letters = ofType(list, 'LetterWritten').map((e) => e.data.letter.findings.map((f) => f.finding_type));
    expect(letters[0]).toEqual(['llm/unchecked-input']);
    expect(letters.slice(1).every((findings) => findings.length === 0)).toBe(true);
    const linter = ofType(list, 'FindingsReported').filter((e) => e.data.critic_id === 'toolchain/compiler-linter');
    expect(linter.length).toBeGreaterThan(1);
    expect(linter.every((r) => r.data.findings.length === 0)).toBe(true);
    expect(ofType(list, 'EscalationRaised')).toEqual([]);
    expect(unexpected).toEqual([]);
    expect(fake.protocolErrors).toEqual([]);
  }, 300_000);
});
