import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { type EventOf, currentVersion } from '@rloop/contracts';
import { type TestNats, connectTestNats, eventually } from '@rloop/testing';
import type { FleetMember, FleetService } from '../fleet/supervisor.js';
import { type TestFleet, loopStory, samplePlan, scriptedRepo, startTestFleet } from '../e2e/fleet.test-helpers.js';
import { type StoredRow, checkHistory } from './history.test-helpers.js';

// Chaos: three replicas of the panel, the synthesizer and the critic-runner and two of the
// implementer, on the real NATS and PostgreSQL; 20 plans at once; a random replica killed with -9
// every few seconds and started again. Then a checker reads the whole journal: every plan ended
// as the same plan does undisturbed, no step was decided twice, every decision was appended on
// the state it was decided on, and nothing was dead-lettered but what the test injected.
// `npm run test:chaos` (not part of `npm test`; .ci/run runs it after the browser tests).

const PLANS = 20;
const UNFIXABLE_EVERY = 4;
/**
 * The chaos runs at the pace of the machine: kills come every 2-4 s, and the plans have
 * CHAOS_BUDGET_MS to end, on a machine where the two reference plans end (undisturbed) within
 * QUIET_REFERENCE_MS; on a slower one both stretch by how much longer the references took (at
 * most MAX_PACE times), so that a replica has as much of its own work done between two kills.
 */
const QUIET_REFERENCE_MS = 10_000;
const CHAOS_BUDGET_MS = 4 * 60_000;
const MAX_PACE = 5;
const REPLICAS: Partial<Record<FleetService, number>> = {
  panel: 3,
  synthesizer: 3,
  'critic-runner': 3,
  implementer: 2,
};
const KEY = 'AKIAZ7Q4N2LM8RT3KXWP';
const CONFIG_JS = `export const region = 'eu-west-1';\nexport const accessKeyId = '${KEY}';\n`;
/** The fix of a fixable plan: the key comes from the environment (after a pause, so that kills land during fixes too). */
const FIX =
  "import { readFileSync, writeFileSync } from 'node:fs';\nawait new Promise((resolve) => setTimeout(resolve, 2000));\nwriteFileSync('src/config.js', readFileSync('src/config.js', 'utf8').replace(/'AKIA[0-9A-Z]{16}'/, 'process.env.AWS_ACCESS_KEY_ID'));\n";
/** The "fix" of an unfixable plan: it changes nothing, after the same pause. */
const NO_FIX = 'await new Promise((resolve) => setTimeout(resolve, 2000));\n';

let t: TestFleet;
let nats: TestNats;
const startedAt = Date.now();

beforeAll(async () => {
  t = await startTestFleet({ replicas: REPLICAS, env: { RLOOP_ACK_WAIT_MS: '3000' } });
  nats = await connectTestNats(t.namespace);
  await mkdir(join(t.home, 'scripts'), { recursive: true });
  await writeFile(join(t.home, 'scripts', 'fix.mjs'), FIX);
  await writeFile(join(t.home, 'scripts', 'no-fix.mjs'), NO_FIX);
}, 180_000);

afterAll(async () => {
  await nats?.connection.drain();
  await t?.stop();
}, 120_000);

type Kind = 'fixable' | 'unfixable';

async function submit(slug: string, kind: Kind): Promise<string> {
  const repo = await scriptedRepo(join(t.home, 'repos', slug), { 'src/config.js': CONFIG_JS });
  const command = `node ${join(t.home, 'scripts', kind === 'fixable' ? 'fix.mjs' : 'no-fix.mjs')}`;
  const reply = await t.submit(
    samplePlan(slug, repo, { files: ['src/**/*.js'], implementer: { strategy: 'command', command } }),
  );
  if (reply.status !== 'accepted') throw new Error(`${slug}: ${JSON.stringify(reply)}`);
  return reply.event_id;
}

async function ended(plans: readonly string[]): Promise<Set<string>> {
  const statuses = await t.bus.journal.status();
  return new Set(
    statuses
      .filter((s) => plans.includes(s.plan) && (s.outcome_event_id !== null || s.status === 'escalated'))
      .map((s) => s.plan),
  );
}

async function journalRows(): Promise<{ rows: StoredRow[]; refused: Record<string, number> }> {
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  try {
    const rows = (
      await client.query<StoredRow>(
        'SELECT stream_id, stream_position::int AS stream_position, event_id, type, schema_version, data, metadata FROM events ORDER BY global_position',
      )
    ).rows;
    const refused = Object.fromEntries(
      (
        await client.query<{ reason: string; n: number }>(
          'SELECT reason, count(*)::int AS n FROM refused_decisions GROUP BY reason',
        )
      ).rows.map((r) => [r.reason, r.n]),
    );
    return { rows, refused };
  } finally {
    await client.end();
  }
}

describe('chaos: replicas killed with -9 while 20 plans run', () => {
  it(
    'every plan ends as it does undisturbed; the journal holds no step decided twice, no decision on a state it was not made on, and no dead letter but the injected ones',
    async () => {
      // How each kind of plan ends undisturbed, and how long that takes on this machine.
      const referenceStart = Date.now();
      await Promise.all([
        submit('chaos-reference-fixable', 'fixable'),
        submit('chaos-reference-unfixable', 'unfixable'),
      ]);
      await eventually(
        async () =>
          (await ended(['chaos-reference-fixable', 'chaos-reference-unfixable'])).size === 2 ? true : undefined,
        { timeoutMs: 120_000 * MAX_PACE, intervalMs: 250, description: 'the reference plans' },
      );
      const referenceMs = Date.now() - referenceStart;
      const pace = Math.min(MAX_PACE, Math.max(1, referenceMs / QUIET_REFERENCE_MS));
      const budgetMs = CHAOS_BUDGET_MS * pace;
      const storyOf = async (plan: string): Promise<string[]> =>
        loopStory((await t.bus.journal.events(plan)).entries.map((e) => e.event));
      const expected: Record<Kind, { status: string; story: string[] }> = {
        fixable: {
          status: (await t.bus.journal.loopState('chaos-reference-fixable')).state?.status ?? '',
          story: await storyOf('chaos-reference-fixable'),
        },
        unfixable: {
          status: (await t.bus.journal.loopState('chaos-reference-unfixable')).state?.status ?? '',
          story: await storyOf('chaos-reference-unfixable'),
        },
      };
      expect([expected.fixable.status, expected.unfixable.status]).toEqual(['converged', 'escalated']);

      // What the test injects, and so the only dead letters it expects: a message that is not JSON, and a decision of a run no journal saw.
      const garbageSubject = nats.subjects.event('PlanSubmitted', 'chaos-garbage');
      await nats.publishRaw(garbageSubject, 'this is not an event');
      const forged: EventOf<'RoundStarted'> = {
        event_id: 'd_chaos_forged_round_01',
        type: 'RoundStarted',
        schema_version: currentVersion('RoundStarted'),
        plan: 'chaos-forged',
        correlation_id: '01JRUNCHAOSFORGED000000001',
        causation_id: null,
        occurred_at: new Date().toISOString(),
        producer: 'chaos-test',
        decision: { expected_version: 3, id: 'd_chaos_forged_round_01' },
        data: {
          round: 1,
          phase: 'critical',
          phase_round: 1,
          k: 3,
          mode: 'loop',
          commit: 'a'.repeat(40),
          base_commit: 'a'.repeat(40),
          repo_path: '/tmp',
          files: [],
          critics: [],
          not_configured: [],
          deadline_at: new Date().toISOString(),
        },
      };
      await t.bus.client.publishEvent(forged);

      const chaosStart = Date.now();
      const kinds = new Map<string, Kind>(
        Array.from(
          { length: PLANS },
          (_, i) =>
            [
              `chaos-${String(i + 1).padStart(2, '0')}`,
              i % UNFIXABLE_EVERY === UNFIXABLE_EVERY - 1 ? 'unfixable' : 'fixable',
            ] as const,
        ),
      );
      const plans = [...kinds.keys()];
      const runs = new Map(
        await Promise.all(plans.map(async (plan) => [plan, await submit(plan, kinds.get(plan) ?? 'fixable')] as const)),
      );

      // Kill a random replica every 2-4 s (times the pace) until every plan has ended; each is started again at once
      // (in the background: the next kill does not wait for it). A replica still starting is not killed, nor
      // the last one of its service that is up: this is about replicas side by side; a service with none up
      // is away, an outage (outages.e2e), and on a slow machine restarts can overlap.
      const victims: FleetMember[] = t.fleet.members.filter((m) => (REPLICAS[m.service] ?? 1) > 1);
      const starting = new Set<string>();
      const restarts: Promise<void>[] = [];
      const killed: string[] = [];
      for (;;) {
        if ((await ended(plans)).size === plans.length) break;
        if (Date.now() - chaosStart > budgetMs) {
          await Promise.allSettled(restarts);
          const letters = (await nats.deadLetters()).map((d) => `${d.consumer} ${d.subject} ${d.code}: ${d.message}`);
          throw new Error(
            `not every plan ended within ${Math.round(budgetMs / 1000)} s (${killed.length} kills, pace ${pace.toFixed(2)}); dead letters: ${JSON.stringify(letters)}; status: ${JSON.stringify(await t.bus.journal.status())}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, (2_000 + Math.floor(Math.random() * 2_000)) * pace));
        const up = victims.filter((m) => !starting.has(m.label));
        const alive = up.filter((m) => up.some((other) => other.service === m.service && other.label !== m.label));
        const victim = alive[Math.floor(Math.random() * alive.length)];
        if (victim === undefined) continue;
        await t.fleet.kill(victim.service, victim.index);
        killed.push(victim.label);
        starting.add(victim.label);
        restarts.push(t.fleet.restart(victim.service, victim.index).finally(() => starting.delete(victim.label)));
      }
      await Promise.all(restarts);
      const chaosMs = Date.now() - chaosStart;
      const kills = killed.length;

      // Every plan ended as its kind does undisturbed.
      for (const plan of plans) {
        const kind = kinds.get(plan) ?? 'fixable';
        const { state } = await t.bus.journal.loopState(plan);
        expect({ plan, run: state?.run_id, status: state?.status, story: await storyOf(plan) }).toEqual({
          plan,
          run: runs.get(plan),
          status: expected[kind].status,
          story: expected[kind].story,
        });
      }

      // The whole journal, as stored: no step decided twice, every decision on the state it was made on.
      const { rows, refused } = await journalRows();
      const history = checkHistory(rows);
      expect(history.problems).toEqual([]);
      expect(history.runs.filter((r) => plans.includes(r.plan))).toHaveLength(PLANS);

      // Nothing dead-lettered but what was injected (one dead letter per consumer that received it).
      const letters = await nats.deadLetters();
      const unexpected = letters.filter((d) => !(d.subject === garbageSubject || d.payload.includes(forged.event_id)));
      expect(unexpected.map((d) => `${d.consumer} ${d.subject} ${d.code}: ${d.message}`)).toEqual([]);
      expect(letters.some((d) => d.subject === garbageSubject && d.reason === 'invalid_payload')).toBe(true);
      expect(letters.some((d) => d.payload.includes(forged.event_id) && d.code === 'JOURNAL.ORPHAN_EVENT')).toBe(true);

      const figures = {
        plans: PLANS,
        kills,
        reference_seconds: Math.round(referenceMs / 1000),
        pace: Number(pace.toFixed(2)),
        killed_by_service: Object.fromEntries(
          [...new Set(killed.map((k) => k.split('#')[0] ?? k))]
            .sort()
            .map((service): [string, number] => [service, killed.filter((k) => k.startsWith(`${service}#`)).length]),
        ),
        decisions_refused: refused,
        // Which implementer did the test runs: with two replicas, both should take a share.
        test_runs_by_producer: Object.fromEntries(
          [
            ...rows
              .filter((r) => r.type === 'BaselineRecorded' || r.type === 'FixApplied')
              .reduce((counts, r) => {
                const producer = String(r.metadata['producer']);
                return counts.set(producer, (counts.get(producer) ?? 0) + 1);
              }, new Map<string, number>()),
          ].sort(),
        ),
        events: rows.length,
        chaos_seconds: Math.round(chaosMs / 1000),
        wall_seconds: Math.round((Date.now() - startedAt) / 1000),
      };
      process.stdout.write(`chaos figures: ${JSON.stringify(figures)}\n`);
      expect(kills).toBeGreaterThanOrEqual(5);
    },
    (120_000 + CHAOS_BUDGET_MS) * MAX_PACE + 60_000,
  );
});
