// How the fleet scales: rounds per minute and CPU per round for 1, 5 and 20 plans at once, on one
// fleet and on two fleets sharing one home (every worker and decider twice; one journal and one
// gate, as a namespace has), over a
// private three-node JetStream cluster with three copies of every stream (RLOOP_STREAM_REPLICAS=3)
// and the journal on the shared PostgreSQL. (Two fleets with homes of their own need the plans'
// repositories by URL: see apps/cli/src/multihost for that deployment's end-to-end test.)
// Also what one round costs on the bus (messages and bytes stored per round, by stream) and in the
// journal (events and table bytes per round), and where the fleet's CPU goes, by service.
//
//   npm run bench:scale                    # BENCH_PLANS=1,5,20 BENCH_FLEETS=1,2 by default
//
// Figures only (this machine has 2 noisy cores; compare ratios, not absolutes): docs/scaling.md
// quotes them. Runs under jest for the fleet helpers of the end-to-end tests; it asserts only that
// every plan converged.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { subjectsFor } from '@rloop/contracts';
import { type PrivateNatsCluster, createTestDatabase, startPrivateNatsCluster } from '@rloop/testing';
import { type TestFleet, samplePlan, startTestFleet } from '../../apps/cli/src/e2e/fleet.test-helpers.js';

const PLANS = (process.env['BENCH_PLANS'] ?? '1,5,20').split(',').map(Number);
const FLEETS = (process.env['BENCH_FLEETS'] ?? '1,2').split(',').map(Number);
const TICKS_PER_SECOND = 100;

/** CPU seconds a process and its waited-for children (the implementer's test runs) have used. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17 of stat(5), 12-15 after the command name.
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function cpuByService(fleets: readonly TestFleet[]): Map<string, number> {
  const by = new Map<string, number>();
  for (const member of fleets.flatMap((f) => f.fleet.members))
    by.set(member.service, (by.get(member.service) ?? 0) + cpuSeconds(member.child.pid));
  return by;
}

interface StreamUse {
  readonly messages: number;
  readonly bytes: number;
}

async function streamUse(fleet: TestFleet): Promise<Record<string, StreamUse>> {
  const jsm = await jetstreamManager(fleet.bus.connection);
  const subjects = subjectsFor(fleet.namespace);
  const names = [
    ...Object.values(subjects.streams),
    ...[subjects.deliveriesBucket, subjects.criticsBucket, subjects.journalBucket].map((b) => `KV_${b}`),
  ];
  const use: Record<string, StreamUse> = {};
  for (const name of names) {
    const info = await jsm.streams.info(name).catch(() => null);
    if (info !== null)
      use[name.replace(`${fleet.namespace.toUpperCase()}_`, '')] = {
        messages: info.state.messages,
        bytes: info.state.bytes,
      };
  }
  return use;
}

async function journalBytes(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')",
    );
    return Number(rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}

interface Row {
  readonly fleets: number;
  readonly plans: number;
  readonly rounds: number;
  readonly seconds: number;
  readonly roundsPerMinute: number;
  readonly cpuPerRound: number;
  readonly cpuShare: Record<string, number>;
}

const rows: Row[] = [];
const costs: Record<string, unknown>[] = [];
let cluster: PrivateNatsCluster | undefined;

afterAll(async () => {
  await cluster?.stop();
  process.stdout.write(
    `\n| fleets | plans | rounds | wall s | rounds/min | CPU s/round | CPU by service |\n|---|---|---|---|---|---|---|\n`,
  );
  for (const r of rows) {
    const share = Object.entries(r.cpuShare)
      .sort((a, b) => b[1] - a[1])
      .map(([s, v]) => `${s} ${Math.round(v * 100)}%`)
      .join(', ');
    process.stdout.write(
      `| ${r.fleets} | ${r.plans} | ${r.rounds} | ${r.seconds.toFixed(0)} | ${r.roundsPerMinute.toFixed(1)} | ${r.cpuPerRound.toFixed(2)} | ${share} |\n`,
    );
  }
  process.stdout.write(
    `\nper round (bus: stored messages/bytes by stream; journal: events and table bytes):\n${costs.map((c) => JSON.stringify(c)).join('\n')}\n`,
  );
}, 120_000);

describe('bench:scale', () => {
  for (const fleets of FLEETS) {
    it(`${fleets} fleet(s): ${PLANS.join(', ')} plans at once`, async () => {
      cluster ??= await startPrivateNatsCluster({ nodes: 3 });
      const database = await createTestDatabase('rloop_bench_scale');
      // Two fleets: every service twice, sharing one home (as two fleets on one host would) — but the
      // journal and the gate, of which a namespace has one (the journal binds it; the gate is light).
      const replicas = { panel: fleets, 'critic-runner': fleets, synthesizer: fleets, implementer: fleets };
      const first = await startTestFleet({
        natsUrl: cluster.url,
        database,
        env: { RLOOP_STREAM_REPLICAS: '3' },
        replicas,
      });
      const all = [first];
      try {
        for (const plans of PLANS) {
          const slugs = Array.from({ length: plans }, (_, i) => `scale-f${fleets}-p${plans}-${i}`);
          const busBefore = await streamUse(first);
          const journalBefore = await journalBytes(database.url);
          const eventsBefore = (
            await Promise.all(slugs.map(async (slug) => (await first.bus.journal.events(slug)).entries.length))
          ).reduce((a, b) => a + b, 0);
          const cpuBefore = cpuByService(all);
          const started = Date.now();
          const runs = await Promise.all(
            slugs.map(async (slug) => {
              const reply = await first.submit(samplePlan(slug, await first.sampleRepo('fixable', slug)));
              if (reply.status !== 'accepted') throw new Error(`${slug}: ${JSON.stringify(reply)}`);
              return first.outcome(slug, reply.event_id, 1_800_000);
            }),
          );
          const seconds = (Date.now() - started) / 1000;
          expect(runs.map((state) => state.status)).toEqual(slugs.map(() => 'converged'));
          const cpuAfter = cpuByService(all);
          const cpu = new Map([...cpuAfter].map(([service, s]) => [service, s - (cpuBefore.get(service) ?? 0)]));
          const total = [...cpu.values()].reduce((a, b) => a + b, 0);
          const events = (
            await Promise.all(
              slugs.map(async (slug) => (await first.bus.journal.events(slug)).entries.map((e) => e.event)),
            )
          ).flat();
          const rounds = events.filter((e) => e.type === 'RoundStarted').length;
          rows.push({
            fleets,
            plans,
            rounds,
            seconds,
            roundsPerMinute: rounds / (seconds / 60),
            cpuPerRound: total / rounds,
            cpuShare: Object.fromEntries([...cpu].map(([s, v]) => [s, v / total])),
          });
          const busAfter = await streamUse(first);
          const perRound = Object.fromEntries(
            Object.entries(busAfter).map(([name, use]) => [
              name,
              {
                messages: +((use.messages - (busBefore[name]?.messages ?? 0)) / rounds).toFixed(1),
                bytes: Math.round((use.bytes - (busBefore[name]?.bytes ?? 0)) / rounds),
              },
            ]),
          );
          costs.push({
            fleets,
            plans,
            rounds,
            bus: perRound,
            journal: {
              events: +((events.length - eventsBefore) / rounds).toFixed(1),
              table_bytes: Math.round(((await journalBytes(database.url)) - journalBefore) / rounds),
            },
          });
          process.stdout.write(`${JSON.stringify({ ...rows.at(-1), ...costs.at(-1) })}\n`);
        }
      } finally {
        await first.stop();
      }
    }, 7_200_000);
  }
});
