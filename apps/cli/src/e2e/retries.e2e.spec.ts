import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { KvBucket, durableName } from '@rloop/bus';
import type { JournaledEvent } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { type TestFleet, samplePlan, scriptedRepo, startTestFleet } from './fleet.test-helpers.js';

// Rounds that are run again: a panel restarted in the middle of a long park sequence (a retried
// round waiting for its critics to heartbeat again) picks the count up where the killed one left
// it, instead of dead-lettering the commit that starts the next round; and a core critic that
// cannot run escalates in its second round, with its reason and message, after a retry that
// waited instead of starting at once.

let t: TestFleet;

const CLEAN_JS = "export const region = process.env.AWS_REGION ?? 'eu-west-1';\n";

beforeAll(async () => {
  t = await startTestFleet({
    // Critics answer within 20 s, so a round whose critics were killed ends at its deadline soon.
    catalogue: (c) => ({
      ...c,
      round_grace_ms: 2_000,
      critics: Object.fromEntries(
        Object.entries(c['critics'] as Record<string, Record<string, unknown>>).map(([id, entry]) => [
          id,
          { ...entry, timeout_ms: 20_000 },
        ]),
      ),
    }),
    // Held messages come back after 3 s; critics heartbeat every second (a retry waits 12 s for them).
    env: { RLOOP_ACK_WAIT_MS: '3000', RLOOP_CRITIC_HEARTBEAT_MS: '1000' },
  });
}, 120_000);

afterAll(async () => {
  await t?.stop();
}, 60_000);

async function eventsOf(plan: string): Promise<JournaledEvent[]> {
  return (await t.bus.journal.events(plan)).entries.map((e) => e.event);
}

async function until(
  plan: string,
  description: string,
  check: (events: JournaledEvent[]) => boolean,
  timeoutMs = 90_000,
): Promise<JournaledEvent[]> {
  return eventually(
    async () => {
      const events = await eventsOf(plan);
      return check(events) ? events : undefined;
    },
    { timeoutMs, intervalMs: 100, description },
  );
}

/** The most times the panel has parked one of its messages, from the namespace's delivery ledger. */
async function panelParks(): Promise<number> {
  const subjects = t.bus.subjects;
  const bucket = await KvBucket.find(t.bus.connection, subjects.deliveriesBucket);
  if (bucket === null) return 0;
  const prefix = `${durableName('panel', 'panel-decide')}.`;
  const parks = (await bucket.entries())
    .filter((e) => e.key.startsWith(prefix))
    .map((e) => (JSON.parse(new TextDecoder().decode(e.value)) as { parked: number }).parked);
  return Math.max(0, ...parks);
}

describe('rounds run again', () => {
  it('a panel killed while it holds a retried round back for its critics goes on counting where it left: the loop converges, nothing dead-lettered', async () => {
    const repo = await scriptedRepo(join(t.home, 'repos', 'r-parked'), { 'src/config.js': CLEAN_JS });
    const reply = await t.submit(samplePlan('r-parked', repo, { files: ['src/**/*.js'] }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    await until('r-parked', 'round 1 to start', (events) => events.some((e) => e.type === 'RoundStarted'));
    // Round 1's critics die with the critic-runner: at the deadline the letter is incomplete, and the
    // retried round waits (parking its commit every heartbeat) for them to heartbeat again.
    await t.fleet.kill('critic-runner');
    await until('r-parked', 'the incomplete letter of round 1', (events) =>
      events.some((e) => e.type === 'LetterWritten' && !e.data.letter.complete),
    );
    await eventually(async () => ((await panelParks()) >= 6 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 200,
      description: 'six parks by the panel (more than its 5 attempts)',
    });
    await t.fleet.kill('panel');
    await t.fleet.restart('panel');
    await t.fleet.restart('critic-runner');

    const state = await t.outcome('r-parked', reply.event_id, 120_000);
    expect(state.status).toBe('converged');
    const events = await eventsOf('r-parked');
    expect(events.filter((e) => e.type === 'RoundStarted' && e.data.round === 2)).toHaveLength(1);
    expect(t.lines.filter((line) => line.includes(': dead-lettered '))).toEqual([]);
  }, 240_000);

  it('a core critic that cannot run in two rounds in a row escalates once, with its reason and message, after a retry that waited', async () => {
    // A dependency and no lockfile: npm audit cannot know what is installed, every round.
    const repo = await scriptedRepo(join(t.home, 'repos', 'r-infra'), {
      'src/config.js': CLEAN_JS,
      'package.json': `${JSON.stringify({ name: 'scripted', version: '1.0.0', private: true, type: 'module', dependencies: { 'is-number': '7.0.0' } }, null, 2)}\n`,
    });
    const reply = await t.submit(samplePlan('r-infra', repo, { files: ['src/**/*.js', 'package.json'] }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const state = await t.outcome('r-infra', reply.event_id, 120_000);
    expect(state.status).toBe('escalated');
    const events = await eventsOf('r-infra');
    const escalations = events.filter((e) => e.type === 'EscalationRaised');
    expect(escalations).toHaveLength(1);
    const [escalation] = escalations;
    if (escalation?.type !== 'EscalationRaised') throw new Error('no escalation');
    expect(escalation.data).toMatchObject({ reason: 'critic_failures', round: 2 });
    expect(escalation.data.report.trigger.detail).toMatch(
      /^core critic toolchain\/dependency-audit could not run \(not_runnable\) in rounds 1 and 2: .*lockfile/,
    );
    expect(escalation.data.report.recommended_action).toMatch(
      /lockfile .*npm install --package-lock-only.*advisory source/,
    );
    // The second round waited after the first one's letter (retry_backoff.initial_ms, 2 s by default).
    const letter1 = events.find((e) => e.type === 'LetterWritten' && e.data.letter.round === 1);
    const round2 = events.find((e) => e.type === 'RoundStarted' && e.data.round === 2);
    expect(Date.parse(round2?.occurred_at ?? '') - Date.parse(letter1?.occurred_at ?? '')).toBeGreaterThanOrEqual(
      2_000,
    );
    expect(events.filter((e) => e.type === 'RoundStarted')).toHaveLength(2);
  }, 180_000);
});
