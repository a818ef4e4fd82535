import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KvBucket, durableName } from '@rloop/bus';
import type { EventOf, JournaledEvent } from '@rloop/contracts';
import { type TestNats, connectTestNats, eventually } from '@rloop/testing';
import { type TestFleet, startTestFleet } from './fleet.test-helpers.js';

// The round deadline is a durable timer: the announcement of the round's start comes back at the
// deadline. What the synthesizer does then comes from the journal's state at that moment — never
// from the state the redelivered announcement carries — so a round that finished before its
// deadline gets no late CriticFailed, across a restart of the synthesizer too. (Only the journal
// and the synthesizer run: the test plays the gate, the panel and the critic.)

const SHA = 'a'.repeat(40);
const CRITIC = 'security/secrets-detector';
const PLAN = 's-deadline';
const RUN = '01JRUNDEADLINE000000000001';

let t: TestFleet;
let nats: TestNats;

function envelope<T extends JournaledEvent['type']>(
  type: T,
  id: string,
  data: EventOf<T>['data'],
  decidedOn?: number,
): EventOf<T> {
  return {
    event_id: id,
    type,
    schema_version: 1,
    plan: PLAN,
    correlation_id: RUN,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    producer: 'deadline-spec',
    ...(decidedOn === undefined ? {} : { decision: { expected_version: decidedOn, id } }),
    data,
  } as EventOf<T>;
}

beforeAll(async () => {
  t = await startTestFleet({ services: ['journal', 'synthesizer'], env: { RLOOP_ACK_WAIT_MS: '3000' } });
  nats = await connectTestNats(t.namespace);
}, 120_000);

afterAll(async () => {
  await nats?.connection.drain();
  await t?.stop();
}, 60_000);

/** The most times a consumer has parked one of its messages, from the namespace's delivery ledger. */
async function parks(consumer: string): Promise<number> {
  const bucket = await KvBucket.find(t.bus.connection, t.bus.subjects.deliveriesBucket);
  if (bucket === null) return 0;
  const records = (await bucket.entries()).filter((e) => e.key.startsWith(`${consumer}.`));
  return Math.max(
    0,
    ...records.map((e) => (JSON.parse(new TextDecoder().decode(e.value)) as { parked: number }).parked),
  );
}

describe('the round deadline', () => {
  it("fires on the journal's state: a round whose critic answered and whose letter is written gets no CriticFailed at its deadline, across a synthesizer restart", async () => {
    const publish = (event: JournaledEvent): Promise<unknown> => t.bus.client.publishEvent(event);
    const deadline = new Date(Date.now() + 6_000).toISOString();
    await publish(
      envelope('PlanSubmitted', RUN, {
        plan: {
          slug: PLAN,
          title: 'T',
          description: '',
          effort_level: 'high',
          files: ['a.js'],
          repo: { path: '/r', ref: 'HEAD' },
          test_cmd: 'true',
          implementer: { strategy: 'autofix' },
        },
        submission_id: RUN,
      }),
    );
    await publish(
      envelope(
        'LoopGated',
        'd_deadline_gated_01',
        { verdict: 'run', rules: [], commit: SHA, files: ['a.js'], repo_path: '/r', test_cmd: 'true' },
        1,
      ),
    );
    await publish(
      envelope('BaselineRecorded', '01JBASELINEDEADLINE0000001', {
        commit: SHA,
        branch: `rloop/${PLAN}`,
        tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
        exit_code: 0,
        failing: [],
        duration_ms: 1,
      }),
    );
    await eventually(async () => ((await t.bus.journal.loopState(PLAN)).version === 3 ? true : undefined));
    const critics = [{ critic_id: CRITIC, evidence: 'pattern', core: true, reason: 'core', timeout_ms: 1_000 }];
    await publish(
      envelope(
        'RoundStarted',
        'd_deadline_round_1',
        {
          round: 1,
          phase: 'critical',
          phase_round: 1,
          k: 3,
          mode: 'loop',
          commit: SHA,
          base_commit: SHA,
          repo_path: '/r',
          files: ['a.js'],
          critics,
          not_configured: [],
          deadline_at: deadline,
        },
        3,
      ),
    );
    // The synthesizer parks the round's announcement until the deadline (its timer).
    await eventually(
      async () => ((await parks(durableName('synthesizer', 'synthesizer-letters'))) >= 1 ? true : undefined),
      { description: "the round's timer set" },
    );
    // The critic answers before the deadline; the synthesizer writes the letter.
    await publish(
      envelope('FindingsReported', '01JREPORTDEADLINE000000001', {
        round: 1,
        critic_id: CRITIC,
        commit: SHA,
        findings: [],
        truncated: false,
        duration_ms: 1,
      }),
    );
    await eventually(
      async () => ((await t.bus.journal.loopState(PLAN)).state?.current?.letter != null ? true : undefined),
      { description: 'the letter of round 1' },
    );
    // The synthesizer is killed and started again while the round's timer is parked.
    await t.fleet.kill('synthesizer');
    await t.fleet.restart('synthesizer');

    // The timer: the announcement that carried the RoundStarted, parked until the deadline, then handled.
    const commits = await nats.messages(nats.subjects.streams.commits, nats.subjects.event('JournalCommitted', PLAN));
    const timer = commits.find((m) =>
      (m.json() as EventOf<'JournalCommitted'>).data.events.some((e) => e.type === 'RoundStarted'),
    );
    if (timer === undefined) throw new Error('no announcement of round 1');
    await eventually(
      async () => {
        const info = await nats.consumerInfo(
          nats.subjects.streams.commits,
          durableName('synthesizer', 'synthesizer-letters'),
        );
        return Date.now() > Date.parse(deadline) && info.ack_floor.stream_seq >= timer.seq && info.num_ack_pending === 0
          ? true
          : undefined;
      },
      { timeoutMs: 60_000, description: 'the timer fired and was handled' },
    );
    // A critic's answers are published on subjects that name it: every CriticFailed of the plan, whatever the critic.
    const failed = (
      await nats.messages(nats.subjects.streams.events, nats.subjects.eventFilter('CriticFailed'))
    ).filter((m) => m.subject.includes(`.${PLAN}.`));
    expect(failed.map((m) => m.json())).toEqual([]);
    expect((await t.bus.journal.events(PLAN)).entries.map((e) => e.event.type)).toEqual([
      'PlanSubmitted',
      'LoopGated',
      'BaselineRecorded',
      'RoundStarted',
      'FindingsReported',
      'LetterWritten',
    ]);
  }, 120_000);
});
