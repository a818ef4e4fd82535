// Orchestration overhead of a round: the real journal, gate, panel and synthesizer (child
// processes on the real NATS and PostgreSQL), with a critic service and an implementer that answer
// at once — so a round's duration is everything except the critics' and the implementer's own work.
//
//   npm run build && npx tsc -b bench/round-overhead/tsconfig.json && node bench/.out/round-overhead/main.js [rounds]
//
// Prints the median and p99 round time over the rounds, the same as a fraction of a round whose
// critics take 1 s, and — as the baseline measured in the same run — the round trip of one event
// through JetStream (publish → durable consumer → publish back), against which the ratio is given.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { JetStreamClient } from '@rloop/bus';
import { type EventOf, RloopEvent, SubmitReply, currentVersion, subjectsFor } from '@rloop/contracts';
import { defineCritic, draftFinding, runCriticService } from '@rloop/critic-sdk';
import { deterministicId } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import { TEST_NATS_URL, createTestDatabase, deleteNamespaceStreams, eventually, uniqueNamespace } from '@rloop/testing';

const ROUNDS = Number(process.argv[2] ?? 220);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVICES = ['journal', 'gate', 'panel', 'synthesizer'] as const;
const quiet = {
  log: () => undefined,
  warn: () => undefined,
  error: (m: unknown) => process.stderr.write(`${String(m)}\n`),
  debug: () => undefined,
  verbose: () => undefined,
};

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A config directory with one instant external critic as the whole core panel, caps and heuristics out of the way. */
async function benchConfig(home: string): Promise<string> {
  const dir = join(home, 'config');
  await cp(join(ROOT, 'config'), dir, { recursive: true });
  const catalogue = parseYaml(await readFile(join(dir, 'critics.yaml'), 'utf8')) as Record<string, unknown>;
  await writeFile(
    join(dir, 'critics.yaml'),
    toYaml({
      ...catalogue,
      soft_caps: { critical: 100_000, medium: 100_000, low: 100_000, final_sweep: 100_000 },
      round_grace_ms: 5_000,
      critics: { 'bench/instant': { evidence: 'pattern', host: 'external', timeout_ms: 60_000 } },
      core: ['bench/instant'],
      dynamic: [],
    }),
  );
  // The bench's plan runs `true` on a repository under its home: the gate admits exactly that.
  const trust = parseYaml(await readFile(join(dir, 'trust.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;
  await writeFile(
    join(dir, 'trust.yaml'),
    toYaml({
      ...trust,
      commands: { ...trust['commands'], allow: ['true'] },
      repositories: { ...trust['repositories'], local_roots: ['repo'] },
    }),
  );
  const loop = parseYaml(await readFile(join(dir, 'loop.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;
  const never = 1_000_000;
  await writeFile(
    join(dir, 'loop.yaml'),
    toYaml({
      ...loop,
      persistent_issue: { ...loop['persistent_issue'], rounds: never },
      oscillation: { ...loop['oscillation'], reappearances: never },
      implementer_wall: { ...loop['implementer_wall'], attempts: never },
      flat_trend: { ...loop['flat_trend'], rounds: never },
      stall: { ...loop['stall'], rounds: never },
      best_round_retention: { ...loop['best_round_retention'], enabled: false },
    }),
  );
  return dir;
}

function startService(name: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'services', name, 'dist', 'main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (line.includes(`${name}: ready`)) resolve(child);
        if (/\b(ERROR|WARN)\b/.test(line)) process.stderr.write(`${name}: ${line}\n`);
      });
    }
  });
}

/** The baseline: one event to a durable consumer and one back, as tight as JetStream allows. */
async function jetstreamRoundTrip(client: JetStreamClient, namespace: string, samples: number): Promise<number[]> {
  const connection = await client.connect();
  const subjects = subjectsFor(namespace);
  const jsm = await jetstreamManager(connection);
  const js = jetstream(connection);
  await jsm.consumers.add(subjects.streams.events, {
    durable_name: 'bench-echo',
    filter_subject: subjects.eventFilter('LoopStopped'),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
  });
  const echo = await (await js.consumers.get(subjects.streams.events, 'bench-echo')).consume();
  const waiting = new Map<string, () => void>();
  void (async () => {
    for await (const msg of echo) {
      const event = msg.json<{ event_id: string }>();
      msg.ack();
      waiting.get(event.event_id)?.();
    }
  })();
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const id = `echo${String(i).padStart(10, '0')}`;
    const started = performance.now();
    const arrived = new Promise<void>((resolve) => waiting.set(id, resolve));
    await client.publish({
      event_id: id,
      type: 'LoopStopped',
      schema_version: currentVersion('LoopStopped'),
      plan: 'bench-echo',
      correlation_id: id,
      causation_id: null,
      occurred_at: new Date().toISOString(),
      producer: 'bench',
      data: { by: 'bench' },
    });
    await arrived;
    times.push(performance.now() - started);
  }
  await echo.close();
  return times;
}

async function main(): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'rloop-bench-'));
  const database = await createTestDatabase('rloop_bench');
  const namespace = uniqueNamespace('r');
  const repo = join(home, 'repo');
  await mkdir(join(repo, 'src'), { recursive: true });
  await writeFile(
    join(repo, 'src', 'a.ts'),
    Array.from({ length: 100 }, (_, i) => `export const v${i} = ${i};`).join('\n'),
  );
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  execFileSync('git', ['-C', repo, '-c', 'user.name=b', '-c', 'user.email=b@b', 'add', '.']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'bench']);
  const env = {
    ...process.env,
    NATS_URL: TEST_NATS_URL,
    RLOOP_NAMESPACE: namespace,
    DATABASE_URL: database.url,
    RLOOP_HOME: home,
    RLOOP_CONFIG_DIR: await benchConfig(home),
    RLOOP_LOG_FORMAT: 'plain' as const,
  };
  const children: ChildProcess[] = [];
  const client = new JetStreamClient({ service: 'bench', servers: TEST_NATS_URL, namespace }, quiet);
  let critic: { stop(): Promise<void> } | null = null;
  try {
    // The instant critic: a finding on a new line each round (so no heuristic sees a stuck issue), then none.
    let reviews = 0;
    critic = await runCriticService(
      defineCritic({
        id: 'bench/instant',
        evidence: 'pattern',
        description: 'answers at once',
        triggers: [],
        run: () => {
          reviews += 1;
          if (reviews > ROUNDS) return Promise.resolve([]);
          const line = 1 + ((reviews * 7) % 90);
          return Promise.resolve([
            draftFinding({
              severity: 'critical',
              category: 'correctness',
              finding_type: `bench/issue-${reviews}`,
              file: 'src/a.ts',
              line_range: { start: line, end: line },
              title: `issue ${reviews}`,
              current_behaviour: 'x',
              expected_behaviour: 'y',
              observable_test_conditions: ['z'],
              forbidden_in_test: [],
            }),
          ]);
        },
      }),
      {
        natsUrl: TEST_NATS_URL,
        namespace,
        workRoot: join(home, 'critic'),
        logger: quiet,
        handleSignals: false,
        heartbeatIntervalMs: 1_000,
        checkout: () => Promise.resolve(repo),
      },
    );
    for (const name of SERVICES) children.push(await startService(name, env));

    // The instant implementer: a baseline for every gated loop, a "commit" for every fix request.
    await client.connect();
    const connection = await client.connect();
    const js = jetstream(connection);
    const subjects = subjectsFor(namespace);
    const consumer = await js.consumers.get(subjects.streams.events, {
      filter_subjects: subjects.channelFilter('events'),
      deliver_policy: DeliverPolicy.New,
    });
    const implementer = await consumer.consume();
    void (async () => {
      for await (const msg of implementer) {
        const parsed = RloopEvent.safeParse(msg.json());
        if (!parsed.success) continue;
        const event = parsed.data;
        const meta = {
          plan: event.plan,
          correlation_id: event.correlation_id,
          causation_id: event.event_id,
          occurred_at: new Date().toISOString(),
          producer: 'bench-implementer',
        };
        if (event.type === 'LoopGated') {
          await client.publish({
            ...meta,
            event_id: deterministicId('bench-baseline', event.correlation_id),
            type: 'BaselineRecorded',
            schema_version: currentVersion('BaselineRecorded'),
            data: {
              commit: event.data.commit,
              branch: `rloop/${event.plan}`,
              tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
              exit_code: 0,
              failing: [],
              duration_ms: 0,
            },
          });
        } else if (event.type === 'FixRequested') {
          const fixed: EventOf<'FixApplied'> = {
            ...meta,
            event_id: deterministicId('bench-fix', event.correlation_id, event.data.round),
            type: 'FixApplied',
            schema_version: currentVersion('FixApplied'),
            data: {
              round: event.data.round,
              letter_id: event.data.letter.letter_id,
              strategy: 'bench',
              outcome: 'committed',
              fixes_applied: [
                {
                  file: 'src/a.ts',
                  fixed_findings: event.data.letter.findings.map((f) => f.id),
                  lines_changed: 1,
                  hunks: [],
                },
              ],
              tests_added: [],
              tests_result: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
              base_commit: event.data.base_commit,
              commit: sha(`round ${event.data.round}`),
              diff_stats: { files_changed: 1, insertions: 1, deletions: 1 },
              duration_ms: 0,
            },
          };
          await client.publish(fixed);
        }
      }
    })();

    const baseline = await jetstreamRoundTrip(client, namespace, 100);
    process.stdout.write(
      `round overhead: ${ROUNDS} rounds with an instant critic and implementer (journal, gate, panel, synthesizer as processes)\n`,
    );
    const started = performance.now();
    const reply = SubmitReply.parse(
      await client.request(
        'plans.submit',
        {
          slug: 'bench-rounds',
          title: 'Bench',
          description: '',
          effort_level: 'high',
          files: ['src/a.ts'],
          repo: { path: repo, ref: 'main' },
          test_cmd: 'true',
        },
        { timeoutMs: 30_000 },
      ),
    );
    if (reply.status !== 'accepted') throw new Error(`the bench plan was rejected: ${JSON.stringify(reply.errors)}`);
    const journal = new JournalClient(client);
    await eventually(
      async () => {
        const { state } = await journal.loopState('bench-rounds');
        if (state?.status === 'escalated') throw new Error('the bench loop escalated');
        return state?.status === 'converged' ? state : undefined;
      },
      { timeoutMs: 30 * 60_000, intervalMs: 250, description: 'the bench loop to converge' },
    );
    const wall = performance.now() - started;
    const { entries } = await journal.events('bench-rounds');
    const starts = entries.filter((e) => e.event.type === 'RoundStarted').map((e) => Date.parse(e.event.occurred_at));
    const rounds = starts.slice(1).map((t, i) => t - (starts[i] ?? t));
    const sorted = [...rounds].sort((a, b) => a - b);
    const med = percentile(sorted, 50);
    const echo = median(baseline);
    process.stdout.write(
      `  rounds measured: ${rounds.length} (wall ${(wall / 1000).toFixed(1)} s); median of the first 50: ${median(rounds.slice(0, 50)).toFixed(1)} ms, of the last 50: ${median(rounds.slice(-50)).toFixed(1)} ms\n`,
    );
    process.stdout.write(
      `  round overhead: median ${med.toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (target: median ≤ 50 ms)\n`,
    );
    process.stdout.write(
      `  as a fraction of a round whose critics take 1 s: ${((med / (med + 1000)) * 100).toFixed(1)} %\n`,
    );
    process.stdout.write(
      `  baseline, one JetStream round trip (publish → durable consumer): median ${echo.toFixed(2)} ms; a round costs ${(med / echo).toFixed(1)}× that\n`,
    );
    await implementer.close();
  } finally {
    await critic?.stop();
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (child) => new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null))),
      ),
    );
    await deleteNamespaceStreams(await jetstreamManager(await client.connect()), namespace);
    await client.close();
    await database.drop();
    await rm(home, { recursive: true, force: true });
  }
}

await main();
