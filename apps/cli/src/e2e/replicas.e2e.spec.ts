import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RloopEvent } from '@rloop/contracts';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

let t: TestFleet;

beforeAll(async () => {
  t = await startTestFleet({ replicas: 2 });
}, 120_000);

afterAll(async () => {
  await t?.stop();
}, 60_000);

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

describe('two replicas of every service on one plan', () => {
  it('converge with no round, report, letter or fix done twice', async () => {
    const repo = await t.sampleRepo('fixable');
    const reply = await t.submit(samplePlan('e2e-replicas', repo));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const state = await t.outcome('e2e-replicas', reply.event_id);
    expect(state.status).toBe('converged');
    const { entries } = await t.bus.journal.events('e2e-replicas');
    const events: RloopEvent[] = entries.map((e) => e.event);
    const once = (type: RloopEvent['type'], key: (e: RloopEvent) => string) =>
      [
        ...countBy(
          events.filter((e) => e.type === type),
          key,
        ).values(),
      ].every((n) => n === 1);
    const round = (e: RloopEvent) =>
      String((e.data as { round?: number }).round ?? (e.data as { letter?: { round: number } }).letter?.round);
    expect(once('RoundStarted', round)).toBe(true);
    expect(once('LetterWritten', round)).toBe(true);
    expect(once('FixRequested', round)).toBe(true);
    expect(once('FixApplied', round)).toBe(true);
    expect(once('FindingsReported', (e) => `${round(e)}/${(e.data as { critic_id: string }).critic_id}`)).toBe(true);
    expect(events.filter((e) => e.type === 'BaselineRecorded')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'LoopConverged')).toHaveLength(1);
    const rounds = events.filter((e) => e.type === 'RoundStarted').map(round);
    expect(rounds).toEqual(rounds.map((_, i) => String(i + 1)));
  }, 180_000);
});
