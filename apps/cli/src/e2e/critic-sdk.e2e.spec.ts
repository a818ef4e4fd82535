import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CriticRegistrySnapshot, findCriticHealthBucket, readCriticRegistry } from '@rloop/bus';
import type { EventOf, RloopEvent } from '@rloop/contracts';
import { TEST_NATS_URL, eventually } from '@rloop/testing';
import type { CriticListing } from '../commands/critics.js';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TS_CRITIC = 'examples/no-console-log';
const PY_CRITIC = 'examples/todo-without-ticket';
const RUNNER_CRITIC = 'security/secrets-detector';
const run = promisify(execFile);

interface CriticProcess {
  readonly label: string;
  readonly child: ChildProcess;
  readonly lines: string[];
}

let t: TestFleet;
let repo: string;
const critics: CriticProcess[] = [];

function startCritic(label: string, command: string, args: readonly string[]): CriticProcess {
  const env = {
    ...process.env,
    NATS_URL: TEST_NATS_URL,
    RLOOP_NAMESPACE: t.namespace,
    RLOOP_CRITIC_HEARTBEAT_MS: '1000',
    RLOOP_CRITIC_INSTANCE_ID: label,
    RLOOP_CRITIC_WORK_ROOT: join(t.home, 'critic-work'),
  };
  const child = spawn(command, [...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr])
    if (stream !== null) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  const started = { label, child, lines };
  critics.push(started);
  return started;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function registry(): Promise<CriticRegistrySnapshot> {
  const bucket = await findCriticHealthBucket(t.bus.connection, t.namespace);
  if (bucket === null) throw new Error('no critic health bucket yet');
  return readCriticRegistry(bucket);
}

async function rloopCritics(): Promise<CriticListing[]> {
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'apps/cli/bin/rloop.js'), 'critics', '--json'], {
    env: { ...process.env, NATS_URL: TEST_NATS_URL, RLOOP_NAMESPACE: t.namespace },
  });
  return (JSON.parse(stdout) as { critics: CriticListing[] }).critics;
}

async function review(slug: string): Promise<RloopEvent[]> {
  const reply = await t.submit(samplePlan(slug, repo, { title: 'Quick fix: drop the debug helper' }));
  if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
  const state = await t.outcome(slug, reply.event_id, 45_000).catch(async (error: unknown) => {
    // Say where the plan stopped and what the fleet and the critics said last, not only "timed out".
    const events = (await t.bus.journal.events(slug)).entries.map(
      (e) => `${e.event.type} ${JSON.stringify(e.event.data).slice(0, 200)}`,
    );
    const said = [...t.lines.slice(-30), ...critics.flatMap((c) => c.lines.slice(-5).map((l) => `${c.label} ${l}`))];
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n${events.join('\n')}\n${said.join('\n')}`,
    );
  });
  expect(state.status).toBe('bypassed');
  return (await t.bus.journal.events(slug)).entries.map((e) => e.event);
}

/** Waits until both TypeScript replicas, the Python critic and critic-runner's critic are alive in the registry. */
function registered(): Promise<CriticRegistrySnapshot> {
  return eventually(
    async () => {
      const s = await registry();
      const ts = s.critics.find((c) => c.critic_id === TS_CRITIC);
      const ok =
        ts?.instances.filter((i) => i.health === 'alive').length === 2 &&
        [PY_CRITIC, RUNNER_CRITIC].every((id) => s.critics.find((c) => c.critic_id === id)?.health === 'alive');
      return ok ? s : undefined;
    },
    {
      timeoutMs: 20_000,
      description: `the critics to register (${critics.map((c) => `${c.label}: ${c.lines.slice(-3).join(' | ')}`).join('; ')})`,
    },
  );
}

function only<T extends RloopEvent['type']>(events: readonly RloopEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

beforeAll(async () => {
  t = await startTestFleet({
    // One built-in critic hosted by critic-runner, the TypeScript example as an external core critic;
    // the Python critic is in no catalogue: it joins by registering with triggers.
    catalogue: (c) => ({
      ...c,
      critics: {
        [RUNNER_CRITIC]: { evidence: 'pattern', timeout_ms: 30_000 },
        [TS_CRITIC]: {
          evidence: 'pattern',
          host: 'external',
          timeout_ms: 30_000,
          description: 'console.log left in production code',
        },
      },
      core: [RUNNER_CRITIC, TS_CRITIC],
      dynamic: [],
      round_grace_ms: 2_000,
    }),
    env: { RLOOP_CRITIC_HEARTBEAT_MS: '1000' },
  });
  repo = await t.sampleRepo('fixable', 'critic-sdk');
  await writeFile(
    join(repo, 'src/debug.ts'),
    "export function debugTotal(total: number): number {\n  console.log('total', total);\n  // TODO drop this helper\n  return total;\n}\n",
  );
  execFileSync('git', ['-C', repo, '-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', 'add', '.']);
  execFileSync('git', [
    '-C',
    repo,
    '-c',
    'user.name=e2e',
    '-c',
    'user.email=e2e@example.com',
    'commit',
    '-q',
    '-m',
    'debug helper',
  ]);
  startCritic('ts-1', process.execPath, ['examples/critic-service/dist/critic.js']);
  startCritic('ts-2', process.execPath, ['examples/critic-service/dist/critic.js']);
  startCritic('py-1', 'python3', ['examples/python-critic/critic.py']);
  await registered();
}, 90_000);

afterAll(async () => {
  for (const c of critics) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  await Promise.all(critics.map((c) => exited(c.child)));
  await t?.stop();
}, 60_000);

describe('critics as their own services, in TypeScript and in Python', () => {
  it('registers them (and critic-runner its hosted critic) with live heartbeats, as `rloop critics` shows', async () => {
    const snapshot = await registered();
    expect(snapshot.critics.find((c) => c.critic_id === PY_CRITIC)).toMatchObject({
      evidence: 'pattern',
      triggers: ['**/*'],
    });

    const listed = await rloopCritics();
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ critic_id: TS_CRITIC, evidence: 'pattern', health: 'alive', instances_alive: 2 }),
        expect.objectContaining({ critic_id: PY_CRITIC, health: 'alive', instances_alive: 1 }),
        expect.objectContaining({ critic_id: RUNNER_CRITIC, health: 'alive' }),
      ]),
    );
  }, 30_000);

  it('dispatches rounds to them; replicas share the TypeScript critic’s rounds, each answered once; findings reach the letters', async () => {
    const slugs = ['e2e-sdk-a', 'e2e-sdk-b', 'e2e-sdk-c', 'e2e-sdk-d'];
    const runs = await Promise.all(slugs.map((slug) => review(slug)));

    for (const events of runs) {
      const [round] = only(events, 'RoundStarted');
      expect(round?.data.critics).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ critic_id: TS_CRITIC, core: true }),
          expect.objectContaining({
            critic_id: PY_CRITIC,
            core: false,
            reason: expect.stringMatching(/^trigger registered examples\/todo-without-ticket: src\//) as unknown,
          }),
        ]),
      );
      expect(only(events, 'FindingsReported').filter((r) => r.data.critic_id === TS_CRITIC)).toHaveLength(1);
      // Both say what they covered of the plan's files (src/**/*.ts and src/**/*.js of the sample).
      const [planned] = only(events, 'LoopGated');
      const considered = planned?.data.files.length ?? 0;
      const coverageOf = (id: string) =>
        only(events, 'FindingsReported').find((r) => r.data.critic_id === id)?.data.coverage;
      expect(considered).toBeGreaterThan(3);
      expect(coverageOf(TS_CRITIC)).toMatchObject({
        considered,
        analysed: considered,
        unsupported: 0,
        skipped_total: 0,
      });
      expect(coverageOf(PY_CRITIC)).toMatchObject({
        considered,
        analysed: considered,
        skipped_total: 0,
        max_file_bytes_configured: false,
      });
      const [letter] = only(events, 'LetterWritten');
      const findings = letter?.data.letter.findings ?? [];
      expect(findings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            raised_by: TS_CRITIC,
            file: 'src/debug.ts',
            line_range: { start: 2, end: 2 },
            finding_type: 'console/log',
          }),
          expect.objectContaining({
            raised_by: PY_CRITIC,
            file: 'src/debug.ts',
            line_range: { start: 3, end: 3 },
            finding_type: 'todo/without-ticket',
          }),
        ]),
      );
      expect(letter?.data.letter.complete).toBe(true);
    }
    const answeredBy = runs.flatMap((events) =>
      only(events, 'FindingsReported')
        .filter((r) => r.data.critic_id === TS_CRITIC)
        .map((r) => r.producer),
    );
    expect(new Set(answeredBy)).toEqual(new Set([`critic:${TS_CRITIC}@ts-1`, `critic:${TS_CRITIC}@ts-2`]));
    // Reviewed once per round in all: no replica repeated a round the other answered.
    const reviewed = critics
      .filter((c) => c.label.startsWith('ts-'))
      .flatMap((c) => c.lines.filter((l) => /e2e-sdk-[a-d] round 1: reported/.test(l)));
    expect(reviewed).toHaveLength(slugs.length);
  }, 60_000);

  it('never dispatches to a critic whose heartbeat is gone: the missing core critic is a CriticFailed of the round', async () => {
    for (const c of critics.filter((p) => p.label.startsWith('ts-'))) c.child.kill('SIGKILL');
    await eventually(
      async () => (await registry()).critics.find((c) => c.critic_id === TS_CRITIC)?.health !== 'alive',
      { timeoutMs: 10_000, description: 'the killed critic to go stale' },
    );

    const events = await review('e2e-sdk-dead');

    const [round] = only(events, 'RoundStarted');
    expect(round?.data.critics.map((c) => c.critic_id)).not.toContain(TS_CRITIC);
    expect(round?.data.critics.map((c) => c.critic_id)).toEqual(expect.arrayContaining([RUNNER_CRITIC, PY_CRITIC]));
    expect(only(events, 'CriticFailed')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ critic_id: TS_CRITIC, core: true, reason: 'unavailable' }) as unknown,
      }),
    ]);
    expect(only(events, 'FindingsReported').map((r) => r.data.critic_id)).not.toContain(TS_CRITIC);
    const [letter] = only(events, 'LetterWritten');
    expect(letter?.data.letter.complete).toBe(false);
    expect(letter?.data.letter.findings.some((f) => f.raised_by === PY_CRITIC)).toBe(true);
  }, 60_000);

  it('withdraws the Python critic from the registry at once when it is stopped', async () => {
    const python = critics.find((c) => c.label === 'py-1');
    python?.child.kill('SIGTERM');
    expect(python === undefined ? null : await exited(python.child)).toBe(0);

    const snapshot = await registry();

    expect(snapshot.critics.find((c) => c.critic_id === PY_CRITIC)).toBeUndefined();
  }, 20_000);
});
