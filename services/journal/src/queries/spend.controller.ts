import { Controller, Inject } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';
import { OnRequest, decodeJsonBody } from '@rloop/bus';
import { JOURNAL_QUERIES, type JournalReply, ValidationError, toIssues } from '@rloop/contracts';
import type { EventStoreClient, EventStoreTables } from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';
import { runStreamsPattern } from '../streams.js';

const MAX_QUERY_BYTES = 4 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC bounds [start, end) of a `YYYY-MM-DD` day. Pure. */
export function utcDayBounds(day: string): { readonly start: string; readonly end: string } {
  const start = Date.parse(`${day}T00:00:00.000Z`);
  return { start: new Date(start).toISOString(), end: new Date(start + DAY_MS).toISOString() };
}

function usd(value: unknown): number {
  const amount = Number(value ?? 0);
  // Sums of micro-dollar amounts: rounded so the reply does not carry floating-point noise.
  return Number.isFinite(amount) ? Math.round(amount * 1e6) / 1e6 : 0;
}

/**
 * `journal.spend`: what the LLM dispatches have cost, summed from the committed UsageRecorded
 * events — for one plan (all runs, and one run when asked) and for every plan on one UTC day. The
 * critic-runner and the implementer check their budgets with it before a dispatch.
 */
@Controller()
export class SpendController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStoreClient) {}

  private get db(): Kysely<EventStoreTables> {
    return this.store.db;
  }

  @OnRequest('journal.spend')
  async spend(body: Uint8Array): Promise<JournalReply<'spend'>> {
    const raw = decodeJsonBody(body, MAX_QUERY_BYTES);
    const parsed = JOURNAL_QUERIES.spend.request.safeParse(raw);
    if (!parsed.success)
      throw new ValidationError(
        'JOURNAL.INVALID_QUERY',
        `journal.spend: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
        toIssues(parsed.error),
      );
    const { plan, run_id: runId, day } = parsed.data;
    const { start, end } = utcDayBounds(day);
    const cost = sql<string>`coalesce(sum((data->>'cost_usd')::numeric), 0)`;
    // Every run of the plan: its own streams, and the plan's stream of an older journal.
    const ofPlan = sql<boolean>`(stream_id = ${plan} OR stream_id LIKE ${runStreamsPattern(plan)})`;
    const [planRow, runRow, dayRow] = await Promise.all([
      this.db
        .selectFrom('events')
        .select(cost.as('usd'))
        .where('type', '=', 'UsageRecorded')
        .where(ofPlan)
        .executeTakeFirst(),
      runId === undefined
        ? Promise.resolve(null)
        : this.db
            .selectFrom('events')
            .select(cost.as('usd'))
            .where('type', '=', 'UsageRecorded')
            .where(ofPlan)
            .where(sql<boolean>`metadata->>'correlation_id' = ${runId}`)
            .executeTakeFirst(),
      this.db
        .selectFrom('events')
        .select(cost.as('usd'))
        .where('type', '=', 'UsageRecorded')
        .where(sql<boolean>`recorded_at >= ${start}::timestamptz AND recorded_at < ${end}::timestamptz`)
        .executeTakeFirst(),
    ]);
    return {
      plan,
      plan_usd: usd(planRow?.usd),
      run_usd: runRow === null ? null : usd(runRow?.usd),
      day,
      day_usd: usd(dayRow?.usd),
    };
  }
}
