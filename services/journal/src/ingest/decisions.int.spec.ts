import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { JetStreamClient } from '@rloop/bus';
import type { EventOf, JournaledEvent } from '@rloop/contracts';
import type { JournalClient } from '@rloop/journal-client';
import { type TestDatabase, type TestNats, eventually } from '@rloop/testing';
import { envelopeFactory } from '../testing/envelopes.test-helpers.js';
import { type JournalHarness, SHA, runStart, startJournalHarness } from '../testing/journal-harness.test-helpers.js';

// The journal appends a decision only on the state it was decided on: stale ones are refused
// (recorded, never dead-lettered) and announced so deciders decide again; a decision of two
// events goes in whole; late facts that change nothing do not make a decision stale. Each run has
// a stream of its own, and events of runs this journal never saw are not mixed into its history.

const CRITIC = 'security/secrets-detector';

let harness: JournalHarness;
let database: TestDatabase;
let client: JetStreamClient;
let journal: JournalClient;
let nats: TestNats;

const envelope = envelopeFactory({ idPrefix: '01JDECIDE', producer: 'decisions-spec' });

function decided<E extends JournaledEvent>(event: E, version: number, decision: string = event.event_id): E {
  return { ...event, decision: { expected_version: version, id: decision } };
}

const { submitted, gated, gatedFact, baseline } = runStart(envelope);

function roundStarted(plan: string, runId: string, round: number, id: string): EventOf<'RoundStarted'> {
  return envelope(
    'RoundStarted',
    plan,
    runId,
    {
      round,
      phase: 'critical',
      phase_round: round,
      k: 3,
      mode: 'loop',
      commit: SHA,
      base_commit: SHA,
      repo_path: '/r',
      files: ['a.js'],
      critics: [{ critic_id: CRITIC, evidence: 'pattern', core: true, reason: 'core', timeout_ms: 60_000 }],
      not_configured: [],
      deadline_at: '2030-01-01T00:00:00.000Z',
    },
    id,
  );
}

function report(plan: string, runId: string, round: number, id?: string): EventOf<'FindingsReported'> {
  return envelope(
    'FindingsReported',
    plan,
    runId,
    { round, critic_id: CRITIC, commit: SHA, findings: [], truncated: false, duration_ms: 1 },
    id,
  );
}

async function publishAll(events: readonly JournaledEvent[]): Promise<void> {
  for (const event of events) await client.publish(event);
}

async function commitsOf(plan: string): Promise<EventOf<'JournalCommitted'>[]> {
  return (await nats.messages(nats.subjects.streams.commits, nats.subjects.event('JournalCommitted', plan))).map(
    (m) => m.json() as EventOf<'JournalCommitted'>,
  );
}

async function refusals(
  plan: string,
): Promise<{ event_id: string; expected_version: number; actual_version: number; reason: string }[]> {
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const result = await db.query<{
      event_id: string;
      expected_version: number;
      actual_version: number;
      reason: string;
    }>(
      'SELECT event_id, expected_version, actual_version, reason FROM refused_decisions WHERE plan = $1 ORDER BY refused_at',
      [plan],
    );
    return result.rows;
  } finally {
    await db.end();
  }
}

/** A run in round 1 of a plan, its reviewer's report in: version 5. */
async function inRoundOne(plan: string, runId: string): Promise<void> {
  await publishAll([submitted(plan, runId), gated(plan, runId), baseline(plan, runId)]);
  await client.publish(decided(roundStarted(plan, runId, 1, `d_round1_${runId}`), 3));
  await client.publish(report(plan, runId, 1));
  await eventually(async () => ((await journal.loopState(plan)).version === 5 ? true : undefined), {
    description: `${plan} at version 5`,
  });
}

beforeAll(async () => {
  harness = await startJournalHarness({ database: 'rloop_decisions', namespace: 'jd', producer: 'decisions-spec' });
  ({ database, client, journal, nats } = harness);
}, 60_000);

afterAll(async () => {
  await harness?.stop();
}, 30_000);

describe('decisions are appended on the state they were decided on', () => {
  it('refuses a decision made before a report changed the round, records why, announces the refusal, and takes the decision made again on the fresh state', async () => {
    const runId = '01JRUNSTALE000000000000001';
    await publishAll([submitted('d-stale', runId), gated('d-stale', runId), baseline('d-stale', runId)]);
    await client.publish(decided(roundStarted('d-stale', runId, 1, 'd_round_stale_01'), 3));
    await eventually(async () => ((await journal.loopState('d-stale')).version === 4 ? true : undefined));
    // The synthesizer decided at version 4 that the critic timed out; its real report landed first (version 5).
    await client.publish(report('d-stale', runId, 1));
    const timedOut = decided(
      envelope(
        'CriticFailed',
        'd-stale',
        runId,
        { round: 1, critic_id: CRITIC, core: true, reason: 'timed_out', message: 'no report by the deadline' },
        'd_timeout_stale_1',
      ),
      4,
    );
    await client.publish(timedOut);
    const announced = await eventually(
      async () => (await commitsOf('d-stale')).find((c) => c.data.refused.length > 0),
      { description: 'the refusal announced' },
    );
    expect(announced.data.refused).toEqual([
      { event_id: 'd_timeout_stale_1', type: 'CriticFailed', expected_version: 4, actual_version: 5, reason: 'stale' },
    ]);
    expect(await refusals('d-stale')).toEqual([
      { event_id: 'd_timeout_stale_1', expected_version: 4, actual_version: 5, reason: 'stale' },
    ]);
    const { entries } = await journal.events('d-stale');
    expect(entries.map((e) => e.event.type)).toEqual([
      'PlanSubmitted',
      'LoopGated',
      'BaselineRecorded',
      'RoundStarted',
      'FindingsReported',
    ]);
    expect((await journal.loopState('d-stale')).state?.current?.reports).toEqual({ [CRITIC]: 'reported' });
    // Decided again on version 5: the letter goes in.
    const letter = decided(
      envelope('LetterWritten', 'd-stale', runId, { letter: letterOf('d-stale', runId) }, 'd_letter_stale_01'),
      5,
    );
    await client.publish(letter);
    await eventually(
      async () => ((await journal.loopState('d-stale')).state?.current?.letter !== null ? true : undefined),
      { description: 'the letter decided again' },
    );
    expect((await nats.deadLetters()).filter((d) => d.subject.includes('.d-stale'))).toEqual([]);
  });

  it('appends both events of one decision published one after the other, and refuses the second when something changed the run in between', async () => {
    const runId = '01JRUNTWOEVENTS00000000001';
    await inRoundOne('d-two', runId);
    const letter = decided(
      envelope('LetterWritten', 'd-two', runId, { letter: letterOf('d-two', runId) }, 'd_letter_two_0001'),
      5,
    );
    await client.publish(letter);
    await eventually(async () => ((await journal.loopState('d-two')).version === 6 ? true : undefined));
    const advanced = envelope(
      'PhaseAdvanced',
      'd-two',
      runId,
      { from: 'critical', to: 'medium', round: 1, reason: 'phase_clear' },
      'd_phase_two_00001',
    );
    const next = {
      ...roundStarted('d-two', runId, 2, 'd_round2_two_0001'),
      data: { ...roundStarted('d-two', runId, 2, 'x').data, phase: 'medium' as const, phase_round: 1 },
    };
    await client.publish(decided(advanced, 6, advanced.event_id));
    await eventually(async () => ((await journal.loopState('d-two')).version === 7 ? true : undefined));
    await client.publish(decided(next, 6, advanced.event_id));
    await eventually(async () => ((await journal.loopState('d-two')).state?.round === 2 ? true : undefined), {
      description: 'round 2 of the same decision',
    });

    // The same decision shape, but a person stopped the loop between its two events: the second is refused.
    const runId2 = '01JRUNTWOEVENTS00000000002';
    await inRoundOne('d-two-stop', runId2);
    await client.publish(
      decided(
        envelope(
          'LetterWritten',
          'd-two-stop',
          runId2,
          { letter: letterOf('d-two-stop', runId2) },
          'd_letter_twostop1',
        ),
        5,
      ),
    );
    const advanced2 = envelope(
      'PhaseAdvanced',
      'd-two-stop',
      runId2,
      { from: 'critical', to: 'medium', round: 1, reason: 'phase_clear' },
      'd_phase_twostop01',
    );
    await client.publish(decided(advanced2, 6, advanced2.event_id));
    await client.publish(envelope('LoopStopped', 'd-two-stop', runId2, { by: 'ops' }));
    await client.publish(
      decided(
        { ...next, plan: 'd-two-stop', correlation_id: runId2, event_id: 'd_round2_twostop1' },
        6,
        advanced2.event_id,
      ),
    );
    await eventually(async () => ((await refusals('d-two-stop')).length === 1 ? true : undefined), {
      description: 'the second event refused',
    });
    expect((await journal.events('d-two-stop')).entries.map((e) => e.event.type).slice(-2)).toEqual([
      'PhaseAdvanced',
      'LoopStopped',
    ]);
  });

  it("takes a decision made before late facts that change nothing, and a second replica's copy of a stored decision as a duplicate", async () => {
    const runId = '01JRUNLATEFACTS00000000001';
    await inRoundOne('d-late', runId);
    // A second report of the same critic and usage: the round's state does not change.
    await client.publish(report('d-late', runId, 1, '01JLATEREPORT0000000000001'));
    await client.publish(
      envelope('UsageRecorded', 'd-late', runId, {
        round: 1,
        dispatch: CRITIC,
        model: 'm',
        input_tokens: 1,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cost_usd: 0,
      }),
    );
    await eventually(async () => ((await journal.loopState('d-late')).version === 7 ? true : undefined));
    const letter = decided(
      envelope('LetterWritten', 'd-late', runId, { letter: letterOf('d-late', runId) }, 'd_letter_late_001'),
      5,
    );
    await client.publish(letter);
    await eventually(async () => ((await journal.loopState('d-late')).version === 8 ? true : undefined), {
      description: 'the letter after the late facts',
    });
    // Another replica decided the same step later, on version 7: the same event, journaled once.
    await client.publish(decided(letter, 7));
    await client.publish(
      envelope('UsageRecorded', 'd-late', runId, {
        round: 1,
        dispatch: 'x',
        model: 'm',
        input_tokens: 1,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cost_usd: 0,
      }),
    );
    await eventually(async () => ((await journal.loopState('d-late')).version === 9 ? true : undefined));
    expect((await journal.events('d-late')).entries.filter((e) => e.event.type === 'LetterWritten')).toHaveLength(1);
    expect(await refusals('d-late')).toEqual([]);
  });

  it('dead-letters a decision that does not say which version it was made on', async () => {
    const runId = '01JRUNUNVERSIONED000000001';
    await client.publish(submitted('d-unversioned', runId));
    await client.publish(gatedFact('d-unversioned', runId));
    const dead = await eventually(async () =>
      (await nats.deadLetters()).find((d) => d.subject.endsWith('.d-unversioned')),
    );
    expect(dead).toMatchObject({ reason: 'handler_rejected', code: 'JOURNAL.UNVERSIONED_DECISION' });
  });
});

describe('one stream per run', () => {
  it("starts a re-submitted slug on a stream of its own: the new run folds none of the old run's events, not even its late ones", async () => {
    const first = '01JRUNFIRST000000000000001';
    await publishAll([submitted('d-again', first), gated('d-again', first)]);
    await client.publish(envelope('LoopStopped', 'd-again', first, { by: 'ops' }));
    await eventually(async () => ((await journal.loopState('d-again')).state?.status === 'stopped' ? true : undefined));
    const second = '01JRUNSECOND00000000000001';
    await client.publish(submitted('d-again', second));
    // A late fact of the first run, and the second run's gate decision on its own version 1.
    await client.publish(baseline('d-again', first));
    await client.publish(gated('d-again', second));
    await eventually(
      async () => ((await journal.loopState('d-again')).state?.status === 'awaiting_baseline' ? true : undefined),
      { description: 'the second run gated' },
    );
    const { version, state } = await journal.loopState('d-again');
    expect({ version, run: state?.run_id, baseline: state?.baseline }).toEqual({
      version: 2,
      run: second,
      baseline: null,
    });
    expect((await journal.events('d-again')).entries.map((e) => [e.position, e.event.type])).toEqual([
      [1, 'PlanSubmitted'],
      [2, 'LoopGated'],
    ]);
    const all = (await journal.events('d-again', { scope: 'all' })).entries.map(
      (e) => `${e.event.correlation_id === first ? 'first' : 'second'} ${e.position} ${e.event.type}`,
    );
    expect(all).toEqual([
      'first 1 PlanSubmitted',
      'first 2 LoopGated',
      'first 3 LoopStopped',
      'first 4 BaselineRecorded',
      'second 1 PlanSubmitted',
      'second 2 LoopGated',
    ]);
    expect(await journal.hasEvent(second)).toMatchObject({ found: true, plan: 'd-again' });
  });

  it('does not journal events of a run it never saw: they are dead-lettered as orphans, and no ghost plan appears', async () => {
    const unknownRun = '01JRUNNEVERSEEN00000000001';
    await client.publish(
      envelope('CriticFailed', 'd-ghost', unknownRun, {
        round: 3,
        critic_id: CRITIC,
        core: true,
        reason: 'timed_out',
        message: "from another journal's run",
      }),
    );
    const dead = await eventually(async () => (await nats.deadLetters()).find((d) => d.subject.includes('.d-ghost')));
    expect(dead).toMatchObject({ reason: 'handler_rejected', code: 'JOURNAL.ORPHAN_EVENT' });
    expect(dead.message).toContain(unknownRun);
    expect((await journal.status()).map((p) => p.plan)).not.toContain('d-ghost');
  });
});

function letterOf(plan: string, runId: string): EventOf<'LetterWritten'>['data']['letter'] {
  return {
    letter_id: `d_letterof_${plan}`.slice(0, 64),
    plan,
    run_id: runId,
    round: 1,
    phase: 'critical',
    k: 3,
    commit: SHA,
    mode: 'loop',
    created_at: '2026-11-30T10:00:00.000Z',
    critics: [{ critic_id: CRITIC, core: true, outcome: 'reported', findings_total: 0, findings_kept: 0 }],
    findings: [],
    counts: { critical: 0, medium: 0, low: 0 },
    complete: true,
    disagreements: [],
    summary: 'clean',
  };
}
