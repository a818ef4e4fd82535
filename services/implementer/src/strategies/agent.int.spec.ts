import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CodingAgent, PlanImplementer } from '@rloop/contracts';
import { TrustConfig } from '@rloop/domain';
import { stringify } from 'yaml';
import { type ImplementerConfig, agentPolicies, loadImplementerConfig } from '../config.js';
import { type FixRequestedData, applyFix } from '../fix/fix-cycle.js';
import { ensureWorktree } from '../git/worktree.js';
import { checkBubblewrap } from '../shell/sandbox.js';
import { AGENT_TASK } from './agents/presets.js';
import { createAgentStrategy } from './agent.js';
import { builtInStrategies } from './resolve.js';
import {
  type SampleRepo,
  type TempDir,
  findingAt,
  gitOut,
  letterFor,
  sampleRepo,
  tempDir,
} from '../testing/repos.test-helpers.js';

// The `agent` strategy with stand-in executables named like the real CLIs (claude, codex, aider,
// gemini) on the implementer's PATH: each records the arguments, standard input, message file and
// environment it got, edits the files it was pointed at (`var` → `const`), and exits with the
// status the test asks for. Configuration comes from a real config/trust.yaml, as in the service.

const CONFIG_DIR = fileURLToPath(new URL('../../../../config', import.meta.url));
const FLEET_KEY = `sk-ant-api03-fleet-${'f'.repeat(80)}`;
const AGENT_KEY = `sk-ant-api03-agent-${'a'.repeat(80)}`;
const OPENAI_KEY = `sk-proj-codex-${'c'.repeat(40)}`;

const STAND_IN = `#!/usr/bin/env node
const { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { basename, join } = require('node:path');
const args = process.argv.slice(2);
const messageFile = args.indexOf('--message-file') >= 0 ? args[args.indexOf('--message-file') + 1] : null;
const record = {
  program: basename(process.argv[1]),
  args,
  cwd: process.cwd(),
  stdin: readFileSync(0, 'utf8'),
  message: messageFile === null ? null : readFileSync(messageFile, 'utf8'),
  env: process.env,
};
appendFileSync(process.env.STANDIN_RECORD, JSON.stringify(record) + '\\n');
if (process.env.STANDIN_SLEEP_MS) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.STANDIN_SLEEP_MS));
const files = args.filter((a) => a.startsWith('--file=')).map((a) => a.slice('--file='.length));
for (const file of files.length > 0 ? files : ['src/money.ts']) {
  if (existsSync(file)) writeFileSync(file, readFileSync(file, 'utf8').replace(/\\bvar\\b/g, 'const'));
}
if (record.program === 'aider') {
  mkdirSync('.aider.tags.cache.v4', { recursive: true });
  writeFileSync(join('.aider.tags.cache.v4', 'cache.db'), 'tags');
  writeFileSync('.aider.chat.history.md', '# chat');
}
const status = Number(process.env.STANDIN_EXIT || '0');
if (status !== 0) console.error(record.program + ': stand-in failing on purpose');
else console.log(record.program + ': edited ' + (files.join(', ') || 'src/money.ts'));
process.exitCode = status;
`;

interface AgentRunRecord {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly stdin: string;
  readonly message: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
}

describe('the agent strategy with stand-in coding-agent CLIs', () => {
  let tmp: TempDir;
  let bin: string;
  let records: string;
  let config: ImplementerConfig;
  let serviceEnv: Record<string, string>;

  async function recorded(): Promise<AgentRunRecord[]> {
    if (!existsSync(records)) return [];
    return (await readFile(records, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AgentRunRecord);
  }

  beforeAll(async () => {
    tmp = await tempDir('agent');
    bin = join(tmp.path, 'bin');
    records = join(tmp.path, 'records', 'runs.jsonl');
    await mkdir(bin, { recursive: true });
    await mkdir(join(tmp.path, 'records'), { recursive: true });
    for (const program of ['claude', 'codex', 'aider', 'gemini']) {
      await writeFile(join(bin, program), STAND_IN);
      await chmod(join(bin, program), 0o755);
    }
    const configDir = join(tmp.path, 'config');
    await cp(CONFIG_DIR, configDir, { recursive: true });
    await writeFile(join(tmp.path, 'gemini.key'), 'gemini-key-from-a-file\n');
    await writeFile(
      join(configDir, 'trust.yaml'),
      stringify({
        commands: { allow: ['node --test'], env: ['STANDIN_RECORD', 'STANDIN_EXIT', 'STANDIN_SLEEP_MS'] },
        agents: {
          'claude-code': {
            env: { ANTHROPIC_API_KEY: { from_env: 'CLAUDE_CODE_API_KEY' } },
            models: ['claude-sonnet-5-5'],
            extra_args: ['--verbose'],
          },
          codex: { env: { CODEX_API_KEY: { from_env: 'CODEX_KEY_FOR_AGENTS' } } },
          aider: {
            env: { ANTHROPIC_API_KEY: { from_env: 'CLAUDE_CODE_API_KEY' } },
            models: ['/anthropic\\/claude-[a-z0-9-]+/'],
          },
          gemini: { env: { GEMINI_API_KEY: { from_file: join(tmp.path, 'gemini.key') } }, timeout_minutes: 1 },
        },
      }),
    );
    serviceEnv = {
      PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
      HOME: tmp.path,
      LANG: 'C.UTF-8',
      RLOOP_HOME: join(tmp.path, 'home'),
      RLOOP_CONFIG_DIR: configDir,
      STANDIN_RECORD: records,
      // The service's own secrets: no agent may see them.
      ANTHROPIC_API_KEY: FLEET_KEY,
      DATABASE_URL: 'postgres://rloop:journal-password@db:5432/rloop',
      NATS_TOKEN: 'nats-token-0123456789',
      // The agents' own credentials, under names the operator chose.
      CLAUDE_CODE_API_KEY: AGENT_KEY,
      CODEX_KEY_FOR_AGENTS: OPENAI_KEY,
    };
    config = await loadImplementerConfig(serviceEnv);
  }, 60_000);

  afterAll(() => tmp.cleanup());

  function request(repo: SampleRepo, slug: string, implementer: PlanImplementer): FixRequestedData {
    return {
      round: 1,
      attempt: 1,
      letter: letterFor(slug, repo.commit, [
        findingAt('src/money.ts', 9, 'eslint/no-var'),
        findingAt('src/tax.js', 1, 'eslint/no-var'),
      ]),
      base_commit: repo.commit,
      branch: `rloop/${slug}`,
      repo_path: repo.dir,
      test_cmd: 'node --test',
      implementer,
      baseline_failing: [],
    };
  }

  function fix(data: FixRequestedData, env: Record<string, string> = {}) {
    const { allow, agents, agentPolicies, limits, trustFile } = config.commands;
    return applyFix(data, {
      workRoot: config.home,
      env: { ...config.commands.env, ...env },
      commands: { allow, agents, limits, trustFile },
      testTimeoutMs: 60_000,
      strategyFor: builtInStrategies({
        commandTimeoutMs: 60_000,
        limits,
        agents: agentPolicies,
        scratchRoot: tmp.path,
      }),
    });
  }

  it.each<[CodingAgent, { model?: string; extra_args?: string[] }, string, string]>([
    ['claude-code', { model: 'claude-sonnet-5-5', extra_args: ['--verbose'] }, 'ANTHROPIC_API_KEY', AGENT_KEY],
    ['codex', {}, 'CODEX_API_KEY', OPENAI_KEY],
    ['aider', { model: 'anthropic/claude-sonnet-5-5' }, 'ANTHROPIC_API_KEY', AGENT_KEY],
    ['gemini', {}, 'GEMINI_API_KEY', 'gemini-key-from-a-file'],
  ])(
    'given %s allowed in trust.yaml, when a letter is fixed through it, then it gets the letter, its own key and none of the fleet’s, and its edit is committed',
    async (agent, choice, keyName, key) => {
      await rm(records, { force: true });
      const repo = await sampleRepo(tmp.path, 'fixable', agent);
      const result = await fix(request(repo, agent, { strategy: 'agent', agent, ...choice }));

      expect(result).toMatchObject({ strategy: `agent:${agent}`, outcome: 'committed' });
      expect(gitOut(repo.dir, ['show', `${result.commit ?? ''}:src/money.ts`])).toContain('const sign');
      const [run, ...more] = await recorded();
      expect(more).toEqual([]);
      expect(run?.cwd).toBe(join(config.home, 'worktrees', agent));
      // The letter: the Markdown on standard input (the task is an argument), or in aider's message file after the task.
      const letter = run?.message ?? run?.stdin ?? '';
      expect(letter).toContain(`# Letter ${result.letter_id}`);
      expect(letter).toContain('eslint/no-var at src/money.ts:9');
      if (agent === 'aider') {
        expect(run?.message?.startsWith(AGENT_TASK)).toBe(true);
        expect(run?.args).toEqual(
          expect.arrayContaining([
            '--model',
            'anthropic/claude-sonnet-5-5',
            '--file=src/money.ts',
            '--file=src/tax.js',
            '--no-auto-commits',
          ]),
        );
      } else {
        expect(run?.args).toContain(AGENT_TASK);
      }
      // Only the edit: aider's caches and histories (.aider.tags.cache.v4/, .aider.chat.history.md) are not part of the fix.
      expect(gitOut(repo.dir, ['show', '--name-only', '--format=', result.commit ?? ''])).toBe('src/money.ts');
      if (agent === 'claude-code') expect(run?.args.slice(-3)).toEqual(['--model', 'claude-sonnet-5-5', '--verbose']);
      expect(run?.env[keyName]).toBe(key);
      for (const secret of [
        'DATABASE_URL',
        'NATS_TOKEN',
        'CLAUDE_CODE_API_KEY',
        'CODEX_KEY_FOR_AGENTS',
        'RLOOP_CONFIG_DIR',
      ])
        expect(run?.env[secret]).toBeUndefined();
      expect(JSON.stringify(run?.env)).not.toContain(FLEET_KEY);
    },
  );

  it('given an agent that exits with a status its documentation defines, when the fix runs, then the attempt fails saying what the status means, and the worktree is reset', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'gemini-turns');
    const result = await fix(request(repo, 'gemini-turns', { strategy: 'agent', agent: 'gemini' }), {
      STANDIN_EXIT: '53',
    });
    expect(result).toMatchObject({ strategy: 'agent:gemini', outcome: 'failed', commit: null });
    expect(result.reason).toMatch(
      /^the gemini agent \(gemini\) exited with code 53: Gemini CLI reached its turn limit before it finished; output ends with:\ngemini: stand-in failing on purpose/,
    );
    expect(gitOut(join(config.home, 'worktrees', 'gemini-turns'), ['status', '--porcelain'])).toBe('');
  });

  it('given an agent whose program is not installed, when the fix runs, then the attempt fails saying so', async () => {
    const repo = await sampleRepo(tmp.path, 'fixable', 'no-program');
    const result = await fix(request(repo, 'no-program', { strategy: 'agent', agent: 'codex' }), {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    });
    expect(result.reason).toMatch(
      /exited with code 127: codex is not installed on the implementer's host \(not found on its PATH\)/,
    );
  });

  it('given an agent that outlives its timeout (trust.yaml timeout_minutes), when the fix runs, then it is stopped and the attempt fails', async () => {
    const policies = { ...config.commands.agentPolicies, gemini: { env: {}, timeoutMs: 1500 } };
    const repo = await sampleRepo(tmp.path, 'fixable', 'gemini-slow');
    const worktree = (
      await ensureWorktree({ repoPath: repo.dir, slug: 'gemini-slow', workRoot: config.home, commit: repo.commit })
    ).dir;
    const strategy = createAgentStrategy({
      agent: 'gemini',
      model: null,
      extraArgs: [],
      policy: policies.gemini,
      scratchRoot: tmp.path,
    });
    await expect(
      strategy.apply({
        worktreeDir: worktree,
        letter: letterFor('gemini-slow', repo.commit, []),
        round: 1,
        env: { ...config.commands.env, STANDIN_SLEEP_MS: '20000' },
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow('the gemini agent (gemini) timed out after 1500 ms');
  });

  it('given an agent, a model or an argument the operator did not allow, when a forged request asks for it, then nothing runs and the refusal says where agents are allowed', async () => {
    await rm(records, { force: true });
    const repo = await sampleRepo(tmp.path, 'fixable', 'refused');
    const model = await fix(
      request(repo, 'refused', {
        strategy: 'agent',
        agent: 'claude-code',
        model: 'claude-opus-5-5',
        extra_args: ['--dangerously-skip-permissions'],
      }),
    );
    expect(model).toMatchObject({ outcome: 'failed', commit: null });
    expect(model.reason).toMatch(
      /implementer\.model: the model claude-opus-5-5 is not allowed for claude-code.*implementer\.extra_args\.0: the argument "--dangerously-skip-permissions" is not allowed/s,
    );
    expect(await recorded()).toEqual([]);
  });

  it('given a credential the operator named that is missing, or that is the fleet’s own key, when the implementer starts, then it refuses to, naming the entry', async () => {
    const agents = (env: Record<string, unknown>) => TrustConfig.parse({ agents: { 'claude-code': { env } } }).agents;
    await expect(
      agentPolicies(
        agents({ ANTHROPIC_API_KEY: { from_env: 'NOT_SET_ANYWHERE' } }),
        serviceEnv,
        '/etc/rloop/trust.yaml',
      ),
    ).rejects.toThrow(
      "agents.claude-code.env.ANTHROPIC_API_KEY of /etc/rloop/trust.yaml reads NOT_SET_ANYWHERE, which is not set in the implementer's environment",
    );
    await expect(
      agentPolicies(
        agents({ ANTHROPIC_API_KEY: { from_file: join(tmp.path, 'missing.key') } }),
        serviceEnv,
        'trust.yaml',
      ),
    ).rejects.toThrow(/reads .*missing\.key, which cannot be read: ENOENT/);
    await expect(
      agentPolicies(
        agents({ ANTHROPIC_API_KEY: { from_env: 'SAME_AS_FLEET' } }),
        { ...serviceEnv, SAME_AS_FLEET: FLEET_KEY },
        'trust.yaml',
      ),
    ).rejects.toThrow(/is the fleet's own ANTHROPIC_API_KEY: give the agent a key of its own/);
  });

  it('given the bubblewrap sandbox, when an agent runs in it, then it still gets the letter and its key and edits only its worktree', async () => {
    await checkBubblewrap();
    await rm(records, { force: true });
    const repo = await sampleRepo(tmp.path, 'fixable', 'sandboxed-agent');
    const worktree = (
      await ensureWorktree({ repoPath: repo.dir, slug: 'sandboxed-agent', workRoot: config.home, commit: repo.commit })
    ).dir;
    const sandbox = {
      kind: 'bubblewrap' as const,
      network: false,
      readOnly: [bin],
      writable: [join(tmp.path, 'records')],
      hidden: [config.home.replace(/\/home$/, '/config')],
    };
    const policy = config.commands.agentPolicies['claude-code'];
    if (policy === undefined) throw new Error('claude-code is allowed in this spec');
    const strategy = createAgentStrategy({
      agent: 'claude-code',
      model: null,
      extraArgs: [],
      policy,
      sandbox,
      scratchRoot: tmp.path,
    });
    const outcome = await strategy.apply({
      worktreeDir: worktree,
      letter: letterFor('sandboxed-agent', repo.commit, [findingAt('src/money.ts', 9, 'eslint/no-var')]),
      round: 1,
      env: config.commands.env,
      signal: new AbortController().signal,
    });
    expect(outcome.changedFiles).toEqual(['src/money.ts']);
    const [run] = await recorded();
    expect(run?.stdin).toContain('eslint/no-var at src/money.ts:9');
    expect(run?.env['ANTHROPIC_API_KEY']).toBe(AGENT_KEY);
  }, 60_000);
});
