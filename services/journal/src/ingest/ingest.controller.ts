import { Controller, Inject, Logger } from '@nestjs/common';
import { ALL_JOURNALED_EVENTS, type BatchContext, EVENT_PUBLISHER, type EventPublisher, OnEventBatch } from '@rloop/bus';
import { type EventOf, type JournaledEvent, type Letter, RloopError, TransientError, currentVersion } from '@rloop/contracts';
import { type LoopState, deterministicId } from '@rloop/domain';
import type { AppendResult } from '@rloop/event-store';
import { toNewEvent } from '../projections/envelope.js';
import { ProjectionCatchUp, type ProjectedAppend } from '../projections/catch-up.js';

const PRODUCER = `journal@${process.pid}`;

/** Errors that refuse an event for good (retrying the same event cannot succeed). */
function isRefusal(error: unknown): error is RloopError {
  return error instanceof RloopError && !error.retryable;
}

/**
 * Appends every journaled event from the bus to the store, batched across plans in one
 * transaction that also updates the projections, announces each plan's commit, and only then
 * acks. A redelivered event is a duplicate the store recognises: same positions, no new row, and
 * the announcement goes out again with the same id (the bus drops the copy).
 */
@Controller()
export class IngestController {
  private readonly log = new Logger('Journal');

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(ProjectionCatchUp) private readonly projections: ProjectionCatchUp,
  ) {}

  // Plans are spread over partitions whose batches run concurrently; one plan's events stay in order.
  // A short linger lets a burst (a decision's two events, an instant answer to it) share one commit;
  // under load, messages pile up behind the running batch anyway.
  @OnEventBatch(ALL_JOURNALED_EVENTS, { max: 1000, maxBuffered: 4000, partitions: 2, name: 'journal-ingest', lingerMs: 2 })
  async ingest(events: JournaledEvent[], ctx: BatchContext): Promise<void> {
    const byPlan = new Map<string, { event: JournaledEvent; index: number }[]>();
    events.forEach((event, index) => byPlan.set(event.plan, [...(byPlan.get(event.plan) ?? []), { event, index }]));
    const groups = [...byPlan.values()];
    let projected: ProjectedAppend;
    try {
      projected = await this.projections.appendAndProject(groups.map((group) => ({ streamId: group[0]?.event.plan ?? '', events: group.map((g) => toNewEvent(g.event)), expectedVersion: 'any' as const })));
    } catch (error) {
      if (!isRefusal(error)) throw error;
      projected = await this.appendIsolating(groups, ctx);
    }
    ctx.working();
    const types = new Map(events.map((e) => [e.event_id, e.type]));
    const byStream = new Map<string, AppendResult['events'][number][]>();
    for (const result of projected.results) byStream.set(result.streamId, [...(byStream.get(result.streamId) ?? []), ...result.events]);
    const letters = new Map(events.flatMap((e) => (e.type === 'LetterWritten' ? [[e.plan, e.data.letter] as const] : [])));
    await Promise.all([...byStream].map(([plan, appended]) => this.announce(plan, appended, types, projected.states.get(plan), letters.get(plan))));
  }

  /**
   * The batch held an event the store refuses (an id already stored with other content): append
   * plan by plan, then event by event, so only the refused events are dead-lettered and the rest
   * of the batch is journaled in order.
   */
  private async appendIsolating(groups: readonly { event: JournaledEvent; index: number }[][], ctx: BatchContext): Promise<ProjectedAppend> {
    const results: AppendResult[] = [];
    const states = new Map<string, LoopState>();
    const add = (projected: ProjectedAppend): void => {
      results.push(...projected.results);
      for (const [plan, state] of projected.states) states.set(plan, state);
    };
    for (const group of groups) {
      try {
        add(await this.projections.appendAndProject([{ streamId: group[0]?.event.plan ?? '', events: group.map((g) => toNewEvent(g.event)), expectedVersion: 'any' }]));
        continue;
      } catch (error) {
        if (!isRefusal(error)) throw error;
      }
      for (const { event, index } of group) {
        try {
          add(await this.projections.appendAndProject([{ streamId: event.plan, events: [toNewEvent(event)], expectedVersion: 'any' }]));
        } catch (error) {
          if (!isRefusal(error)) throw error;
          this.log.error(`refused ${event.type} ${event.event_id} of ${event.plan}: ${error.code}: ${error.message}`);
          ctx.reject(index, error);
        }
      }
    }
    return { results, states };
  }

  /**
   * Tells deciders that a plan's events are durable (and projected). Events not in the batch are
   * the LoopDetected events the projections journaled for it.
   */
  private async announce(plan: string, appended: AppendResult['events'], types: ReadonlyMap<string, string>, state: LoopState | undefined, letter: Letter | undefined): Promise<void> {
    const version = Math.max(...appended.map((e) => e.streamPosition));
    const event: EventOf<'JournalCommitted'> = {
      event_id: deterministicId('committed', plan, version),
      type: 'JournalCommitted',
      schema_version: currentVersion('JournalCommitted'),
      plan,
      correlation_id: deterministicId('committed', plan, version),
      causation_id: appended[appended.length - 1]?.eventId ?? null,
      occurred_at: new Date().toISOString(),
      producer: PRODUCER,
      data: {
        stream_version: version,
        events: appended.map((e) => ({ event_id: e.eventId, type: types.get(e.eventId) ?? 'LoopDetected', stream_position: e.streamPosition, global_position: e.globalPosition })),
        // The state folded in this very transaction: deciders need not ask for it (absent after a redelivery).
        ...(state === undefined || state.version !== version ? {} : { loop_state: state as unknown as Record<string, unknown> }),
        ...(letter === undefined ? {} : { letter }),
      },
    };
    try {
      await this.publisher.publish(event);
    } catch (error) {
      this.log.warn(`announcing ${plan}@${version} failed; the batch will be redelivered`);
      throw new TransientError('JOURNAL.ANNOUNCE_FAILED', `could not announce ${plan}@${version}`, { cause: error });
    }
  }
}

