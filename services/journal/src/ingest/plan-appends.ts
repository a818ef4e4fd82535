import {
  ConflictError,
  type JournaledEvent,
  type RefusedDecision,
  type RloopError,
  ValidationError,
} from '@rloop/contracts';
import { DECISION_TYPES, type LoopState, admitDecision, evolveLoop, initialLoopState } from '@rloop/domain';
import type { ExpectedVersion } from '@rloop/event-store';
import { runStreamId } from '../streams.js';

/** A plan's current run as the journal has it: its folded state and the stream it lives in. */
export interface CurrentRun {
  readonly state: LoopState;
  /** Null before the plan's first run. */
  readonly streamId: string | null;
}

/** What one stream gets from a batch. */
export interface PlannedAppend {
  readonly streamId: string;
  readonly plan: string;
  /** The run the stream holds (its PlanSubmitted's id). */
  readonly runId: string;
  /** Exact for the plan's current run (its version when the batch began), `no_stream` for a run this batch starts, `any` for an older run's late facts. */
  readonly expectedVersion: ExpectedVersion;
  readonly events: { readonly event: JournaledEvent; readonly index: number }[];
}

export interface PlannedRefusal extends RefusedDecision {
  readonly index: number;
  readonly plan: string;
  readonly run_id: string;
  readonly producer: string;
}

export interface AppendPlan {
  readonly appends: readonly PlannedAppend[];
  /** Decisions not appended because the state they were made on no longer holds (acked; deciders decide again). */
  readonly refused: readonly PlannedRefusal[];
  /** Events refused for good (dead-lettered): orphans of runs this journal never saw, decisions without their version. */
  readonly rejected: readonly { readonly index: number; readonly error: RloopError }[];
}

/** An event of a run whose PlanSubmitted this journal does not hold (another journal's history). */
export class OrphanEventError extends ConflictError {
  constructor(event: JournaledEvent) {
    super(
      'JOURNAL.ORPHAN_EVENT',
      `${event.type} ${event.event_id} belongs to run ${event.correlation_id} of ${event.plan}, which this journal never saw (no PlanSubmitted ${event.correlation_id}): it is another journal's history and is not mixed into this one`,
    );
  }
}

/** Where a batch's events go and which of its decisions still stand (see planAppends). */
interface Cursor {
  state: LoopState;
  streamId: string | null;
}

/**
 * Plans a batch of journaled events (pure): each event goes to its run's stream; decisions are
 * checked, in order, against their run's state folded up to them (admitDecision); duplicates
 * (ids already stored) pass through so the store returns their original positions. `stored` maps
 * ids already in the journal — the batch's own and its runs' — to the stream holding them.
 */
export function planAppends(
  events: readonly JournaledEvent[],
  runs: ReadonlyMap<string, CurrentRun>,
  stored: ReadonlyMap<string, string>,
): AppendPlan {
  const cursors = new Map<string, Cursor>();
  const appends = new Map<string, PlannedAppend>();
  const started = new Map<string, string>();
  const refused: PlannedRefusal[] = [];
  const rejected: { index: number; error: RloopError }[] = [];

  const add = (
    streamId: string,
    runId: string,
    event: JournaledEvent,
    index: number,
    expectedVersion: () => ExpectedVersion,
  ): void => {
    const existing = appends.get(streamId);
    if (existing !== undefined) existing.events.push({ event, index });
    else
      appends.set(streamId, {
        streamId,
        plan: event.plan,
        runId,
        expectedVersion: expectedVersion(),
        events: [{ event, index }],
      });
  };

  const seen = new Set<string>();
  events.forEach((event, index) => {
    // The same message twice in one batch (a redelivery overtaking its first copy): once is enough.
    if (seen.has(event.event_id)) return;
    seen.add(event.event_id);
    const initial = runs.get(event.plan);
    const cursor = cursors.get(event.plan) ?? {
      state: initial?.state ?? initialLoopState(event.plan),
      streamId: initial?.streamId ?? null,
    };
    cursors.set(event.plan, cursor);
    const startsRun =
      event.type === 'PlanSubmitted' || (event.type === 'PlanRejected' && event.correlation_id === event.event_id);
    const runId = event.type === 'PlanSubmitted' ? event.event_id : event.correlation_id;
    const streamId = stored.get(runId) ?? started.get(runId) ?? (startsRun ? runStreamId(event.plan, runId) : null);
    if (streamId === null) {
      rejected.push({ index, error: new OrphanEventError(event) });
      return;
    }
    if (startsRun && !stored.has(runId)) started.set(runId, streamId);
    const fresh = !stored.has(runId) && startsRun;
    const isCurrent = streamId === cursor.streamId;
    const expected = (): ExpectedVersion => (fresh ? 'no_stream' : isCurrent ? cursor.state.version : 'any');
    if (stored.has(event.event_id)) {
      // Already journaled (a redelivery, a second replica's copy): the store returns where it is.
      add(streamId, runId, event, index, expected);
      return;
    }
    if (DECISION_TYPES.has(event.type) && event.decision === undefined) {
      rejected.push({
        index,
        error: new ValidationError(
          'JOURNAL.UNVERSIONED_DECISION',
          `${event.type} ${event.event_id} of ${event.plan} is a decision without the version it was made on (envelope field decision)`,
          [{ path: 'decision', message: 'required on decisions' }],
        ),
      });
      return;
    }
    if (event.type === 'PlanSubmitted') {
      add(streamId, runId, event, index, expected);
      const next = evolveLoop(cursor.state, event, 1);
      // The first submission the journal commits while the slug is free starts the plan's current run.
      if (next.run_id === event.event_id) {
        cursor.state = next;
        cursor.streamId = streamId;
      }
      return;
    }
    const decision = event.decision;
    if (decision !== undefined) {
      const refuse = (reason: RefusedDecision['reason'], actual: number): void => {
        refused.push({
          index,
          plan: event.plan,
          run_id: runId,
          producer: event.producer,
          event_id: event.event_id,
          type: event.type,
          expected_version: decision.expected_version,
          actual_version: actual,
          reason,
        });
      };
      if (!isCurrent) {
        refuse('other_run', cursor.state.version);
        return;
      }
      const admission = admitDecision(cursor.state, decision);
      if (!admission.admitted) {
        refuse(admission.reason, admission.actualVersion);
        return;
      }
    }
    add(streamId, runId, event, index, expected);
    if (isCurrent) cursor.state = evolveLoop(cursor.state, event, cursor.state.version + 1);
  });
  return { appends: [...appends.values()], refused, rejected };
}
