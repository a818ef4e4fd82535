import { cp, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { recordBaseline } from '../baseline/baseline.js';
import { loadImplementerConfig } from '../config.js';
import { applyFix } from '../fix/fix-cycle.js';
import { builtInStrategies } from '../strategies/resolve.js';
import { RUN_ID, type TempDir, gitOut, letterFor, sampleRepo, tempDir } from '../testing/repos.test-helpers.js';

// The scrubbed-environment test: an implementer whose own environment holds the API key, the
// journal's database URL and the bus's credentials runs a plan's baseline, its tests and a
// `command` implementer; each writes down the environment it got.

const CONFIG_DIR = fileURLToPath(new URL('../../../../config', import.meta.url));
const SECRETS = {
  ANTHROPIC_API_KEY: `sk-ant-api03-${'k'.repeat(90)}`,
  DATABASE_URL: 'postgres://rloop:journal-password@db:5432/rloop',
  // One kind of NATS credentials, as the bus's configuration requires.
  NATS_URL: 'nats://nats:4222',
  NATS_USER: 'implementer',
  NATS_PASSWORD: 'nats-password',
  PGPASSWORD: 'journal-password',
};

describe("the environment of a plan's commands", () => {
  let tmp: TempDir;
  let configDir: string;

  beforeAll(async () => {
    tmp = await tempDir('environment');
    configDir = join(tmp.path, 'config');
    await cp(CONFIG_DIR, configDir, { recursive: true });
    await writeFile(
      join(configDir, 'trust.yaml'),
      stringify({ commands: { allow: ['node --test', '/sh \\S+\\.sh/'], env: ['NODE_OPTIONS', 'EXTRA_FOR_TESTS'] } }),
    );
  });

  afterAll(() => tmp.cleanup());

  it('given the service holding the API key, the database URL and NATS credentials, when the baseline, the tests and a command implementer run, then none of them sees any of those, and each sees PATH, HOME and what the operator listed', async () => {
    const serviceEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: tmp.path,
      LANG: 'C.UTF-8',
      RLOOP_HOME: join(tmp.path, 'home'),
      RLOOP_CONFIG_DIR: configDir,
      NODE_OPTIONS: '--no-warnings',
      EXTRA_FOR_TESTS: 'listed by the operator',
      AWS_SECRET_ACCESS_KEY: 'not listed, so not passed',
      ...SECRETS,
    };
    const config = await loadImplementerConfig(serviceEnv);
    const repo = await sampleRepo(tmp.path, 'fixable');
    const seen = (name: string) => join(tmp.path, `${name}-env.json`);
    await writeFile(
      join(repo.dir, 'test', 'env.test.mjs'),
      `import { appendFileSync } from 'node:fs';\nimport { test } from 'node:test';\ntest('records its environment', () => appendFileSync(${JSON.stringify(seen('tests'))}, JSON.stringify(process.env) + '\\n'));\n`,
    );
    gitOut(repo.dir, ['add', '-A']);
    gitOut(repo.dir, ['commit', '-qm', 'a test that records its environment']);
    const commit = gitOut(repo.dir, ['rev-parse', 'HEAD']);
    const agent = join(tmp.path, 'agent.sh');
    await writeFile(
      agent,
      `set -e\nnode -e "require('fs').writeFileSync('${seen('agent')}', JSON.stringify(process.env))"\necho '// edited' >> src/money.ts\n`,
    );
    const deps = { workRoot: config.home, env: config.commands.env, commands: config.commands, testTimeoutMs: 60_000 };

    const baseline = await recordBaseline(
      { slug: 'environment', runId: RUN_ID, repoPath: repo.dir, commit, testCmd: 'node --test' },
      deps,
    );
    expect(baseline.exit_code).toBe(0);
    const fix = await applyFix(
      {
        round: 1,
        attempt: 1,
        letter: letterFor('environment', commit, []),
        base_commit: commit,
        branch: 'rloop/environment',
        repo_path: repo.dir,
        test_cmd: 'node --test',
        implementer: { strategy: 'command', command: `sh ${agent}` },
        baseline_failing: [],
      },
      {
        ...deps,
        strategyFor: builtInStrategies({
          commandTimeoutMs: 60_000,
          limits: config.commands.limits,
          scratchRoot: tmp.path,
        }),
      },
    );
    expect(fix.outcome).toBe('committed');

    const environments = [
      ...(await readFile(seen('tests'), 'utf8')).trim().split('\n'),
      await readFile(seen('agent'), 'utf8'),
    ].map((line) => JSON.parse(line) as Record<string, string>);
    // The baseline's test run, the fix's test run, and the agent.
    expect(environments).toHaveLength(3);
    for (const env of environments) {
      for (const name of [...Object.keys(SECRETS), 'AWS_SECRET_ACCESS_KEY', 'RLOOP_CONFIG_DIR'])
        expect(env[name]).toBeUndefined();
      expect(JSON.stringify(env)).not.toMatch(/journal-password|nats-password|sk-ant-api03/);
      expect(env).toMatchObject({
        PATH: serviceEnv.PATH,
        HOME: tmp.path,
        LANG: 'C.UTF-8',
        EXTRA_FOR_TESTS: 'listed by the operator',
      });
    }
    expect(environments[2]).toMatchObject({ RLOOP_PLAN: 'environment', RLOOP_ROUND: '1' });
  }, 120_000);
});
