import type { Transaction } from 'kysely';
import type { JournaledEvent } from '@rloop/contracts';
import { type LoopState, evolveLoop, initialLoopState } from '@rloop/domain';
import type { EventStoreTransaction, StoredEvent } from '@rloop/event-store';
import { readBack } from './envelope.js';
import type { JournalTables } from './schema.js';

/** The subscription name of the journal's projections (its checkpoint row). */
export const PROJECTIONS_SUBSCRIPTION = 'journal-projections';

interface PlanRow {
  state: LoopState;
  findingsOpen: number | null;
  spend: number;
}

function findingsOpen(previous: PlanRow | undefined, state: LoopState): number | null {
  if (state.current?.letter !== null && state.current?.letter !== undefined) return state.current.letter.findings;
  if (previous !== undefined && previous.state.run_id === state.run_id) return previous.findingsOpen;
  return null;
}

/**
 * Folds a batch of committed events into the projections, inside the subscription's transaction
 * (so the checkpoint commits with them): each plan's loop state (the panel's decision input, the
 * CLI's status), the letter index and the escalation index.
 */
export async function projectBatch(tx: EventStoreTransaction, batch: readonly StoredEvent[]): Promise<void> {
  const db = tx.db as unknown as Transaction<JournalTables>;
  const plans = [...new Set(batch.map((e) => e.streamId))];
  const rows = plans.length === 0 ? [] : await db.selectFrom('loop_states').select(['plan', 'state', 'findings_open', 'spend_usd']).where('plan', 'in', plans).execute();
  const before = new Map<string, PlanRow>(rows.map((r) => [r.plan, { state: r.state as LoopState, findingsOpen: r.findings_open, spend: Number(r.spend_usd) }]));
  const after = new Map<string, PlanRow>();
  for (const stored of batch) {
    const event: JournaledEvent = readBack(stored);
    const plan = stored.streamId;
    const current = after.get(plan) ?? before.get(plan) ?? { state: initialLoopState(plan), findingsOpen: null, spend: 0 };
    const state = evolveLoop(current.state, event, stored.streamPosition);
    const spend = current.spend + (event.type === 'UsageRecorded' ? event.data.cost_usd : 0);
    after.set(plan, { state, findingsOpen: findingsOpen(current, state), spend });
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
    }
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
  }
}
