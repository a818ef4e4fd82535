import type { Transaction } from 'kysely';
import type { JournaledEvent } from '@rloop/contracts';
import {
  DEFAULT_LOOP_CONFIG,
  type LearningDelta,
  type LoopConfig,
  type LoopDetection,
  type LoopMemory,
  type LoopState,
  type RoundHistoryRow,
  type RunSummaryRow,
  disagreementOf,
  evolveLoop,
  evolveMemory,
  initialLoopMemory,
  initialLoopState,
  noteDetection,
} from '@rloop/domain';
import type { EventStoreTransaction, StoredEvent, SubscriptionHandler } from '@rloop/event-store';
import { readBack } from './envelope.js';
import type { JournalTables } from './schema.js';

/** The subscription name of the journal's projections (its checkpoint row). */
export const PROJECTIONS_SUBSCRIPTION = 'journal-projections';

/** How many plans a learning remembers by name. */
const RECENT_PLANS = 5;

interface PlanRow {
  state: LoopState;
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
  const t = totals.get(key) ?? { critic_id: delta.critic_id, finding_type: delta.finding_type, loops: 0, rounds_seen: 0, fixed: 0, stuck: 0, title: delta.title, at: delta.at, plans: [] };
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
 * (so the checkpoint commits with them). Per plan: the loop state (the panel's decision input, the
 * CLI's status) and the loop memory, which runs the loop-detection heuristics incrementally; a
 * detection is put into the loop state in the same transaction as the event that fired it, so
 * the panel can never decide on that event without it. Also: the letter and escalation indexes,
 * the round history, the run summaries (calibration), the learnings and the detections still to
 * be journaled as LoopDetected. Every update touches a bounded number of rows, whatever the round.
 */
export function projectionHandler(config: LoopConfig = DEFAULT_LOOP_CONFIG): SubscriptionHandler {
  return async (tx: EventStoreTransaction, batch: readonly StoredEvent[]): Promise<void> => {
    const db = tx.db as unknown as Transaction<JournalTables>;
    const plans = [...new Set(batch.map((e) => e.streamId))];
    const [stateRows, memoryRows] =
      plans.length === 0
        ? [[], []]
        : await Promise.all([
            db.selectFrom('loop_states').select(['plan', 'state', 'findings_open', 'spend_usd']).where('plan', 'in', plans).execute(),
            db.selectFrom('loop_memory').select(['plan', 'memory']).where('plan', 'in', plans).execute(),
          ]);
    const memories = new Map(memoryRows.map((r) => [r.plan, r.memory as LoopMemory]));
    const before = new Map<string, PlanRow>(
      stateRows.map((r) => [r.plan, { state: r.state as LoopState, memory: memories.get(r.plan) ?? initialLoopMemory(r.plan), findingsOpen: r.findings_open, spend: Number(r.spend_usd) }]),
    );
    const after = new Map<string, PlanRow>();
    const rounds = new Map<string, RoundHistoryRow & { plan: string }>();
    const runs = new Map<string, RunSummaryRow>();
    const learnings = new Map<string, LearningTotals>();
    const detections: LoopDetection[] = [];
    const journaled: { event_id: string; position: number }[] = [];
    for (const stored of batch) {
      const event: JournaledEvent = readBack(stored);
      const plan = stored.streamId;
      const current = after.get(plan) ?? before.get(plan) ?? { state: initialLoopState(plan), memory: memories.get(plan) ?? initialLoopMemory(plan), findingsOpen: null, spend: 0 };
      let state = evolveLoop(current.state, event, stored.streamPosition);
      const step = evolveMemory(current.memory, event, stored.streamPosition, config);
      for (const detection of step.detections) {
        const disagreement = disagreementOf(detection.evidence);
        state = noteDetection(state, { ...detection, ...(disagreement === undefined ? {} : { disagreement }) });
        detections.push(detection);
      }
      if (step.round !== null) rounds.set(`${step.round.run_id}\u0000${step.round.round}`, { ...step.round, plan });
      if (step.run !== null) runs.set(step.run.run_id, step.run);
      for (const delta of step.learnings) addLearning(learnings, delta);
      const spend = current.spend + (event.type === 'UsageRecorded' ? event.data.cost_usd : 0);
      after.set(plan, { state, memory: step.memory, findingsOpen: findingsOpen(current, state), spend });
      if (event.type === 'LetterWritten') {
        await db
          .insertInto('letters')
          .values({ letter_id: event.data.letter.letter_id, plan, round: event.data.letter.round, stream_position: stored.streamPosition })
          .onConflict((oc) => oc.column('letter_id').doNothing())
          .execute();
      } else if (event.type === 'EscalationRaised') {
        await db
          .insertInto('escalations')
          .values({ escalation_id: event.data.escalation_id, plan, run_id: event.correlation_id, event_id: event.event_id, stream_position: stored.streamPosition, raised_at: event.occurred_at })
          .onConflict((oc) => oc.column('escalation_id').doNothing())
          .execute();
      } else if (event.type === 'LoopDetected') {
        journaled.push({ event_id: event.event_id, position: stored.streamPosition });
      }
    }
    for (const d of detections) {
      await db
        .insertInto('loop_detections')
        .values({ event_id: d.event_id, plan: d.plan, run_id: d.run_id, round: d.round, heuristic: d.heuristic, detection: JSON.stringify(d), status: 'pending', stream_position: null })
        .onConflict((oc) => oc.column('event_id').doNothing())
        .execute();
    }
    for (const j of journaled) {
      await db.updateTable('loop_detections').set({ status: 'journaled', stream_position: j.position }).where('event_id', '=', j.event_id).execute();
    }
    for (const [plan, row] of after) {
      const { state } = row;
      const values = {
        plan,
        run_id: state.run_id,
        status: state.status,
        phase: state.run_id === null ? null : state.phase,
        round: state.round,
        state: JSON.stringify(state),
        version: state.version,
        findings_open: row.findingsOpen,
        spend_usd: row.spend,
        updated_at: state.updated_at,
      };
      await db
        .insertInto('loop_states')
        .values(values)
        .onConflict((oc) => oc.column('plan').doUpdateSet(values))
        .execute();
      const memory = { plan, run_id: row.memory.run_id, memory: JSON.stringify(row.memory), version: row.memory.version };
      await db
        .insertInto('loop_memory')
        .values(memory)
        .onConflict((oc) => oc.column('plan').doUpdateSet(memory))
        .execute();
    }
    for (const r of rounds.values()) {
      const { plan, ...row } = r;
      const values = { run_id: row.run_id, round: row.round, plan, phase: row.phase, started_at: row.started_at, key_moment: row.key_moment, row: JSON.stringify(row) };
      await db
        .insertInto('round_history')
        .values(values)
        .onConflict((oc) => oc.columns(['run_id', 'round']).doUpdateSet(values))
        .execute();
    }
    for (const run of runs.values()) {
      const values = { run_id: run.run_id, plan: run.plan, started_at: run.started_at, status: run.status, summary: JSON.stringify(run) };
      await db
        .insertInto('runs')
        .values(values)
        .onConflict((oc) => oc.column('run_id').doUpdateSet(values))
        .execute();
    }
    for (const t of learnings.values()) {
      const existing = await db.selectFrom('learnings').select(['loops', 'rounds_seen', 'fixed', 'stuck', 'recent_plans']).where('critic_id', '=', t.critic_id).where('finding_type', '=', t.finding_type).executeTakeFirst();
      const plansBefore = (existing?.recent_plans as string[] | undefined) ?? [];
      const recent = [...plansBefore.filter((p) => !t.plans.includes(p)), ...t.plans].slice(-RECENT_PLANS);
      const values = {
        critic_id: t.critic_id,
        finding_type: t.finding_type,
        loops: (existing?.loops ?? 0) + t.loops,
        rounds_seen: (existing?.rounds_seen ?? 0) + t.rounds_seen,
        fixed: (existing?.fixed ?? 0) + t.fixed,
        stuck: (existing?.stuck ?? 0) + t.stuck,
        example_title: t.title,
        last_seen_at: t.at,
        recent_plans: JSON.stringify(recent),
      };
      await db
        .insertInto('learnings')
        .values(values)
        .onConflict((oc) => oc.columns(['critic_id', 'finding_type']).doUpdateSet(values))
        .execute();
    }
  };
}

/** The projections with the shipped loop configuration (kept for callers that pass no config). */
export const projectBatch: SubscriptionHandler = projectionHandler();
