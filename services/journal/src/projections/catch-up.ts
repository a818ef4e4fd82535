import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { EVENT_PUBLISHER, type EventPublisher } from '@rloop/bus';
import { type JournaledEvent, describeError } from '@rloop/contracts';
import { DEFAULT_LOOP_CONFIG, type LoopConfig, type LoopDetection, type LoopState, TERMINAL_STATUSES, loopDetectedEvent } from '@rloop/domain';
import type { AppendResult, EventStoreClient, StoredEvent, StreamAppend, SubscriptionHandler } from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';
import { LOOP_CONFIG } from './loop-config.js';
import { readBack, toEnvelope, toNewEvent } from './envelope.js';
import { PROJECTIONS_SUBSCRIPTION, type ProjectedEvent, projectionHandler } from './loop-states.projection.js';
import { type JournalTables, resetProjectionTables } from './schema.js';

const PRODUCER = `journal@${process.pid}`;

/** What an append with its inline projection produced: the positions, and each touched plan's loop state. */
export interface ProjectedAppend {
  readonly results: readonly AppendResult[];
  readonly states: ReadonlyMap<string, LoopState>;
}

/**
 * The journal's projections: applied inline with every append (appendAndProject), and replayed
 * from zero through the store's checkpointed subscription on a rebuild (the same handler, in the
 * global order).
 */
@Injectable()
export class ProjectionCatchUp {
  private readonly log = new Logger('Projections');
  private readonly handler;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStoreClient,
    @Optional() @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher | null = null,
    @Optional() @Inject(LOOP_CONFIG) readonly loopConfig: LoopConfig = DEFAULT_LOOP_CONFIG,
  ) {
    this.handler = projectionHandler(loopConfig);
  }

  private get db(): Kysely<JournalTables> {
    return this.store.db as unknown as Kysely<JournalTables>;
  }

  /** Replays events past the subscription's checkpoint: only after a reset, since live appends project inline. */
  private async catchUp(): Promise<number> {
    // Replays read every event back through its contract (upcasting old versions).
    const replay: SubscriptionHandler = async (tx, events) => {
      await this.handler(
        tx,
        events.map((stored) => ({ stored, event: readBack(stored) })),
      );
    };
    return (await this.store.catchUp(PROJECTIONS_SUBSCRIPTION, replay, { batchSize: 1000 })).processed;
  }

  /**
   * Appends events and projects them in the same transaction (an inline projection): the loop
   * state a decider reads after the announcement can never lag the events it announces, and one
   * commit does both. Per-plan projections only need each plan's own order, which the append
   * gives; the cross-plan ones (learnings, run summaries) add up, so order does not matter to them.
   * Events the store already had (a redelivery) are not projected again. Then the LoopDetected
   * events the projection fired are journaled (the same way) before the caller announces.
   */
  async appendAndProject(appends: readonly StreamAppend[]): Promise<ProjectedAppend> {
    const first = await this.appendInline(appends);
    const detected = await this.journalDetections([...new Set(first.results.map((r) => r.streamId))]);
    return { results: [...first.results, ...detected.results], states: new Map([...first.states, ...detected.states]) };
  }

  private appendInline(appends: readonly StreamAppend[]): Promise<ProjectedAppend> {
    return this.store.transaction(async (tx) => {
      const results = await tx.appendMany(appends);
      const recordedAt = new Date().toISOString();
      const fresh: ProjectedEvent[] = [];
      results.forEach((result, index) => {
        const input = appends[index]?.events ?? [];
        result.events.forEach((appended, i) => {
          const event = input[i];
          if (appended.duplicate || event === undefined) return;
          const stored: StoredEvent = {
            globalPosition: appended.globalPosition,
            transactionId: appended.transactionId,
            streamId: result.streamId,
            streamPosition: appended.streamPosition,
            eventId: appended.eventId,
            type: event.type,
            schemaVersion: event.schemaVersion,
            data: event.data,
            metadata: event.metadata ?? {},
            recordedAt,
          };
          // Validated when it arrived (or built by the domain): not parsed a second time here.
          fresh.push({ stored, event: toEnvelope(stored) as unknown as JournaledEvent });
        });
      });
      const states = fresh.length > 0 ? await this.handler(tx, fresh) : new Map<string, LoopState>();
      return { results, states };
    });
  }

  /**
   * Appends the LoopDetected events of the detections the projections made for these plans (the
   * journal writes them itself, before it announces the commit that fired them), then publishes
   * them for anyone following the bus. Ids are derived from plan, run, heuristic and round, so a
   * second journal replica or a redelivered batch appends nothing new. A detection for a run or a
   * round that is over (a replay with other thresholds) is marked stale, never journaled late.
   */
  private async journalDetections(plans: readonly string[]): Promise<ProjectedAppend> {
    const none: ProjectedAppend = { results: [], states: new Map() };
    if (plans.length === 0) return none;
    const pending = await this.db.selectFrom('loop_detections').select(['event_id', 'plan', 'detection']).where('plan', 'in', plans).where('status', '=', 'pending').execute();
    if (pending.length === 0) return none;
    const states = await this.db.selectFrom('loop_states').select(['plan', 'state']).where('plan', 'in', [...new Set(pending.map((p) => p.plan))]).execute();
    const byPlan = new Map(states.map((s) => [s.plan, s.state as LoopState]));
    const live: LoopDetection[] = [];
    const stale: string[] = [];
    for (const row of pending) {
      const detection = row.detection as LoopDetection;
      const state = byPlan.get(row.plan);
      const current = state !== undefined && state.run_id === detection.run_id && state.round === detection.round && !TERMINAL_STATUSES.has(state.status);
      if (current) live.push(detection);
      else stale.push(row.event_id);
    }
    if (stale.length > 0) await this.db.updateTable('loop_detections').set({ status: 'stale' }).where('event_id', 'in', stale).where('status', '=', 'pending').execute();
    if (live.length === 0) return none;
    const events = live.map((d) => loopDetectedEvent(d, PRODUCER));
    const byStream = new Map<string, typeof events>();
    for (const e of events) byStream.set(e.plan, [...(byStream.get(e.plan) ?? []), e]);
    const appended = await this.appendInline([...byStream].map(([streamId, list]) => ({ streamId, events: list.map(toNewEvent), expectedVersion: 'any' as const })));
    if (this.publisher !== null) {
      for (const e of events) {
        try {
          await this.publisher.publish(e);
        } catch (error) {
          // The journal holds the event and the loop state already acts on it; only followers of the bus miss the copy.
          this.log.warn(`publishing ${e.type} ${e.event_id} of ${e.plan} failed: ${describeError(error)}`);
        }
      }
    }
    return appended;
  }

  /** Rebuilds every projection from zero; returns how many events were replayed. */
  async rebuild(): Promise<number> {
    await this.store.resetSubscription(PROJECTIONS_SUBSCRIPTION, (tx) => resetProjectionTables(tx.db as unknown as Kysely<JournalTables>));
    return this.catchUp();
  }
}
