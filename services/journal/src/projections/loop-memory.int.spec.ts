import { SYSTEM_CLOCK } from '@rloop/bus';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Kysely } from 'kysely';
import type { Finding, JournaledEvent } from '@rloop/contracts';
import {
  DEFAULT_LOOP_CONFIG,
  type LoopState,
  detectLoop,
  fingerprintOf,
  loopDetectedEvent,
  stampDecision,
} from '@rloop/domain';
import { type AppendResult, type EventStoreClient, createEventStore } from '@rloop/event-store';
import { type TestDatabase, createTestDatabase } from '@rloop/testing';
import { ProjectionCatchUp } from './catch-up.js';
import { readBack, toNewEvent } from './envelope.js';
import { type JournalTables, migrateProjections } from './schema.js';
import { envelopeFactory } from '../testing/envelopes.test-helpers.js';
import { SHA, runStart } from '../testing/journal-harness.test-helpers.js';

// The loop-memory projections on a real PostgreSQL. The journal stores and projects; it decides
// nothing: a heuristic that fires is the panel's loop-detection reactor's to journal
// (services/panel/src/detection), and its LoopDetected, once appended, is in the loop state and
// the journaled detections. A rebuild gives the same rows.

const CRITIC = 'security/secrets-detector';

let database: TestDatabase;
let store: EventStoreClient;
let projections: ProjectionCatchUp;

const envelope = envelopeFactory({
  idPrefix: '01JMEMSPEC',
  producer: 'memory-spec',
  occurredAt: (n) => new Date(Date.UTC(2026, 10, 30, 10, 0, n)),
});

const key: Finding = {
  id: 'secret-1',
  fingerprint: fingerprintOf({
    critic_id: CRITIC,
    file: 'src/config.js',
    line_range: { start: 2, end: 2 },
    finding_type: 'secret/aws-access-key',
  }),
  severity: 'critical',
  score: 9,
  category: 'security',
  finding_type: 'secret/aws-access-key',
  file: 'src/config.js',
  line_range: { start: 2, end: 2 },
  title: 'Committed secret',
  current_behaviour: 'a key is in the code',
  expected_behaviour: 'the key comes from the environment',
  observable_test_conditions: ['no key in src/config.js'],
  forbidden_in_test: [],
  raised_by: CRITIC,
  related_findings: [],
  fixable: false,
  related_locations: [],
};

const run = runStart(envelope, { files: ['src/**'], gatedFiles: ['src/config.js'] });

function start(plan: string, runId: string): JournaledEvent[] {
  return [run.submitted(plan, runId), run.gatedFact(plan, runId), run.baseline(plan, runId)];
}

function review(plan: string, runId: string, round: number): JournaledEvent[] {
  const commit = round.toString(16).padStart(40, 'c');
  return [
    envelope('RoundStarted', plan, runId, {
      round,
      phase: 'critical',
      phase_round: round,
      k: 3,
      mode: 'loop',
      commit,
      base_commit: SHA,
      repo_path: '/r',
      files: ['src/config.js'],
      critics: [{ critic_id: CRITIC, evidence: 'pattern', core: true, reason: 'core', timeout_ms: 60_000 }],
      not_configured: [],
      deadline_at: '2026-12-01T00:00:00.000Z',
    }),
    envelope('FindingsReported', plan, runId, {
      round,
      critic_id: CRITIC,
      commit,
      findings: [key],
      truncated: false,
      duration_ms: 3,
    }),
    envelope('LetterWritten', plan, runId, {
      letter: {
        letter_id: `d_letter${runId.slice(-6)}${round}`,
        plan,
        run_id: runId,
        round,
        phase: 'critical',
        k: 3,
        commit,
        mode: 'loop',
        created_at: '2026-11-30T10:00:00.000Z',
        critics: [{ critic_id: CRITIC, core: true, outcome: 'reported', findings_total: 1, findings_kept: 1 }],
        findings: [key],
        counts: { critical: 1, medium: 0, low: 0 },
        complete: true,
        disagreements: [],
        summary: 'one secret',
      },
    }),
  ];
}

function untouchedFix(plan: string, runId: string, round: number): JournaledEvent[] {
  return [
    envelope('FixApplied', plan, runId, {
      round,
      letter_id: `d_letter${runId.slice(-6)}${round}`,
      strategy: 'command',
      outcome: 'committed',
      fixes_applied: [
        { file: 'src/notes.js', fixed_findings: [], lines_changed: 1, hunks: [{ start: round, end: round }] },
      ],
      tests_added: [],
      tests_result: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
      base_commit: round.toString(16).padStart(40, 'c'),
      commit: (round + 1).toString(16).padStart(40, 'c'),
      diff_stats: { files_changed: 1, insertions: 1, deletions: 0 },
      duration_ms: 1,
    }),
  ];
}

/** What the ingest does: append and project in one transaction. */
async function ingest(plan: string, events: readonly JournaledEvent[]): Promise<AppendResult> {
  const [result] = (
    await projections.appendAndProject([{ streamId: plan, events: events.map(toNewEvent), expectedVersion: 'any' }])
  ).results;
  if (result === undefined) throw new Error('nothing appended');
  return result;
}

async function stateOf(plan: string): Promise<LoopState> {
  const db = store.db as unknown as Kysely<JournalTables>;
  const row = await db.selectFrom('loop_states').select(['state']).where('plan', '=', plan).executeTakeFirstOrThrow();
  return row.state as LoopState;
}

async function rows(): Promise<Record<string, unknown[]>> {
  const db = store.db as unknown as Kysely<JournalTables>;
  return {
    loop_states: await db.selectFrom('loop_states').selectAll().orderBy('plan').execute(),
    loop_memory: await db.selectFrom('loop_memory').selectAll().orderBy('plan').execute(),
    round_history: await db.selectFrom('round_history').selectAll().orderBy('run_id').orderBy('round').execute(),
    runs: await db.selectFrom('runs').selectAll().orderBy('run_id').execute(),
    learnings: await db.selectFrom('learnings').selectAll().orderBy('critic_id').orderBy('finding_type').execute(),
    loop_detections: await db.selectFrom('loop_detections').selectAll().orderBy('event_id').execute(),
  };
}

beforeAll(async () => {
  database = await createTestDatabase('rloop_memory');
  store = await createEventStore({ databaseUrl: database.url });
  await migrateProjections(store.db);
  projections = new ProjectionCatchUp(store, SYSTEM_CLOCK, DEFAULT_LOOP_CONFIG);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await database?.drop();
}, 30_000);

describe('the loop-memory projections', () => {
  it('given a finding left untouched for three rounds, when the third letter is projected, then the journal appends no LoopDetected of its own; the one the reactor decides is projected once into the state and the journaled detections', async () => {
    const plan = 'mem-untouched';
    const runId = '01JMEMRUN00000000000000001';
    await ingest(plan, start(plan, runId));
    for (const round of [1, 2]) {
      await ingest(plan, review(plan, runId, round));
      await ingest(plan, untouchedFix(plan, runId, round));
    }
    const third = review(plan, runId, 3);
    await ingest(plan, third);
    const stream = await store.readStream(plan);
    expect(stream.filter((e) => e.type === 'LoopDetected')).toEqual([]);
    const atLetter = await stateOf(plan);
    expect(atLetter.detections).toEqual([]);

    // The reactor's decision on the committed run (libs/domain detectLoop), appended as the journal appends any decision.
    const entries = stream.map((e) => ({ position: e.streamPosition, event: readBack(e) }));
    const { detections } = detectLoop(atLetter, entries, DEFAULT_LOOP_CONFIG);
    expect(detections.map((d) => [d.heuristic, d.round])).toEqual([['persistent_issue', 3]]);
    const [detected] = stampDecision(
      detections.map((d) => loopDetectedEvent(d, 'panel@spec')),
      atLetter.version,
    );
    if (detected === undefined) throw new Error('nothing detected');
    const appended = await ingest(plan, [detected]);
    // A redelivered one changes nothing.
    await ingest(plan, [detected]);
    const state = await stateOf(plan);
    expect(state.detections).toMatchObject([
      { event_id: detected.event_id, heuristic: 'persistent_issue', round: 3, fingerprints: [key.fingerprint] },
    ]);
    expect(state.version).toBe(appended.events[0]?.streamPosition);
    expect((await store.readStream(plan)).filter((e) => e.type === 'LoopDetected')).toHaveLength(1);
    const db = store.db as unknown as Kysely<JournalTables>;
    expect(
      await db
        .selectFrom('loop_detections')
        .select(['event_id', 'status', 'stream_position'])
        .where('plan', '=', plan)
        .execute(),
    ).toEqual([
      { event_id: detected.event_id, status: 'journaled', stream_position: appended.events[0]?.streamPosition },
    ]);
    const history = await db
      .selectFrom('round_history')
      .select(['round', 'row'])
      .where('plan', '=', plan)
      .orderBy('round')
      .execute();
    expect(history.map((h) => [h.round, (h.row as { detections: string[] }).detections])).toEqual([
      [1, []],
      [2, []],
      [3, ['persistent_issue']],
    ]);
  });

  it('given the live projections, when they are rebuilt from zero, then every row is the same', async () => {
    const live = await rows();
    await projections.rebuild();
    expect(await rows()).toEqual(live);
  });
});
