import { Controller, Inject, Logger } from '@nestjs/common';
import { ALL_JOURNALED_EVENTS, type BatchContext, EVENT_PUBLISHER, type EventPublisher, OnEventBatch } from '@rloop/bus';
import { type EventOf, type JournaledEvent, RloopError, TransientError, currentVersion } from '@rloop/contracts';
import { deterministicId } from '@rloop/domain';
import type { AppendResult, EventStoreClient } from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';
import { toNewEvent } from '../projections/envelope.js';
import { ProjectionCatchUp } from '../projections/catch-up.js';

const PRODUCER = `journal@${process.pid}`;

/** Errors that refuse an event for good (retrying the same event cannot succeed). */
function isRefusal(error: unknown): error is RloopError {
  return error instanceof RloopError && !error.retryable;
}

/**
 * Appends every journaled event from the bus to the store, batched across plans in one
 * transaction, brings the projections up to date, announces each plan's commit, and only then
 * acks. A redelivered event is a duplicate the store recognises: same positions, no new row, and
 * the announcement goes out again with the same id (the bus drops the copy).
 */
@Controller()
export class IngestController {
  private readonly log = new Logger('Journal');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStoreClient,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(ProjectionCatchUp) private readonly projections: ProjectionCatchUp,
  ) {}

  // Plans are spread over partitions whose batches run concurrently; one plan's events stay in order.
  // No linger: a batch starts at once (latency); under load, messages pile up behind the running one.
  @OnEventBatch(ALL_JOURNALED_EVENTS, { max: 1000, maxBuffered: 4000, partitions: 4, name: 'journal-ingest', lingerMs: 0 })
  async ingest(events: JournaledEvent[], ctx: BatchContext): Promise<void> {
    const byPlan = new Map<string, { event: JournaledEvent; index: number }[]>();
    events.forEach((event, index) => byPlan.set(event.plan, [...(byPlan.get(event.plan) ?? []), { event, index }]));
    const groups = [...byPlan.values()];
    let results: AppendResult[];
    try {
      results = await this.store.appendMany(groups.map((group) => ({ streamId: group[0]?.event.plan ?? '', events: group.map((g) => toNewEvent(g.event)), expectedVersion: 'any' as const })));
    } catch (error) {
      if (!isRefusal(error)) throw error;
      results = await this.appendIsolating(groups, ctx);
    }
    ctx.working();
    if (results.length === 0) return;
    await this.projections.catchUpTo(results);
    const types = new Map(events.map((e) => [e.event_id, e.type]));
    await Promise.all(results.map((result) => this.announce(result, types)));
  }

  /**
   * The batch held an event the store refuses (an id already stored with other content): append
   * plan by plan, then event by event, so only the refused events are dead-lettered and the rest
   * of the batch is journaled in order.
   */
  private async appendIsolating(groups: readonly { event: JournaledEvent; index: number }[][], ctx: BatchContext): Promise<AppendResult[]> {
    const results: AppendResult[] = [];
    for (const group of groups) {
      try {
        results.push(await this.store.append(group[0]?.event.plan ?? '', group.map((g) => toNewEvent(g.event)), { expectedVersion: 'any' }));
        continue;
      } catch (error) {
        if (!isRefusal(error)) throw error;
      }
      for (const { event, index } of group) {
        try {
          results.push(await this.store.append(event.plan, [toNewEvent(event)], { expectedVersion: 'any' }));
        } catch (error) {
          if (!isRefusal(error)) throw error;
          this.log.error(`refused ${event.type} ${event.event_id} of ${event.plan}: ${error.code}: ${error.message}`);
          ctx.reject(index, error);
        }
      }
    }
    return results;
  }

  /** Tells deciders that a plan's events are durable (and projected). */
  private async announce(result: AppendResult, types: ReadonlyMap<string, string>): Promise<void> {
    const version = Math.max(...result.events.map((e) => e.streamPosition));
    const event: EventOf<'JournalCommitted'> = {
      event_id: deterministicId('committed', result.streamId, version),
      type: 'JournalCommitted',
      schema_version: currentVersion('JournalCommitted'),
      plan: result.streamId,
      correlation_id: deterministicId('committed', result.streamId, version),
      causation_id: result.events[result.events.length - 1]?.eventId ?? null,
      occurred_at: new Date().toISOString(),
      producer: PRODUCER,
      data: {
        stream_version: version,
        events: result.events.map((e) => ({ event_id: e.eventId, type: types.get(e.eventId) ?? 'unknown', stream_position: e.streamPosition, global_position: e.globalPosition })),
      },
    };
    try {
      await this.publisher.publish(event);
    } catch (error) {
      this.log.warn(`announcing ${result.streamId}@${version} failed; the batch will be redelivered`);
      throw new TransientError('JOURNAL.ANNOUNCE_FAILED', `could not announce ${result.streamId}@${version}`, { cause: error });
    }
  }
}

