import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ValidationError } from '@rloop/contracts';
import { type EventStoreClient, type NewEvent, createEventStore } from '@rloop/event-store';
import { type TestDatabase, createTestDatabase } from '@rloop/testing';
import { SpendController, utcDayBounds } from './spend.controller.js';
import { migrateProjections } from '../projections/schema.js';

const RUN_1 = '01JRUN0000000000000000000A';
const RUN_2 = '01JRUN0000000000000000000B';

let n = 0;
function usage(run: string, costUsd: number): NewEvent {
  n += 1;
  return {
    eventId: `01JUSAGE${String(n).padStart(18, '0')}`,
    type: 'UsageRecorded',
    schemaVersion: 1,
    data: {
      round: 1,
      dispatch: 'quality/code-reviewer',
      model: 'claude-sonnet-5-5',
      input_tokens: 1000,
      output_tokens: 100,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cost_usd: costUsd,
    },
    metadata: { correlation_id: run, occurred_at: '2026-11-30T10:00:00.000Z', producer: 'test' },
  };
}

const body = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('journal.spend: LLM spend summed from UsageRecorded events', () => {
  let database: TestDatabase;
  let store: EventStoreClient;
  let controller: SpendController;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    database = await createTestDatabase('rloop_spend');
    store = await createEventStore({ databaseUrl: database.url });
    // The usage indexes come with the journal's migrations (made by the owner, not at start).
    await migrateProjections(store.db);
    controller = new SpendController(store);
    await store.append('plan-a', [usage(RUN_1, 1.25), usage(RUN_1, 0.5), usage(RUN_2, 2)], {
      expectedVersion: 'no_stream',
    });
    await store.append(
      'plan-b',
      [
        usage(RUN_1, 0.125),
        {
          eventId: '01JOTHER000000000000000000',
          type: 'LoopStopped',
          schemaVersion: 1,
          data: { by: 'x', cost_usd: 99 },
        },
      ],
      { expectedVersion: 'no_stream' },
    );
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it("given a plan's events, when asked with a run, then the plan's, the run's and the day's spend come back", async () => {
    expect(await controller.spend(body({ plan: 'plan-a', run_id: RUN_1, day: today }))).toEqual({
      plan: 'plan-a',
      plan_usd: 3.75,
      run_usd: 1.75,
      day: today,
      day_usd: 3.875,
    });
  });

  it('given no run, when asked, then run_usd is null; a plan without usage spent nothing', async () => {
    expect(await controller.spend(body({ plan: 'plan-b', day: today }))).toMatchObject({
      plan_usd: 0.125,
      run_usd: null,
    });
    expect(await controller.spend(body({ plan: 'plan-c', run_id: RUN_1, day: today }))).toMatchObject({
      plan_usd: 0,
      run_usd: 0,
      day_usd: 3.875,
    });
  });

  it('given another day, when asked, then nothing was spent that day', async () => {
    expect((await controller.spend(body({ plan: 'plan-a', day: '2020-01-01' }))).day_usd).toBe(0);
  });

  it('refuses a malformed query', async () => {
    // The bus decorator hands a thrown error to the transport as a value (it becomes the error reply).
    expect(await controller.spend(body({ plan: 'plan-a', day: 'today' }))).toMatchObject({
      error: expect.any(ValidationError),
    });
  });

  it('reads the bounds of a UTC day', () => {
    expect(utcDayBounds('2026-12-31')).toEqual({ start: '2026-12-31T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
  });
});
