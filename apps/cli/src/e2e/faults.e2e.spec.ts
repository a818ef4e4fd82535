import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { JournaledEvent } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import type { FleetService } from '../fleet/supervisor.js';
import { type TestFleet, loopStory, samplePlan, scriptedRepo, startTestFleet } from './fleet.test-helpers.js';

// kill -9 services in the middle of a round, start them again: the loop goes on from the journal
// and ends exactly as an undisturbed run of the same plan. Then the projections rebuilt from zero
// must equal the live ones.

let t: TestFleet;

const KEY = 'AKIAZ7Q4N2LM8RT3KXWP';
const CONFIG_JS = `export const region = 'eu-west-1';\nexport const accessKeyId = '${KEY}';\n`;

/**
 * Fixes the key. The first time it runs for a plan it signals that it started and then takes its
 * time (the window for the kill); if it lives through that window it leaves a second marker.
 */
const FIX_SCRIPT = `
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const marker = process.argv[2];
if (marker && !existsSync(marker)) {
  writeFileSync(marker, 'started');
  await new Promise((resolve) => setTimeout(resolve, 10000));
  writeFileSync(marker + '.survived', 'the first run was not stopped');
}
writeFileSync('src/config.js', readFileSync('src/config.js', 'utf8').replace(/'AKIA[0-9A-Z]{16}'/, 'process.env.AWS_ACCESS_KEY_ID'));
`;

beforeAll(async () => {
  // Messages held by a killed service come back after 3 s instead of the handlers' minutes.
  t = await startTestFleet({ env: { RLOOP_ACK_WAIT_MS: '3000' } });
  await mkdir(join(t.home, 'scripts'), { recursive: true });
  await writeFile(join(t.home, 'scripts', 'fix.mjs'), FIX_SCRIPT);
}, 120_000);

afterAll(async () => {
  await t?.stop();
}, 60_000);

async function run(slug: string, marker: string | null): Promise<string> {
  const repo = await scriptedRepo(join(t.home, 'repos', slug), { 'src/config.js': CONFIG_JS });
  const command = `node ${join(t.home, 'scripts', 'fix.mjs')}${marker === null ? '' : ` ${marker}`}`;
  const reply = await t.submit(
    samplePlan(slug, repo, { files: ['src/**/*.js'], implementer: { strategy: 'command', command } }),
  );
  if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
  return reply.event_id;
}

async function eventsOf(plan: string): Promise<JournaledEvent[]> {
  return (await t.bus.journal.events(plan)).entries.map((e) => e.event);
}

async function until(plan: string, description: string, check: (events: JournaledEvent[]) => boolean): Promise<void> {
  await eventually(async () => (check(await eventsOf(plan)) ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 50,
    description,
  });
}

const PROJECTIONS: Readonly<Record<string, string>> = {
  loop_states:
    'SELECT plan, run_id, status, phase, round, state, version, findings_open, spend_usd, updated_at FROM loop_states ORDER BY plan',
  letters: 'SELECT * FROM letters ORDER BY letter_id',
  escalations: 'SELECT * FROM escalations ORDER BY escalation_id',
  loop_memory: 'SELECT * FROM loop_memory ORDER BY plan',
  round_history: 'SELECT * FROM round_history ORDER BY run_id, round',
  runs: 'SELECT * FROM runs ORDER BY run_id',
  learnings: 'SELECT * FROM learnings ORDER BY critic_id, finding_type',
  loop_detections: 'SELECT * FROM loop_detections ORDER BY event_id',
};

async function snapshot(): Promise<Record<string, unknown[]>> {
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  try {
    const out: Record<string, unknown[]> = {};
    for (const [name, query] of Object.entries(PROJECTIONS)) out[name] = (await client.query(query)).rows;
    return out;
  } finally {
    await client.end();
  }
}

/** kill -9 the services at once, then start them again (each waits until it says it is ready). */
async function crash(services: readonly FleetService[]): Promise<void> {
  for (const service of services) await t.fleet.kill(service);
  await Promise.all(services.map((service) => t.fleet.restart(service)));
}

describe('faults: services killed mid-round', () => {
  it('implementer killed while its fix command runs, critic-runner, journal and panel killed during a review: the loop goes on from the journal and ends like an undisturbed run', async () => {
    const reference = await run('f-reference', null);
    const undisturbed = await t.outcome('f-reference', reference, 45_000);
    expect(undisturbed.status).toBe('converged');

    const marker = join(t.home, 'fix-started');
    const runId = await run('f-faulted', marker);
    // Round 1 is being fixed (the fix command has started): kill -9 the implementer, and the synthesizer.
    await until('f-faulted', 'the fix request of round 1', (events) => events.some((e) => e.type === 'FixRequested'));
    await eventually(() => (existsSync(marker) ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 20,
      description: 'the fix command to start',
    });
    await crash(['implementer', 'synthesizer']);
    const killedDuringFix = Date.now();
    // Round 2 is under review (its critics are running): kill -9 the critic-runner, the journal and the panel.
    await until('f-faulted', 'round 2 to start', (events) =>
      events.some((e) => e.type === 'RoundStarted' && e.data.round === 2),
    );
    await crash(['critic-runner', 'journal', 'panel']);

    const faulted = await t.outcome('f-faulted', runId, 90_000);
    expect(faulted.status).toBe('converged');
    expect(faulted.round).toBe(undisturbed.round);
    const events = await eventsOf('f-faulted');
    expect(loopStory(events)).toEqual(loopStory(await eventsOf('f-reference')));
    // Nothing was done twice: one fix per round, one start per round, each event once.
    expect(events.filter((e) => e.type === 'FixApplied')).toHaveLength(1);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    // The fix command the killed implementer left running was stopped by the next one, before it could touch the worktree again
    // (checked once it would have finished its wait had it lived).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedDuringFix + 11_000 - Date.now())));
    expect(existsSync(`${marker}.survived`)).toBe(false);
    expect(
      t.lines.filter((line) =>
        /implementer.*killed `.*fix\.mjs.*` \(pid \d+\), left running by implementer pid \d+, which is gone/.test(line),
      ).length,
    ).toBeGreaterThanOrEqual(1);
  }, 150_000);

  it('projections rebuilt from zero equal the live ones', async () => {
    const live = await snapshot();
    expect(live['loop_states']?.length).toBeGreaterThanOrEqual(2);
    expect(live['round_history']?.length).toBeGreaterThanOrEqual(10);
    const rebuilt = await t.bus.journal.rebuild();
    expect(rebuilt.map((r) => r.projection)).toEqual(expect.arrayContaining(Object.keys(PROJECTIONS)));
    expect(await snapshot()).toEqual(live);
  }, 30_000);
});
