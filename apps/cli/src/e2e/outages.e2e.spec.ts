import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import { type PrivateNatsServer, eventually, startPrivateNatsServer } from '@rloop/testing';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

// The bus itself goes down: kill -9 the NATS server in the middle of a round and start it again
// on its store. Every service reconnects on its own, and the loop ends as an undisturbed run of the
// same plan does. (A NATS server of this spec's own: the shared one must never go down.)

let nats: PrivateNatsServer;
let t: TestFleet;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  // Messages that were in flight when the server died come back after 3 s instead of minutes.
  t = await startTestFleet({ natsUrl: nats.url, env: { RLOOP_ACK_WAIT_MS: '3000' } });
}, 120_000);

afterAll(async () => {
  await nats?.restart().catch(() => undefined);
  await t?.stop();
  await nats?.stop();
}, 60_000);

async function eventsOf(plan: string): Promise<JournaledEvent[]> {
  return (await t.bus.journal.events(plan)).entries.map((e) => e.event);
}

/** The rounds, their letters and fixes, and the outcome. */
function story(events: readonly JournaledEvent[]): string[] {
  return events.flatMap((e) => {
    switch (e.type) {
      case 'RoundStarted':
        return [`round ${e.data.round} ${e.data.phase}`];
      case 'LetterWritten':
        return [`letter ${e.data.letter.round}: ${e.data.letter.counts.critical}/${e.data.letter.counts.medium}/${e.data.letter.counts.low}`];
      case 'FixApplied':
        return [`fix ${e.data.round}: ${e.data.outcome} ${e.data.fixes_applied.map((f) => f.file).join(', ')}`];
      case 'PhaseAdvanced':
      case 'LoopConverged':
      case 'EscalationRaised':
        return [e.type];
      default:
        return [];
    }
  });
}

describe('outages: the NATS server killed mid-round', () => {
  it('every service reconnects when it is back, and the loop ends like an undisturbed run', async () => {
    const reference = await t.submit(samplePlan('o-reference', await t.sampleRepo('fixable', 'o-reference')));
    if (reference.status !== 'accepted') throw new Error(JSON.stringify(reference));
    const undisturbed = await t.outcome('o-reference', reference.event_id, 60_000);
    expect(undisturbed.status).toBe('converged');

    const faulted = await t.submit(samplePlan('o-faulted', await t.sampleRepo('fixable', 'o-faulted')));
    if (faulted.status !== 'accepted') throw new Error(JSON.stringify(faulted));
    await eventually(async () => ((await eventsOf('o-faulted')).some((e) => e.type === 'RoundStarted' && e.data.round === 2) ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 20,
      description: 'round 2 to start',
    });
    const linesBefore = t.lines.length;
    await nats.kill();
    // Down long enough for every service to notice and for in-flight work to fail its publishes.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await nats.restart();

    const outcome = await t.outcome('o-faulted', faulted.event_id, 120_000);
    expect(outcome.status).toBe('converged');
    expect(outcome.round).toBe(undisturbed.round);
    const events = await eventsOf('o-faulted');
    expect(story(events)).toEqual(story(await eventsOf('o-reference')));
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    // Each service said it lost the bus and found it again.
    const during = t.lines.slice(linesBefore);
    for (const service of ['journal', 'gate', 'panel', 'critic-runner', 'synthesizer', 'implementer']) {
      expect({ service, disconnected: during.some((line) => line.includes(`${service}: disconnected from NATS`)) }).toEqual({ service, disconnected: true });
    }
  }, 240_000);
});
