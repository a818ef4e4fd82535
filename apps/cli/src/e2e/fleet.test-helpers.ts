// A whole fleet for end-to-end specs: real NATS (own namespace), real PostgreSQL (own database),
// the services as child processes from their builds, sample repositories in a temp dir.
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { jetstreamManager } from '@nats-io/jetstream';
import { type JournaledEvent, SubmitReply } from '@rloop/contracts';
import type { LoopState } from '@rloop/domain';
import {
  TEST_NATS_URL,
  type TestDatabase,
  createTestDatabase,
  deleteNamespaceStreams,
  eventually,
  uniqueNamespace,
} from '@rloop/testing';
import { type CliBus, connectCli } from '../bus/connect.js';
import { type Fleet, type FleetOptions, type FleetService, startFleet } from '../fleet/supervisor.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

interface SampleRepoModule {
  createSampleRepo(
    dir: string,
    variant: 'fixable' | 'unfixable',
    options?: { force?: boolean },
  ): Promise<{ dir: string; commit: string }>;
}

/** A running fleet for a spec (see startTestFleet and startReadmeFleet). */
export interface FleetUnderTest {
  readonly fleet: Fleet;
  readonly bus: CliBus;
  readonly namespace: string;
  readonly home: string;
  /** Lines every service printed (for diagnosing a failure). */
  readonly lines: string[];
  sampleRepo(variant: 'fixable' | 'unfixable', name?: string): Promise<string>;
  submit(plan: Record<string, unknown>): Promise<SubmitReply>;
  /** Waits until the journal shows the run ended (or escalated); returns its loop state. */
  outcome(plan: string, runId: string, timeoutMs?: number): Promise<LoopState>;
  stop(): Promise<void>;
}

/** A fleet whose journal is a database of its own on the shared PostgreSQL. */
export interface TestFleet extends FleetUnderTest {
  readonly database: TestDatabase;
}

export interface TestFleetOptions extends Pick<
  FleetOptions,
  'replicas' | 'services' | 'httpPortOf' | 'readyTimeoutMs'
> {
  /** Changes to config/critics.yaml for this fleet (e.g. smaller soft caps). */
  readonly catalogue?: (catalogue: Record<string, unknown>) => Record<string, unknown>;
  /** Changes to config/models.yaml for this fleet (e.g. small budgets). */
  readonly models?: (models: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Changes to config/trust.yaml for this fleet. By default a test fleet allows `node --test`,
   * `true` and `node <home>/scripts/<name>.mjs [arg]` (the scripted implementers), and
   * repositories under `<home>/repos`.
   */
  readonly trust?: (trust: Record<string, unknown>) => Record<string, unknown>;
  readonly env?: NodeJS.ProcessEnv;
  /** A NATS server of the spec's own (default: the shared one on this machine). */
  readonly natsUrl?: string;
  /** Variables of one service (e.g. its NATS user), over `env`. */
  readonly serviceEnv?: (service: FleetService) => NodeJS.ProcessEnv;
  /** NATS credentials of the spec's own connection (`bus`, and the clean-up at stop()). */
  readonly busEnv?: NodeJS.ProcessEnv;
  /** The namespace (default: a new one). */
  readonly namespace?: string;
  /** The journal's database (default: a new database on the shared PostgreSQL, dropped at stop()). */
  readonly database?: TestDatabase;
}

/** Starts a fleet for one spec file, its home in a temporary directory. Call stop() in afterAll. */
export async function startTestFleet(options: TestFleetOptions = {}): Promise<TestFleet> {
  const database = options.database ?? (await createTestDatabase('rloop_e2e'));
  const fleet = await launchFleet(options, await mkdtemp(join(tmpdir(), 'rloop-e2e-')), database);
  return { ...fleet, database };
}

/**
 * Starts the fleet as the README runs it: `RLOOP_HOME` under this project's own root
 * (`.rloop/e2e-<random>`, which the project's .gitignore ignores — so every checkout the critics
 * read lies inside a git tree that ignores it) and the journal embedded (PGlite) under it, with no
 * DATABASE_URL. Call stop() in afterAll; it removes the home.
 */
export async function startReadmeFleet(options: Omit<TestFleetOptions, 'database'> = {}): Promise<FleetUnderTest> {
  const home = join(REPO_ROOT, '.rloop', `e2e-${randomBytes(4).toString('hex')}`);
  await mkdir(home, { recursive: true });
  const { execFileSync } = await import('node:child_process');
  try {
    execFileSync('git', ['check-ignore', '-q', home], { cwd: REPO_ROOT });
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    throw new Error(`${home} is not ignored by the project's git tree: the README layout needs .rloop/ in .gitignore`, {
      cause: error,
    });
  }
  return launchFleet(options, home, null);
}

/** Starts the services with `home` as RLOOP_HOME and the journal on `database`, or on PGlite under the home when null. */
async function launchFleet(
  options: Omit<TestFleetOptions, 'database'>,
  home: string,
  database: TestDatabase | null,
): Promise<FleetUnderTest> {
  const namespace = options.namespace ?? uniqueNamespace('e');
  const natsUrl = options.natsUrl ?? TEST_NATS_URL;
  const configDir = join(home, 'config');
  await cp(join(REPO_ROOT, 'config'), configDir, { recursive: true });
  if (options.catalogue !== undefined) {
    const path = join(configDir, 'critics.yaml');
    const catalogue = parseYaml(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, toYaml(options.catalogue(catalogue)));
  }
  if (options.models !== undefined) {
    const path = join(configDir, 'models.yaml');
    const models = parseYaml(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, toYaml(options.models(models)));
  }
  {
    const path = join(configDir, 'trust.yaml');
    const trust = parseYaml(await readFile(path, 'utf8')) as {
      commands: Record<string, unknown>;
      repositories: Record<string, unknown>;
    };
    const scripts = join(home, 'scripts').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const testTrust = {
      ...trust,
      commands: { ...trust.commands, allow: ['node --test', 'true', `/node ${scripts}\\/[a-z-]+\\.mjs( \\S+)?/`] },
      repositories: { ...trust.repositories, local_roots: ['repos'] },
    };
    await writeFile(path, toYaml(options.trust === undefined ? testTrust : options.trust(testTrust)));
  }
  const lines: string[] = [];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NATS_URL: natsUrl,
    RLOOP_NAMESPACE: namespace,
    RLOOP_HOME: home,
    RLOOP_CONFIG_DIR: configDir,
    RLOOP_NATS_CONNECT_TIMEOUT_MS: '5000',
    ...options.env,
  };
  delete env['ANTHROPIC_API_KEY'];
  delete env['DATABASE_URL'];
  if (database !== null) env['DATABASE_URL'] = database.url;
  Object.assign(env, options.env);
  const fleet = await startFleet({
    env,
    ...(options.serviceEnv === undefined ? {} : { envFor: options.serviceEnv }),
    ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
    ...(options.services === undefined ? {} : { services: options.services }),
    ...(options.httpPortOf === undefined ? {} : { httpPortOf: options.httpPortOf }),
    ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
    onLine: (line) => lines.push(line),
  });
  const busEnv = { ...process.env, ...options.busEnv };
  const bus = await connectCli({ natsUrl, namespace }, { env: busEnv });
  const samples = (await import(
    new URL('../../../../examples/sample-repo.mjs', import.meta.url).href
  )) as SampleRepoModule;
  return {
    fleet,
    bus,
    namespace,
    home,
    lines,
    sampleRepo: async (variant, name = variant) =>
      (await samples.createSampleRepo(join(home, 'repos', name), variant, { force: true })).dir,
    submit: async (plan) => SubmitReply.parse(await bus.client.request('plans.submit', plan, { timeoutMs: 60_000 })),
    outcome: (plan, runId, timeoutMs = 120_000) =>
      eventually(
        async () => {
          const { state } = await bus.journal.loopState(plan);
          return state !== null &&
            state.run_id === runId &&
            (state.outcome_event_id !== null || state.status === 'escalated')
            ? state
            : undefined;
        },
        { timeoutMs, intervalMs: 100, description: `the end of ${plan}` },
      ),
    stop: async () => {
      await bus.close();
      await fleet.stop();
      const nats = await connectCli({ natsUrl, namespace }, { env: busEnv });
      await deleteNamespaceStreams(await jetstreamManager(nats.connection), namespace);
      await nats.close();
      await database?.drop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** A plan for a sample repository (the shape of examples/plans, with the repository path filled in). */
export function samplePlan(
  slug: string,
  repoPath: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    slug,
    title: 'Tidy the invoicing helpers',
    description: 'Rework money formatting and invoice rendering in the sample library.',
    effort_level: 'high',
    files: ['src/**/*.ts', 'src/**/*.js'],
    repo: { path: repoPath, ref: 'main' },
    test_cmd: 'node --test',
    ...overrides,
  };
}

/**
 * A small git repository for scripted loops: the given files (path → content) committed on
 * `main`, plus a package.json and a passing test so the baseline is green.
 */
export async function scriptedRepo(dir: string, files: Readonly<Record<string, string>>): Promise<string> {
  const { execFileSync } = await import('node:child_process');
  const { mkdir } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  const all: Record<string, string> = {
    'package.json': `${JSON.stringify({ name: 'scripted', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
    'test/ok.test.mjs':
      "import test from 'node:test';\n\ntest('the module loads', async () => {\n  await import('../src/config.js');\n});\n",
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  const git = (...args: string[]): void =>
    void execFileSync('git', ['-C', dir, '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null', ...args], {
      env,
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '--no-verify', '-m', 'scripted repository');
  return dir;
}

/** Runs the real `rloop` command against a test fleet; resolves with its exit code and output. */
export async function rloopCli(
  t: FleetUnderTest,
  args: readonly string[],
): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }> {
  const { spawn } = await import('node:child_process');
  const entry = fileURLToPath(new URL('../../bin/rloop.js', import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], {
      env: {
        ...process.env,
        NATS_URL: TEST_NATS_URL,
        RLOOP_NAMESPACE: t.namespace,
        RLOOP_CONFIG_DIR: join(t.home, 'config'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * What "ending the same way" means for a loop: its rounds, their letters (each finding by critic,
 * type and place) and fixes, critics that failed, detections, phase changes and the outcome — with
 * an escalation's reason, so a run that ended differently says why.
 */
export function loopStory(events: readonly JournaledEvent[]): string[] {
  return events.flatMap((e) => {
    switch (e.type) {
      case 'RoundStarted':
        return [`round ${e.data.round} ${e.data.phase}`];
      case 'LetterWritten':
        return [
          `letter ${e.data.letter.round}: ${e.data.letter.findings.map((f) => `${f.raised_by} ${f.finding_type} ${f.file}:${f.line_range.start}`).join(', ') || 'clean'}`,
        ];
      case 'FixApplied':
        return [`fix ${e.data.round}: ${e.data.outcome} ${e.data.fixes_applied.map((f) => f.file).join(', ')}`];
      case 'CriticFailed':
        return [`critic failed ${e.data.round}: ${e.data.critic_id} ${e.data.reason}: ${e.data.message}`];
      case 'EscalationRaised':
        return [
          `${e.type} ${e.data.report.trigger.kind} ${e.data.report.trigger.heuristic ?? ''}: ${e.data.report.trigger.detail}`,
        ];
      case 'PhaseAdvanced':
      case 'LoopConverged':
      case 'LoopDetected':
        return [e.type];
      default:
        return [];
    }
  });
}
