import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { CLOCK, type Clock } from '@rloop/bus';
import { type JournaledEvent, describeError, parseLoopState } from '@rloop/contracts';
import { DEFAULT_LOOP_CONFIG, type LoopConfig, type LoopState } from '@rloop/domain';
import {
  type AppendResult,
  type EventStoreClient,
  type EventStoreTransaction,
  type StoredEvent,
  type StreamAppend,
  type SubscriptionHandler,
  TransactionConflictError,
  VersionConflictError,
} from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';
import { type AppendPlan, type CurrentRun, type PlannedRefusal, planAppends } from '../ingest/plan-appends.js';
import { LOOP_CONFIG } from './loop-config.js';
import { readBack, toEnvelope, toNewEvent } from './envelope.js';
import { PROJECTIONS_SUBSCRIPTION, type ProjectedEvent, projectionHandler } from './loop-states.projection.js';
import { type JournalTables, resetProjectionTables } from './schema.js';

const NOTHING_APPENDED: ProjectedAppend = { results: [], runs: new Map(), states: new Map() };
/** Times a batch is planned again when another journal appended to one of its runs meanwhile. */
const RACE_RETRIES = 3;

/** What an append with its inline projection produced: the positions, each stream's run, and each touched plan's loop state. */
export interface ProjectedAppend {
  readonly results: readonly AppendResult[];
  /** The run each appended stream holds. */
  readonly runs: ReadonlyMap<string, string>;
  readonly states: ReadonlyMap<string, LoopState>;
}

/** What journaling a batch came to: the appends, the refused decisions and the rejected events. */
export interface JournaledBatch extends ProjectedAppend {
  readonly refused: readonly PlannedRefusal[];
  readonly rejected: AppendPlan['rejected'];
}

/**
 * The journal's projections: applied inline with every append (appendAndProject), and replayed
 * from zero through the store's checkpointed subscription on a rebuild (the same handler, in the
 * global order). The journal stores and projects; it decides nothing: loop detection is the
 * panel's reactor (services/panel/src/detection), whose LoopDetected comes in like any decision.
 */
@Injectable()
export class ProjectionCatchUp {
  private readonly log = new Logger('Projections');
  private readonly handler;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStoreClient,
    @Inject(CLOCK) private readonly clock: Clock,
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
   * Events the store already had (a redelivery) are not projected again.
   */
  async appendAndProject(appends: readonly StreamAppend[]): Promise<ProjectedAppend> {
    return this.store.transaction((tx) => this.appendInline(tx, appends));
  }

  /**
   * Journals a batch from the bus (see planAppends): each event into its run's stream, each
   * decision only if the state it was made on still holds — in one transaction with the
   * projections and the record of what was refused. Another journal appending to one of the batch's runs meanwhile makes the plan stale:
   * it is planned again on the new state.
   */
  async journal(events: readonly JournaledEvent[]): Promise<JournaledBatch> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.store.transaction((tx) => this.journalInline(tx, events));
      } catch (error) {
        if (
          attempt >= RACE_RETRIES ||
          !(error instanceof VersionConflictError || error instanceof TransactionConflictError)
        )
          throw error;
        this.log.warn(
          `another writer appended to a run of this batch meanwhile (${describeError(error)}); planning it again`,
        );
      }
    }
  }

  private async journalInline(tx: EventStoreTransaction, events: readonly JournaledEvent[]): Promise<JournaledBatch> {
    const db = tx.db as unknown as Kysely<JournalTables>;
    const plans = [...new Set(events.map((e) => e.plan))];
    const ids = [...new Set(events.flatMap((e) => [e.event_id, e.correlation_id]))];
    const [rows, stored] = await Promise.all([
      db.selectFrom('loop_states').select(['plan', 'state', 'stream_id']).where('plan', 'in', plans).execute(),
      db.selectFrom('events').select(['event_id', 'stream_id']).where('event_id', 'in', ids).execute(),
    ]);
    const runs = new Map<string, CurrentRun>(
      rows.map((r) => [r.plan, { state: parseLoopState(r.state), streamId: r.stream_id }]),
    );
    const plan = planAppends(events, runs, new Map(stored.map((r) => [r.event_id, r.stream_id])));
    const appends: StreamAppend[] = plan.appends.map((a) => ({
      streamId: a.streamId,
      events: a.events.map((e) => toNewEvent(e.event)),
      expectedVersion: a.expectedVersion,
    }));
    const projected = appends.length === 0 ? NOTHING_APPENDED : await this.appendInline(tx, appends);
    if (plan.refused.length > 0) {
      await db
        .insertInto('refused_decisions')
        .values(
          plan.refused.map((r) => ({
            event_id: r.event_id,
            expected_version: r.expected_version,
            plan: r.plan,
            run_id: r.run_id,
            type: r.type,
            actual_version: r.actual_version,
            reason: r.reason,
            producer: r.producer,
          })),
        )
        .onConflict((oc) => oc.columns(['event_id', 'expected_version']).doNothing())
        .execute();
    }
    return { ...projected, refused: plan.refused, rejected: plan.rejected };
  }

  private async appendInline(tx: EventStoreTransaction, appends: readonly StreamAppend[]): Promise<ProjectedAppend> {
    const results = await tx.appendMany(appends);
    // What the inline projection sees as the record time (a replay reads the stored one back).
    const recordedAt = this.clock.now().toISOString();
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
    // A stream holds one run: the one its first event of this append belongs to (a PlanSubmitted is its own run).
    const runs = new Map(appends.map((a) => [a.streamId, String(a.events[0]?.metadata?.correlation_id ?? '')]));
    return { results, runs, states };
  }

  /** Rebuilds every projection from zero; returns how many events were replayed. */
  async rebuild(): Promise<number> {
    const stored = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirst();
    const target = Number(stored?.n ?? 0);
    await this.store.resetSubscription(PROJECTIONS_SUBSCRIPTION, (tx) =>
      resetProjectionTables(tx.db as unknown as Kysely<JournalTables>),
    );
    // The store reads only below the oldest transaction still running on the server (any
    // database's): a catch-up can stop short while one is open. Every event stored when the
    // rebuild began is replayed before it returns.
    let replayed = await this.catchUp();
    while (replayed < target) {
      await this.store.waitForCommit({ timeoutMs: 100 });
      replayed += await this.catchUp();
    }
    return replayed;
  }
}
