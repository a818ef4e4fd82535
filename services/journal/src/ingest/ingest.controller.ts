import { Controller, Inject, Logger } from '@nestjs/common';
import { ALL_JOURNALED_EVENTS, type BatchContext, EVENT_PUBLISHER, type EventPublisher, OnEventBatch } from '@rloop/bus';
import { type EventOf, type JournaledEvent, TransientError, currentVersion } from '@rloop/contracts';
import { deterministicId } from '@rloop/domain';
import type { AppendResult, EventStoreClient } from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';
import { toNewEvent } from '../projections/envelope.js';
import { ProjectionCatchUp } from '../projections/catch-up.js';

const PRODUCER = `journal@${process.pid}`;

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
  @OnEventBatch(ALL_JOURNALED_EVENTS, { max: 1000, maxBuffered: 4000, partitions: 4, name: 'journal-ingest', lingerMs: 5 })
  async ingest(events: JournaledEvent[], ctx: BatchContext): Promise<void> {
    const byPlan = new Map<string, JournaledEvent[]>();
    for (const event of events) byPlan.set(event.plan, [...(byPlan.get(event.plan) ?? []), event]);
    const results = await this.store.appendMany([...byPlan].map(([plan, planEvents]) => ({ streamId: plan, events: planEvents.map(toNewEvent), expectedVersion: 'any' as const })));
    ctx.working();
    await this.projections.catchUpTo(results);
    const types = new Map(events.map((e) => [e.event_id, e.type]));
    await Promise.all(results.map((result) => this.announce(result, types)));
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

