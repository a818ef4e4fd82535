import { Controller, Inject, Logger } from '@nestjs/common';
import {
  ALL_JOURNALED_EVENTS,
  type BatchContext,
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventPublisher,
  OnEventBatch,
  SERVICE_IDENTITY,
  type ServiceIdentity,
} from '@rloop/bus';
import {
  type EventOf,
  type JournaledEvent,
  type Letter,
  type RefusedDecision,
  RloopError,
  TransientError,
  currentVersion,
} from '@rloop/contracts';
import { type LoopState, deterministicId } from '@rloop/domain';
import { type AppendResult, EventIdConflictError } from '@rloop/event-store';
import { type JournaledBatch, ProjectionCatchUp } from '../projections/catch-up.js';
import { planOfStream } from '../streams.js';
import type { PlannedRefusal } from './plan-appends.js';

/** Errors that refuse an event for good (retrying the same event cannot succeed). */
function isRefusal(error: unknown): error is RloopError {
  return error instanceof RloopError && !error.retryable;
}

/** What one announcement says about one run of a plan. */
interface Announcement {
  readonly plan: string;
  readonly runId: string;
  readonly appended: AppendResult['events'];
  readonly refused: readonly RefusedDecision[];
  /** Set when the state is that of this very run at this version. */
  readonly state: LoopState | undefined;
  readonly letter: Letter | undefined;
  /** The type of each event of the batch (every appended event is one of them). */
  readonly types: ReadonlyMap<string, string>;
}

/** The type of an appended event: the journal appends only what its batch holds. */
function typeOf(a: Announcement, eventId: string): string {
  const type = a.types.get(eventId);
  if (type === undefined)
    throw new RloopError(
      'JOURNAL.UNKNOWN_APPENDED_EVENT',
      `${a.plan}: event ${eventId} was appended but is not in the batch`,
    );
  return type;
}

/** Refusals that ask deciders to decide again (a decision for a run that is over asks nothing). */
function asksForDecision(refusal: RefusedDecision): boolean {
  return refusal.reason !== 'other_run';
}

/**
 * Appends every journaled event from the bus to its run's stream — decisions only on the state
 * they were made on — batched across plans in one transaction that also updates the projections,
 * announces each run's commit, and only then acks. A redelivered event is a duplicate the store
 * recognises: same positions, no new row, and the announcement goes out again with the same id (the
 * bus drops the copy). A refused decision is acked (the step is not lost: the announcement tells
 * deciders to decide again on the state it carries); an event that can never be journaled (another
 * journal's history, an id reused with other content) is dead-lettered.
 */
@Controller()
export class IngestController {
  private readonly log = new Logger('Journal');

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(ProjectionCatchUp) private readonly projections: ProjectionCatchUp,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  // Plans are spread over partitions whose batches run concurrently; one plan's events stay in order.
  // A short linger lets a burst (a decision's two events, an instant answer to it) share one commit;
  // under load, messages pile up behind the running batch anyway.
  @OnEventBatch(ALL_JOURNALED_EVENTS, {
    max: 1000,
    maxBuffered: 4000,
    partitions: 2,
    name: 'journal-ingest',
    lingerMs: 2,
  })
  async ingest(events: JournaledEvent[], ctx: BatchContext): Promise<void> {
    let journaled: JournaledBatch;
    try {
      journaled = await this.projections.journal(events);
    } catch (error) {
      if (!isRefusal(error)) throw error;
      journaled = await this.journalIsolating(events);
    }
    for (const { index, error } of journaled.rejected) {
      this.log.error(
        `refused ${events[index]?.type ?? '?'} ${events[index]?.event_id ?? '?'} of ${events[index]?.plan ?? '?'}: ${error.code}: ${error.message}`,
      );
      ctx.reject(index, error);
    }
    for (const r of journaled.refused) {
      this.log.log(
        `${r.plan}: ${r.type} ${r.event_id} from ${r.producer} not appended (${r.reason}: decided on version ${r.expected_version}, the run is at ${r.actual_version}); deciders decide again`,
      );
    }
    ctx.working();
    await Promise.all(this.announcements(events, journaled).map((a) => this.announce(a)));
  }

  /**
   * The batch held an event the store refuses (an id already stored with other content): journal
   * plan by plan, then event by event, so only the refused events are left out and the rest of the
   * batch is journaled in order. A decision refused that way is a concurrent decision of the same
   * step (another replica saw other critics alive): the stored one stands, deciders decide again.
   */
  private async journalIsolating(events: readonly JournaledEvent[]): Promise<JournaledBatch> {
    const byPlan = new Map<string, number[]>();
    events.forEach((event, index) => byPlan.set(event.plan, [...(byPlan.get(event.plan) ?? []), index]));
    const parts: JournaledBatch[] = [];
    const rejected: JournaledBatch['rejected'][number][] = [];
    const refused: PlannedRefusal[] = [];
    const journalPart = async (indexes: readonly number[]): Promise<void> => {
      const part = await this.projections.journal(indexes.map((i) => events[i] as JournaledEvent));
      parts.push(part);
      // Indexes inside the part are the part's own: map them back to the batch's.
      rejected.push(...part.rejected.map((r) => ({ ...r, index: indexes[r.index] ?? r.index })));
      refused.push(...part.refused.map((r) => ({ ...r, index: indexes[r.index] ?? r.index })));
    };
    for (const indexes of byPlan.values()) {
      try {
        await journalPart(indexes);
        continue;
      } catch (error) {
        if (!isRefusal(error)) throw error;
      }
      for (const index of indexes) {
        const event = events[index] as JournaledEvent;
        try {
          await journalPart([index]);
        } catch (error) {
          if (!isRefusal(error)) throw error;
          if (event.decision !== undefined && error instanceof EventIdConflictError) {
            refused.push({
              index,
              plan: event.plan,
              run_id: event.correlation_id,
              producer: event.producer,
              event_id: event.event_id,
              type: event.type,
              expected_version: event.decision.expected_version,
              actual_version: event.decision.expected_version,
              reason: 'concurrent',
            });
          } else {
            rejected.push({ index, error });
          }
        }
      }
    }
    return {
      results: parts.flatMap((p) => p.results),
      runs: new Map(parts.flatMap((p) => [...p.runs])),
      states: new Map(parts.flatMap((p) => [...p.states])),
      refused,
      rejected,
    };
  }

  /** One announcement per run appended to, and one for each plan whose current run had decisions refused and nothing appended. */
  private announcements(events: readonly JournaledEvent[], journaled: JournaledBatch): Announcement[] {
    const letters = new Map(
      events.flatMap((e) => (e.type === 'LetterWritten' ? [[e.plan, e.data.letter] as const] : [])),
    );
    const types = new Map(events.map((e) => [e.event_id, e.type]));
    const byStream = new Map<string, AppendResult['events'][number][]>();
    for (const result of journaled.results)
      byStream.set(result.streamId, [...(byStream.get(result.streamId) ?? []), ...result.events]);
    const refusedByPlan = new Map<string, RefusedDecision[]>();
    for (const r of journaled.refused.filter(asksForDecision)) {
      const { event_id, type, expected_version, actual_version, reason } = r;
      refusedByPlan.set(r.plan, [
        ...(refusedByPlan.get(r.plan) ?? []),
        { event_id, type, expected_version, actual_version, reason },
      ]);
    }
    const announcements: Announcement[] = [];
    for (const [streamId, appended] of byStream) {
      const plan = planOfStream(streamId);
      const runId = journaled.runs.get(streamId) ?? '';
      const state = journaled.states.get(plan);
      const current = state !== undefined && state.run_id === runId;
      const refused = current ? (refusedByPlan.get(plan) ?? []) : [];
      if (current) refusedByPlan.delete(plan);
      announcements.push({
        plan,
        runId,
        appended,
        refused,
        state: current ? state : undefined,
        letter: letters.get(plan),
        types,
      });
    }
    for (const [plan, refused] of refusedByPlan) {
      const run = journaled.refused.find((r) => r.plan === plan && asksForDecision(r))?.run_id ?? '';
      announcements.push({ plan, runId: run, appended: [], refused, state: undefined, letter: undefined, types });
    }
    return announcements;
  }

  /**
   * Tells deciders that a run's events are durable (and projected), and which decisions were
   * refused. An announcement of refusals alone carries the run's state as the journal has it now.
   */
  private async announce(a: Announcement): Promise<void> {
    const positions = a.appended.map((e) => e.streamPosition);
    const version =
      positions.length > 0 ? Math.max(...positions) : Math.max(0, ...a.refused.map((r) => r.actual_version));
    if (version < 1) return;
    const id =
      a.appended.length > 0
        ? deterministicId('committed', a.plan, a.runId, version)
        : deterministicId(
            'committed',
            a.plan,
            a.runId,
            version,
            'refused',
            ...a.refused.map((r) => `${r.event_id}@${r.expected_version}`),
          );
    const event: EventOf<'JournalCommitted'> = {
      event_id: id,
      type: 'JournalCommitted',
      schema_version: currentVersion('JournalCommitted'),
      plan: a.plan,
      correlation_id: id,
      causation_id: a.appended[a.appended.length - 1]?.eventId ?? a.refused[0]?.event_id ?? null,
      occurred_at: this.clock.now().toISOString(),
      producer: this.identity.producer,
      data: {
        run_id: a.runId === '' ? null : a.runId,
        stream_version: version,
        events: a.appended.map((e) => ({
          event_id: e.eventId,
          type: typeOf(a, e.eventId),
          stream_position: e.streamPosition,
          global_position: e.globalPosition,
        })),
        refused: [...a.refused],
        // The state folded in this very transaction: deciders need not ask for it (absent after a redelivery).
        ...(a.state === undefined || a.state.version !== version ? {} : { loop_state: a.state }),
        ...(a.letter === undefined ? {} : { letter: a.letter }),
      },
    };
    try {
      await this.publisher.publish(event);
    } catch (error) {
      this.log.warn(`announcing ${a.plan}@${version} failed; the batch will be redelivered`);
      throw new TransientError('JOURNAL.ANNOUNCE_FAILED', `could not announce ${a.plan}@${version}`, { cause: error });
    }
  }
}
