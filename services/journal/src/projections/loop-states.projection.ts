import { type Insertable, type Transaction, sql } from 'kysely';
import { type JournaledEvent, parseLoopState } from '@rloop/contracts';
import {
  DEFAULT_LOOP_CONFIG,
  type LearningDelta,
  type LoopConfig,
  type LoopMemory,
  type LoopState,
  type RoundHistoryRow,
  type RunSummaryRow,
  evolveLoop,
  evolveMemory,
  initialLoopMemory,
  initialLoopState,
} from '@rloop/domain';
import type { EventStoreTransaction, StoredEvent } from '@rloop/event-store';
import { planOfStream } from '../streams.js';
import type { JournalTables } from './schema.js';

/** The subscription name of the journal's projections (its checkpoint row). */
export const PROJECTIONS_SUBSCRIPTION = 'journal-projections';

/** How many plans a learning remembers by name. */
const RECENT_PLANS = 5;

interface PlanRow {
  state: LoopState;
  /** The stream of the current run (null before the plan's first run). */
  streamId: string | null;
  memory: LoopMemory;
  findingsOpen: number | null;
  spend: number;
}

function findingsOpen(previous: PlanRow | undefined, state: LoopState): number | null {
  if (state.current?.letter !== null && state.current?.letter !== undefined) return state.current.letter.findings;
  if (previous !== undefined && previous.state.run_id === state.run_id) return previous.findingsOpen;
  return null;
}

interface LearningTotals {
  critic_id: string;
  finding_type: string;
  loops: number;
  rounds_seen: number;
  fixed: number;
  stuck: number;
  title: string;
  at: string;
  plans: string[];
}

function addLearning(totals: Map<string, LearningTotals>, delta: LearningDelta): void {
  const key = `${delta.critic_id}\u0000${delta.finding_type}`;
  const t = totals.get(key) ?? {
    critic_id: delta.critic_id,
    finding_type: delta.finding_type,
    loops: 0,
    rounds_seen: 0,
    fixed: 0,
    stuck: 0,
    title: delta.title,
    at: delta.at,
    plans: [],
  };
  t.loops += delta.new_loop ? 1 : 0;
  t.rounds_seen += delta.rounds_seen;
  t.fixed += delta.fixed;
  t.stuck += delta.stuck;
  t.title = delta.title;
  t.at = delta.at;
  if (!t.plans.includes(delta.plan)) t.plans.push(delta.plan);
  totals.set(key, t);
}

/**
 * The journal's projections as one subscription handler, inside the subscription's transaction
 * (so the checkpoint commits with them). Per plan, each read model is its evolve from libs/domain:
 * the loop state (evolveLoop: the panel's decision input, the CLI's status) and the loop memory
 * (evolveMemory, the same fold the panel's loop-detection reactor decides with; here only its
 * read models are kept — the detections are the reactor's to journal, and come back as
 * LoopDetected events, which evolveLoop notes in the state). Also: the letter and escalation
 * indexes, the round history, the run summaries (calibration), the learnings and the journaled
 * LoopDetected events. Every update touches a bounded number of rows, whatever the round.
 */
/** A stored event with its contract reading (parsed on replay; as validated on the way in, inline). */
export interface ProjectedEvent {
  readonly stored: StoredEvent;
  readonly event: JournaledEvent;
}

/** The projections' handler; it resolves with each touched plan's loop state after the batch. */
export type ProjectionHandler = (
  tx: EventStoreTransaction,
  batch: readonly ProjectedEvent[],
) => Promise<ReadonlyMap<string, LoopState>>;

export function projectionHandler(config: LoopConfig = DEFAULT_LOOP_CONFIG): ProjectionHandler {
  return async (
    tx: EventStoreTransaction,
    batch: readonly ProjectedEvent[],
  ): Promise<ReadonlyMap<string, LoopState>> => {
    const db = tx.db as unknown as Transaction<JournalTables>;
    const plans = [...new Set(batch.map((e) => planOfStream(e.stored.streamId)))];
    // One read for both per-plan rows (they are always written together).
    const loaded =
      plans.length === 0
        ? []
        : await db
            .selectFrom('loop_states')
            .leftJoin('loop_memory', 'loop_memory.plan', 'loop_states.plan')
            .select([
              'loop_states.plan',
              'loop_states.state',
              'loop_states.stream_id',
              'loop_states.findings_open',
              'loop_states.spend_usd',
              'loop_memory.memory',
            ])
            .where('loop_states.plan', 'in', plans)
            .execute();
    const memories = new Map(loaded.map((r) => [r.plan, (r.memory as LoopMemory | null) ?? initialLoopMemory(r.plan)]));
    const before = new Map<string, PlanRow>(
      loaded.map((r) => [
        r.plan,
        {
          state: parseLoopState(r.state),
          streamId: r.stream_id,
          memory: memories.get(r.plan) ?? initialLoopMemory(r.plan),
          findingsOpen: r.findings_open,
          spend: Number(r.spend_usd),
        },
      ]),
    );
    const letters: Insertable<JournalTables['letters']>[] = [];
    const escalations: Insertable<JournalTables['escalations']>[] = [];
    const after = new Map<string, PlanRow>();
    const rounds = new Map<string, RoundHistoryRow & { plan: string }>();
    const runs = new Map<string, RunSummaryRow>();
    const learnings = new Map<string, LearningTotals>();
    const detected: Insertable<JournalTables['loop_detections']>[] = [];
    for (const { stored, event } of batch) {
      const plan = planOfStream(stored.streamId);
      const current = after.get(plan) ??
        before.get(plan) ?? {
          state: initialLoopState(plan),
          streamId: null,
          memory: memories.get(plan) ?? initialLoopMemory(plan),
          findingsOpen: null,
          spend: 0,
        };
      // The plan's rows follow its current run, whose stream is its own: another run's events
      // (a submission that lost the slug, an older run's late facts) are never folded in. A
      // PlanSubmitted in a stream of its own starts the current run when the slug is free.
      let streamId = current.streamId;
      if (stored.streamId !== streamId) {
        if (
          event.type !== 'PlanSubmitted' ||
          evolveLoop(current.state, event, stored.streamPosition).run_id !== event.event_id
        )
          continue;
        streamId = stored.streamId;
      }
      const state = evolveLoop(current.state, event, stored.streamPosition);
      const step = evolveMemory(current.memory, event, stored.streamPosition, config);
      if (step.round !== null) rounds.set(`${step.round.run_id}\u0000${step.round.round}`, { ...step.round, plan });
      if (step.run !== null) runs.set(step.run.run_id, step.run);
      for (const delta of step.learnings) addLearning(learnings, delta);
      const spend = current.spend + (event.type === 'UsageRecorded' ? event.data.cost_usd : 0);
      after.set(plan, { state, streamId, memory: step.memory, findingsOpen: findingsOpen(current, state), spend });
      if (event.type === 'LetterWritten') {
        letters.push({
          letter_id: event.data.letter.letter_id,
          plan,
          round: event.data.letter.round,
          stream_position: stored.streamPosition,
          stream_id: stored.streamId,
        });
      } else if (event.type === 'EscalationRaised') {
        escalations.push({
          escalation_id: event.data.escalation_id,
          plan,
          run_id: event.correlation_id,
          event_id: event.event_id,
          stream_position: stored.streamPosition,
          raised_at: event.occurred_at,
          stream_id: stored.streamId,
        });
      } else if (event.type === 'LoopDetected') {
        const { heuristic, round } = event.data;
        const detection = {
          plan,
          run_id: event.correlation_id,
          heuristic,
          round,
          fingerprints: event.data.fingerprints,
          critic_ids: event.data.critic_ids,
          message: event.data.message,
          evidence: event.data.evidence,
        };
        detected.push({
          event_id: event.event_id,
          plan,
          run_id: event.correlation_id,
          round,
          heuristic,
          detection: JSON.stringify(detection),
          status: 'journaled',
          stream_position: stored.streamPosition,
        });
      }
    }
    // Every table is written with one statement per batch, whatever the batch holds.
    if (letters.length > 0)
      await db
        .insertInto('letters')
        .values(letters)
        .onConflict((oc) => oc.column('letter_id').doNothing())
        .execute();
    if (escalations.length > 0)
      await db
        .insertInto('escalations')
        .values(escalations)
        .onConflict((oc) => oc.column('escalation_id').doNothing())
        .execute();
    if (detected.length > 0)
      await db
        .insertInto('loop_detections')
        .values(detected)
        .onConflict((oc) => oc.column('event_id').doNothing())
        .execute();
    if (after.size > 0) {
      const states = [...after].map(([plan, row]) => ({
        plan,
        run_id: row.state.run_id,
        status: row.state.status,
        phase: row.state.run_id === null ? null : row.state.phase,
        round: row.state.round,
        state: JSON.stringify(row.state),
        version: row.state.version,
        findings_open: row.findingsOpen,
        spend_usd: row.spend,
        updated_at: row.state.updated_at,
        stream_id: row.streamId,
      }));
      const memory = [...after].map(([plan, row]) => ({
        plan,
        run_id: row.memory.run_id,
        memory: JSON.stringify(row.memory),
        version: row.memory.version,
      }));
      // Both per-plan rows in one round trip: the state upsert runs as a data-modifying CTE.
      await db
        .with('written_states', (w) =>
          w
            .insertInto('loop_states')
            .values(states)
            .onConflict((oc) =>
              oc.column('plan').doUpdateSet((eb) => ({
                run_id: eb.ref('excluded.run_id'),
                status: eb.ref('excluded.status'),
                phase: eb.ref('excluded.phase'),
                round: eb.ref('excluded.round'),
                state: eb.ref('excluded.state'),
                version: eb.ref('excluded.version'),
                findings_open: eb.ref('excluded.findings_open'),
                spend_usd: eb.ref('excluded.spend_usd'),
                updated_at: eb.ref('excluded.updated_at'),
                stream_id: eb.ref('excluded.stream_id'),
              })),
            )
            .returning('plan'),
        )
        .insertInto('loop_memory')
        .values(memory)
        .onConflict((oc) =>
          oc.column('plan').doUpdateSet((eb) => ({
            run_id: eb.ref('excluded.run_id'),
            memory: eb.ref('excluded.memory'),
            version: eb.ref('excluded.version'),
          })),
        )
        .execute();
    }
    if (rounds.size > 0) {
      const values = [...rounds.values()].map(({ plan, ...row }) => ({
        run_id: row.run_id,
        round: row.round,
        plan,
        phase: row.phase,
        started_at: row.started_at,
        key_moment: row.key_moment,
        row: JSON.stringify(row),
      }));
      await db
        .insertInto('round_history')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['run_id', 'round']).doUpdateSet((eb) => ({
            plan: eb.ref('excluded.plan'),
            phase: eb.ref('excluded.phase'),
            started_at: eb.ref('excluded.started_at'),
            key_moment: eb.ref('excluded.key_moment'),
            row: eb.ref('excluded.row'),
          })),
        )
        .execute();
    }
    if (runs.size > 0) {
      const values = [...runs.values()].map((run) => ({
        run_id: run.run_id,
        plan: run.plan,
        started_at: run.started_at,
        status: run.status,
        summary: JSON.stringify(run),
      }));
      await db
        .insertInto('runs')
        .values(values)
        .onConflict((oc) =>
          oc.column('run_id').doUpdateSet((eb) => ({
            plan: eb.ref('excluded.plan'),
            started_at: eb.ref('excluded.started_at'),
            status: eb.ref('excluded.status'),
            summary: eb.ref('excluded.summary'),
          })),
        )
        .execute();
    }
    if (learnings.size > 0) {
      // Totals are added in SQL, so batches of other partitions updating the same pattern at the
      // same time add up instead of overwriting each other; in key order, so they queue on row
      // locks rather than deadlock. recent_plans: the earlier plans minus this batch's, then this
      // batch's, the last RECENT_PLANS kept.
      const ordered = [...learnings.values()].sort(
        (a, b) => a.critic_id.localeCompare(b.critic_id) || a.finding_type.localeCompare(b.finding_type),
      );
      await db
        .insertInto('learnings')
        .values(
          ordered.map((t) => ({
            critic_id: t.critic_id,
            finding_type: t.finding_type,
            loops: t.loops,
            rounds_seen: t.rounds_seen,
            fixed: t.fixed,
            stuck: t.stuck,
            example_title: t.title,
            last_seen_at: t.at,
            recent_plans: JSON.stringify(t.plans.slice(-RECENT_PLANS)),
          })),
        )
        .onConflict((oc) =>
          oc.columns(['critic_id', 'finding_type']).doUpdateSet({
            loops: sql<number>`learnings.loops + excluded.loops`,
            rounds_seen: sql<number>`learnings.rounds_seen + excluded.rounds_seen`,
            fixed: sql<number>`learnings.fixed + excluded.fixed`,
            stuck: sql<number>`learnings.stuck + excluded.stuck`,
            example_title: sql<string>`excluded.example_title`,
            last_seen_at: sql<string>`excluded.last_seen_at`,
            recent_plans: sql<string>`(
              SELECT COALESCE(jsonb_agg(kept.p ORDER BY kept.ord), '[]'::jsonb) FROM (
                SELECT merged.p, merged.ord FROM (
                  SELECT old.value AS p, old.ord FROM jsonb_array_elements(learnings.recent_plans) WITH ORDINALITY AS old(value, ord)
                    WHERE NOT excluded.recent_plans @> jsonb_build_array(old.value)
                  UNION ALL
                  SELECT new.value, 1000000 + new.ord FROM jsonb_array_elements(excluded.recent_plans) WITH ORDINALITY AS new(value, ord)
                ) AS merged ORDER BY merged.ord DESC LIMIT ${RECENT_PLANS}
              ) AS kept)`,
          }),
        )
        .execute();
    }
    return new Map([...after].map(([plan, row]) => [plan, row.state]));
  };
}
