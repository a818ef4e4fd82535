// End-to-end journal throughput: events published on the bus → committed in PostgreSQL by the
// journal service, against raw single-row INSERTs with pg into the same database, in the same run.
//
//   npm run build && npx tsc -b bench/journal-throughput/tsconfig.json && node bench/.out/journal-throughput/main.js [events] [plans]
//
// Prints both rates, their ratio (target ≥ 1.0) and the p50/p99 latency from publish to commit.
import { spawn } from 'node:child_process';
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

const quiet = { log: () => undefined, warn: () => undefined, error: (m: unknown) => process.stderr.write(`${String(m)}\n`), debug: () => undefined, verbose: () => undefined };

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
        await client.query('INSERT INTO bench_raw (stream, data) VALUES ($1, $2)', [`plan-${i % PLANS}`, JSON.stringify({ i, critic_id: 'bench/noop', reason: 'crashed' })]);
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
    data: { round: 1 + Math.floor(i / PLANS), critic_id: 'bench/noop', core: false, reason: 'crashed', message: `event ${i}` },
  };
}

async function main(): Promise<void> {
  const database = await createTestDatabase('rloop_bench');
  const namespace = uniqueNamespace('b');
  const journalEntry = fileURLToPath(new URL('../../../services/journal/dist/main.js', import.meta.url));
  const journal = spawn(process.execPath, [journalEntry], {
    env: { ...process.env, NATS_URL: TEST_NATS_URL, RLOOP_NAMESPACE: namespace, DATABASE_URL: database.url, RLOOP_LOG_FORMAT: 'plain' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const client = new JetStreamClient({ service: 'bench', servers: TEST_NATS_URL, namespace }, quiet);
  try {
    await new Promise<void>((resolve, reject) => {
      journal.once('exit', (code) => reject(new Error(`journal exited with ${code}`)));
      for (const stream of [journal.stdout, journal.stderr]) {
        createInterface({ input: stream }).on('line', (line) => {
          if (line.includes('journal: ready')) resolve();
          if (line.includes('ERROR')) process.stderr.write(`journal: ${line}\n`);
        });
      }
    });
    process.stdout.write(`journal throughput: ${EVENTS} events over ${PLANS} plans, PostgreSQL ${database.name}\n`);

    const rawRate = await rawInserts(database.url, EVENTS);
    process.stdout.write(`  raw single-row INSERTs (${RAW_CLIENTS} clients): ${rawRate.toFixed(0)} rows/s\n`);

    await client.connect();
    const runId = `01BENCH${Date.now().toString(36).toUpperCase().padStart(19, '0')}`.slice(0, 26);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < EVENTS) {
          const i = next++;
          await client.publish(event(i, runId));
        }
      }),
    );
    const published = performance.now();
    for (;;) {
      const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE type = 'CriticFailed'");
      if (Number(rows[0]?.n) >= EVENTS) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const committed = performance.now();
    const journalRate = EVENTS / ((committed - started) / 1000);
    const { rows } = await db.query<{ ms: string }>(
      "SELECT EXTRACT(EPOCH FROM (recorded_at - (metadata->>'occurred_at')::timestamptz)) * 1000 AS ms FROM events WHERE type = 'CriticFailed' ORDER BY 1",
    );
    await db.end();
    const latencies = rows.map((r) => Number(r.ms));
    process.stdout.write(`  journal (bus → committed):        ${journalRate.toFixed(0)} events/s (publishing took ${((published - started) / 1000).toFixed(2)} s)\n`);
    process.stdout.write(`  append latency publish → commit:  p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms\n`);
    process.stdout.write(`  ratio journal / raw: ${(journalRate / rawRate).toFixed(2)}× (target ≥ 1.0)\n`);
  } finally {
    journal.kill('SIGTERM');
    await new Promise((r) => journal.once('exit', r));
    await client.close();
    const jsmClient = new JetStreamClient({ service: 'bench-cleanup', servers: TEST_NATS_URL, namespace }, quiet);
    await deleteNamespaceStreams(await jetstreamManager(await jsmClient.connect()), namespace);
    await jsmClient.close();
    await database.drop();
  }
}

await main();
