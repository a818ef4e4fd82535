// The agent strategy on the whole fleet: the operator allows Claude Code in config/trust.yaml with
// a key of its own; a stand-in `claude` on the implementer's PATH records what it got and fixes
// the one finding of a scripted repository; the loop converges with its commit. A plan naming an
// agent the operator did not allow is rejected by the gate, saying where agents are allowed.
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestFleet, samplePlan, scriptedRepo, startTestFleet } from './fleet.test-helpers.js';

const AGENT_KEY = 'sk-ant-api03-agentOwnKey-for-claude-code-0123456789abcdef0123';
const FLEET_SECRET = 'fleet-secret-the-agent-must-never-see-42';
const SLUG = 'agent-converges';

// Stands in for Claude Code: records its arguments, standard input and environment, then fixes `var`.
const CLAUDE = `#!/usr/bin/env node
const { appendFileSync, readFileSync, writeFileSync } = require('node:fs');
appendFileSync(process.env.STANDIN_RECORD, JSON.stringify({ args: process.argv.slice(2), stdin: readFileSync(0, 'utf8'), env: process.env }) + '\\n');
writeFileSync('src/config.ts', readFileSync('src/config.ts', 'utf8').replace('var retries', 'const retries'));
console.log('claude: fixed src/config.ts');
`;

let t: TestFleet;
let bin: string;
let records: string;

beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'rloop-agents-bin-'));
  await writeFile(join(bin, 'claude'), CLAUDE);
  await chmod(join(bin, 'claude'), 0o755);
  records = join(bin, 'runs.jsonl');
  t = await startTestFleet({
    env: {
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      STANDIN_RECORD: records,
      CLAUDE_CODE_API_KEY: AGENT_KEY,
      AWS_SECRET_ACCESS_KEY: FLEET_SECRET,
      PGPASSWORD: FLEET_SECRET,
    },
    trust: (trust) => ({
      ...trust,
      commands: { ...(trust['commands'] as Record<string, unknown>), env: ['STANDIN_RECORD'] },
      agents: {
        'claude-code': {
          env: { ANTHROPIC_API_KEY: { from_env: 'CLAUDE_CODE_API_KEY' } },
          models: ['claude-sonnet-5-5'],
        },
      },
    }),
  });
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await rm(bin, { recursive: true, force: true });
}, 60_000);

describe('coding agents on the fleet', () => {
  it('given Claude Code allowed with a key of its own, when a plan asks for it, then it gets the letter and its key (none of the fleet’s secrets), and its fix converges the loop', async () => {
    const repo = await scriptedRepo(join(t.home, 'repos', SLUG), {
      'src/config.ts': 'var retries = 3;\nexport { retries };\n',
      'test/ok.test.mjs': "import test from 'node:test';\n\ntest('the suite runs', () => {});\n",
    });
    const reply = await t.submit(
      samplePlan(SLUG, repo, {
        files: ['src/**/*.ts'],
        implementer: { strategy: 'agent', agent: 'claude-code', model: 'claude-sonnet-5-5' },
      }),
    );
    if (reply.status !== 'accepted') throw new Error(`rejected: ${JSON.stringify(reply)}`);
    const state = await t.outcome(SLUG, reply.event_id, 180_000);
    expect(state.status).toBe('converged');

    const list = (await t.bus.journal.events(SLUG)).entries.map((e) => e.event);
    const fixes = list.filter((e) => e.type === 'FixApplied');
    expect(fixes.map((e) => e.type === 'FixApplied' && [e.data.strategy, e.data.outcome])).toEqual([
      ['agent:claude-code', 'committed'],
    ]);
    expect(execFileSync('git', ['-C', repo, 'show', `rloop/${SLUG}:src/config.ts`], { encoding: 'utf8' })).toBe(
      'const retries = 3;\nexport { retries };\n',
    );

    const [run, ...more] = (await readFile(records, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { args: string[]; stdin: string; env: Record<string, string | undefined> });
    expect(more).toEqual([]);
    expect(run?.args.slice(0, 1)).toEqual(['-p']);
    expect(run?.args).toEqual(
      expect.arrayContaining(['--permission-mode', 'acceptEdits', '--model', 'claude-sonnet-5-5']),
    );
    expect(run?.stdin).toContain('eslint/no-var');
    expect(run?.env['ANTHROPIC_API_KEY']).toBe(AGENT_KEY);
    for (const name of [
      'CLAUDE_CODE_API_KEY',
      'DATABASE_URL',
      'NATS_URL',
      'PGPASSWORD',
      'AWS_SECRET_ACCESS_KEY',
      'RLOOP_HOME',
      'RLOOP_CONFIG_DIR',
    ])
      expect({ name, value: run?.env[name] }).toEqual({ name });
    expect(JSON.stringify(run?.env)).not.toContain(FLEET_SECRET);
    // The agent's key is masked wherever the fleet wrote: no service printed it.
    expect(t.lines.filter((l) => l.includes(AGENT_KEY))).toEqual([]);
  }, 240_000);

  it('given an agent the operator did not allow, or a model it did not list, when a plan asks for it, then the gate rejects it saying where agents are allowed', async () => {
    const repo = await scriptedRepo(join(t.home, 'repos', 'agent-refused'), {
      'src/config.js': 'export const retries = 3;\n',
    });
    const reply = await t.submit(
      samplePlan('agent-refused', repo, { files: ['src/**/*.js'], implementer: { strategy: 'agent', agent: 'codex' } }),
    );
    expect(reply).toMatchObject({
      status: 'rejected',
      errors: [
        {
          path: 'implementer.agent',
          message: expect.stringContaining('the coding agent codex is not allowed on this fleet') as unknown,
        },
      ],
    });
    const model = await t.submit(
      samplePlan('agent-refused', repo, {
        files: ['src/**/*.js'],
        implementer: { strategy: 'agent', agent: 'claude-code', model: 'claude-opus-5-5' },
      }),
    );
    expect(model).toMatchObject({ status: 'rejected', errors: [{ path: 'implementer.model' }] });
  }, 60_000);
});
