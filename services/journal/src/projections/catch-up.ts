import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { TransientError } from '@rloop/contracts';
import type { AppendResult, EventStoreClient } from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';
import { PROJECTIONS_SUBSCRIPTION, projectBatch } from './loop-states.projection.js';
import { type JournalTables, resetProjectionTables } from './schema.js';

/** Longest an announcement waits for the projections (a long transaction elsewhere holds reads back). */
const CATCH_UP_TIMEOUT_MS = 30_000;

/**
 * Runs the projections over the store. After an append, catchUpTo returns once every appended
 * plan's loop state reflects its new events, so an announcement never precedes the state a
 * decider will read.
 */
@Injectable()
export class ProjectionCatchUp {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStoreClient) {}

  private get db(): Kysely<JournalTables> {
    return this.store.db as unknown as Kysely<JournalTables>;
  }

  async catchUp(): Promise<number> {
    return (await this.store.catchUp(PROJECTIONS_SUBSCRIPTION, projectBatch, { batchSize: 1000 })).processed;
  }

  async catchUpTo(results: readonly AppendResult[]): Promise<void> {
    const targets = new Map(results.map((r) => [r.streamId, r.version]));
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

  /** Rebuilds every projection from zero; returns how many events were replayed. */
  async rebuild(): Promise<number> {
    await this.store.resetSubscription(PROJECTIONS_SUBSCRIPTION, (tx) => resetProjectionTables(tx.db as unknown as Kysely<JournalTables>));
    return this.catchUp();
  }
}
