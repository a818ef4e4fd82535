// End-to-end journal throughput: events published on the bus → committed in PostgreSQL by the
// journal service, against raw single-row INSERTs with pg into the same database, in the same run.
//
//   npm run build && npx tsc -b bench/journal-throughput/tsconfig.json && node bench/.out/journal-throughput/main.js [events] [plans]
//
// Two measurements against the baseline: live (publishing while the journal appends — on two
// cores the publisher competes with it) and backlog (events already on the bus, the journal
// draining them from its start); with the p50/p99 latency from publish to commit.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { jetstreamManager } from '@nats-io/jetstream';
import { JetStreamClient } from '@rloop/bus';
import { type EventOf, currentVersion } from '@rloop/contracts';
import { TEST_NATS_URL, createTestDatabase, deleteNamespaceStreams, uniqueNamespace } from '@rloop/testing';

const EVENTS = Number(process.argv[2] ?? 20_000);
const PLANS = Number(process.argv[3] ?? 50);
const RAW_CLIENTS = 8;
const IN_FLIGHT = 512;

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

/** Single-row INSERTs, autocommit, from RAW_CLIENTS concurrent connections: the baseline. */
async function rawInserts(url: string, count: number): Promise<number> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query('CREATE TABLE bench_raw (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)');
  await setup.end();
  const clients = await Promise.all(
    Array.from({ length: RAW_CLIENTS }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < count) {
        const i = next++;
        await client.query('INSERT INTO bench_raw (stream, data) VALUES ($1, $2)', [
          `plan-${i % PLANS}`,
          JSON.stringify({ i, critic_id: 'bench/noop', reason: 'crashed' }),
        ]);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.end()));
  return count / seconds;
}

function event(i: number, runId: string): EventOf<'CriticFailed'> {
  const plan = `plan-${i % PLANS}`;
  return {
    event_id: `bench${String(i).padStart(12, '0')}${runId.slice(0, 8)}`,
    type: 'CriticFailed',
    schema_version: currentVersion('CriticFailed'),
    plan,
    correlation_id: runId,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    producer: 'bench',
    data: {
      round: 1 + Math.floor(i / PLANS),
      critic_id: 'bench/noop',
      core: false,
      reason: 'crashed',
      message: `event ${i}`,
    },
  };
}

function startJournal(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const entry = fileURLToPath(new URL('../../../services/journal/dist/main.js', import.meta.url));
  const profile = process.env['RLOOP_BENCH_PROFILE'];
  const child = spawn(
    process.execPath,
    [...(profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`]), entry],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`journal exited with ${code}`)));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (line.includes('journal: ready')) resolve(child);
        if (line.includes('ERROR')) process.stderr.write(`journal: ${line}\n`);
      });
    }
  });
}

async function stopJournal(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function publishAll(client: JetStreamClient, runId: string): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < EVENTS) {
        const i = next++;
        await client.publish(event(i, runId));
      }
    }),
  );
}

/** The newest global position: each phase counts what was committed after it. */
async function headPosition(db: pg.Client): Promise<string> {
  const { rows } = await db.query<{ head: string | null }>('SELECT max(global_position) AS head FROM events');
  return rows[0]?.head ?? '0';
}

// Polls a range count on the primary key, not a JSON filter: a scan every few milliseconds would
// take CPU from the journal it measures.
async function waitCommitted(db: pg.Client, after: string): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE global_position > $1', [
      after,
    ]);
    if (Number(rows[0]?.n) >= EVENTS) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

function runIdFor(tag: string): string {
  return `01BENCH${tag}${Date.now().toString(36).toUpperCase()}`.padEnd(26, '0').slice(0, 26);
}

async function main(): Promise<void> {
  const database = await createTestDatabase('rloop_bench');
  const namespace = uniqueNamespace('b');
  const env = {
    ...process.env,
    NATS_URL: TEST_NATS_URL,
    RLOOP_NAMESPACE: namespace,
    DATABASE_URL: database.url,
    RLOOP_LOG_FORMAT: 'plain' as const,
  };
  let journal = await startJournal(env);
  const client = new JetStreamClient({ service: 'bench', servers: TEST_NATS_URL, namespace }, quiet);
  const db = new pg.Client({ connectionString: database.url });
  try {
    process.stdout.write(`journal throughput: ${EVENTS} events over ${PLANS} plans, PostgreSQL ${database.name}\n`);
    const rawRate = await rawInserts(database.url, EVENTS);
    process.stdout.write(
      `  baseline, raw single-row INSERTs with pg (${RAW_CLIENTS} clients):   ${rawRate.toFixed(0)} rows/s\n`,
    );
    await client.connect();
    await db.connect();

    // 1. Live: the journal consumes while the events are being published.
    const live = runIdFor('LIVE');
    const liveFrom = await headPosition(db);
    const started = performance.now();
    await publishAll(client, live);
    const published = performance.now();
    await waitCommitted(db, liveFrom);
    const liveRate = EVENTS / ((performance.now() - started) / 1000);
    const { rows } = await db.query<{ ms: string }>(
      "SELECT EXTRACT(EPOCH FROM (recorded_at - (metadata->>'occurred_at')::timestamptz)) * 1000 AS ms FROM events WHERE metadata->>'correlation_id' = $1 ORDER BY 1",
      [live],
    );
    const latencies = rows.map((r) => Number(r.ms));
    process.stdout.write(
      `  live, publishing while the journal appends (bus → committed): ${liveRate.toFixed(0)} events/s — ${(liveRate / rawRate).toFixed(2)}× raw (publishing alone took ${((published - started) / 1000).toFixed(2)} s)\n`,
    );
    process.stdout.write(
      `    append latency publish → commit: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms\n`,
    );

    // 2. Backlog: the events wait on the bus while the journal is down; measured from its restart.
    await stopJournal(journal);
    const backlog = runIdFor('BACK');
    const backlogFrom = await headPosition(db);
    await publishAll(client, backlog);
    journal = await startJournal(env);
    const restarted = performance.now();
    await waitCommitted(db, backlogFrom);
    const drainRate = EVENTS / ((performance.now() - restarted) / 1000);
    process.stdout.write(
      `  backlog, the journal draining the bus (bus → committed):   ${drainRate.toFixed(0)} events/s — ${(drainRate / rawRate).toFixed(2)}× raw (target ≥ 1.0)\n`,
    );
  } finally {
    await stopJournal(journal);
    await db.end();
    await client.close();
    const jsmClient = new JetStreamClient({ service: 'bench-cleanup', servers: TEST_NATS_URL, namespace }, quiet);
    await deleteNamespaceStreams(await jetstreamManager(await jsmClient.connect()), namespace);
    await jsmClient.close();
    await database.drop();
  }
}

await main();
