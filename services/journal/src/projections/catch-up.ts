import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { EVENT_PUBLISHER, type EventPublisher } from '@rloop/bus';
import { TransientError, describeError } from '@rloop/contracts';
import { DEFAULT_LOOP_CONFIG, type LoopConfig, type LoopDetection, type LoopState, TERMINAL_STATUSES, loopDetectedEvent } from '@rloop/domain';
import type { AppendResult, EventStoreClient } from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';
import { LOOP_CONFIG } from './loop-config.js';
import { toNewEvent } from './envelope.js';
import { PROJECTIONS_SUBSCRIPTION, projectionHandler } from './loop-states.projection.js';
import { type JournalTables, resetProjectionTables } from './schema.js';

/** Longest an announcement waits for the projections (a long transaction elsewhere holds reads back). */
const CATCH_UP_TIMEOUT_MS = 30_000;

const PRODUCER = `journal@${process.pid}`;

/**
 * Runs the projections over the store. After an append, catchUpTo returns once every appended
 * plan's loop state reflects its new events — and once the loop detections those events fired are
 * journaled as LoopDetected events too — so an announcement never precedes the state a decider
 * will read.
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

  async catchUp(): Promise<number> {
    return (await this.store.catchUp(PROJECTIONS_SUBSCRIPTION, this.handler, { batchSize: 1000 })).processed;
  }

  async catchUpTo(results: readonly AppendResult[]): Promise<void> {
    await this.waitFor(results);
    const detected = await this.journalDetections([...new Set(results.map((r) => r.streamId))]);
    if (detected.length > 0) await this.waitFor(detected);
  }

  private async waitFor(results: readonly AppendResult[]): Promise<void> {
    const targets = new Map<string, number>();
    for (const r of results) targets.set(r.streamId, Math.max(targets.get(r.streamId) ?? 0, r.version));
    const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
    for (;;) {
      await this.catchUp();
      const rows = await this.db.selectFrom('loop_states').select(['plan', 'version']).where('plan', 'in', [...targets.keys()]).execute();
      const projected = new Map(rows.map((r) => [r.plan, r.version]));
      if ([...targets].every(([plan, version]) => (projected.get(plan) ?? 0) >= version)) return;
      if (Date.now() > deadline) {
        throw new TransientError('JOURNAL.PROJECTION_BEHIND', `projections did not reach the appended events within ${CATCH_UP_TIMEOUT_MS} ms (a long-running transaction on the database holds reads back)`);
      }
      await this.store.waitForCommit({ timeoutMs: 50 });
    }
  }

  /**
   * Appends the LoopDetected events of the detections the projections made for these plans (the
   * journal writes them itself, before it announces the commit that fired them), then publishes
   * them for anyone following the bus. Ids are derived from plan, run, heuristic and round, so a
   * second journal replica or a redelivered batch appends nothing new. A detection for a run or a
   * round that is over (a replay with other thresholds) is marked stale, never journaled late.
   */
  private async journalDetections(plans: readonly string[]): Promise<AppendResult[]> {
    if (plans.length === 0) return [];
    const pending = await this.db.selectFrom('loop_detections').select(['event_id', 'plan', 'detection']).where('plan', 'in', plans).where('status', '=', 'pending').execute();
    if (pending.length === 0) return [];
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
    if (live.length === 0) return [];
    const events = live.map((d) => loopDetectedEvent(d, PRODUCER));
    const byStream = new Map<string, typeof events>();
    for (const e of events) byStream.set(e.plan, [...(byStream.get(e.plan) ?? []), e]);
    const results = await this.store.appendMany([...byStream].map(([streamId, list]) => ({ streamId, events: list.map(toNewEvent), expectedVersion: 'any' as const })));
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
    return results;
  }

  /** Rebuilds every projection from zero; returns how many events were replayed. */
  async rebuild(): Promise<number> {
    await this.store.resetSubscription(PROJECTIONS_SUBSCRIPTION, (tx) => resetProjectionTables(tx.db as unknown as Kysely<JournalTables>));
    return this.catchUp();
  }
}
