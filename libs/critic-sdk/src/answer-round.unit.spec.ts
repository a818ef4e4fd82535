import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventPublisher, PublishReceipt } from '@rloop/bus';
import { type DispatchedCritic, type EventOf, type RloopEvent, TransientError } from '@rloop/contracts';
import { type DispatchOutcome, type RoundHost, answerRound } from './answer-round.js';
import { defineCritic } from './define.js';
import { notRun, reportEventId } from './dispatch.js';
import { resolveCriticServiceOptions } from './options.js';
import { criticServiceHost } from './service.js';

const SHA = 'a'.repeat(40);
/** The clock answerRound is given: before the round's deadline unless a spec moves the deadline. */
const NOW = new Date('2026-01-01T00:00:30.000Z');
const DEADLINE = '2026-01-01T00:01:00.000Z';

function round(overrides: Partial<EventOf<'RoundStarted'>['data']> = {}): EventOf<'RoundStarted'> {
  return {
    event_id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
    type: 'RoundStarted',
    schema_version: 1,
    plan: 'p',
    correlation_id: '01JBBBBBBBBBBBBBBBBBBBBBBB',
    causation_id: null,
    occurred_at: '2026-01-01T00:00:00.000Z',
    producer: 'spec',
    data: {
      round: 2,
      phase: 'critical',
      phase_round: 1,
      k: 3,
      mode: 'loop',
      commit: SHA,
      base_commit: SHA,
      repo_path: '/repo',
      files: ['a.ts'],
      critics: [{ critic_id: 'team/counter', evidence: 'pattern', core: true, reason: 'core', timeout_ms: 5_000 }],
      not_configured: [],
      deadline_at: DEADLINE,
      ...overrides,
    },
  };
}

class RecordingPublisher implements EventPublisher {
  readonly events: RloopEvent[] = [];
  publish(event: RloopEvent): Promise<PublishReceipt> {
    this.events.push(event);
    return Promise.resolve({ stream: 'S', seq: this.events.length, duplicate: false });
  }
}

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
type Journal = Parameters<typeof answerRound>[1]['journal'];
const unanswered: Journal = { hasEvent: () => Promise.resolve({ found: false }) };

describe('answerRound', () => {
  let dir: string;
  let runs = 0;
  const critic = defineCritic({
    id: 'team/counter',
    evidence: 'pattern',
    triggers: [],
    run: () => {
      runs += 1;
      return Promise.resolve([]);
    },
  });

  function host(overrides: Partial<RoundHost> = {}, maxFileBytes?: number): RoundHost {
    const settings = resolveCriticServiceOptions({
      natsUrl: 'nats://x',
      workRoot: dir,
      ...(maxFileBytes === undefined ? {} : { maxFileBytes }),
    });
    return {
      ...criticServiceHost(critic, settings, 'critic:team/counter@i', () => Promise.resolve(dir)),
      ...overrides,
    };
  }

  /** One delivery answered at NOW; the outcome of team/counter (or of every critic, with `all`). */
  async function answer(
    h: RoundHost,
    event: EventOf<'RoundStarted'>,
    deliveries: number,
    journal: Journal = unanswered,
    publisher = new RecordingPublisher(),
    abort = new AbortController(),
  ): Promise<DispatchOutcome | undefined> {
    const outcomes = await answerRound(h, { publisher, journal, clock: { now: () => NOW }, logger: quiet }, event, {
      deliveries,
      signal: abort.signal,
    });
    return outcomes.get('team/counter');
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rloop-answer-'));
    await writeFile(join(dir, 'a.ts'), 'export {};\n');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('does not ask the journal on a first delivery, and answers under the report id', async () => {
    const publisher = new RecordingPublisher();
    const asked: string[] = [];
    const journal: Journal = { hasEvent: (id) => (asked.push(id), Promise.resolve({ found: false })) };
    expect(await answer(host(), round(), 1, journal, publisher)).toBe('reported');
    expect(asked).toEqual([]);
    expect(publisher.events).toEqual([
      expect.objectContaining({
        type: 'FindingsReported',
        event_id: reportEventId(round(), 'team/counter'),
        occurred_at: NOW.toISOString(),
      }),
    ]);
  });

  it('on a redelivery of a round it already answered, runs nothing and publishes nothing', async () => {
    const publisher = new RecordingPublisher();
    const before = runs;
    expect(
      await answer(host(), round(), 2, { hasEvent: () => Promise.resolve({ found: true, plan: 'p' }) }, publisher),
    ).toBe('already_answered');
    expect(runs).toBe(before);
    expect(publisher.events).toEqual([]);
  });

  it('reviews again when the journal cannot say (the deterministic id makes the answer count once)', async () => {
    const publisher = new RecordingPublisher();
    expect(
      await answer(host(), round(), 3, { hasEvent: () => Promise.reject(new Error('no responders')) }, publisher),
    ).toBe('reported');
    expect(publisher.events).toHaveLength(1);
  });

  it('answers nothing when stopped mid-review, so the round is redelivered', async () => {
    const abort = new AbortController();
    abort.abort();
    const publisher = new RecordingPublisher();
    await expect(answer(host(), round(), 1, unanswered, publisher, abort)).rejects.toMatchObject({
      code: 'CRITIC_SDK.STOPPING',
      retryable: true,
    });
    expect(publisher.events).toEqual([]);
  });

  it('turns a checkout that fails into CriticFailed not_runnable, keeping the dispatch core flag', async () => {
    const publisher = new RecordingPublisher();
    expect(
      await answer(
        host({ checkout: () => Promise.reject(new Error('no such repository')) }),
        round(),
        1,
        unanswered,
        publisher,
      ),
    ).toBe('failed');
    expect(publisher.events).toEqual([
      expect.objectContaining({
        type: 'CriticFailed',
        data: expect.objectContaining({
          reason: 'not_runnable',
          core: true,
          message: expect.stringContaining('no such repository') as unknown,
        }) as unknown,
      }),
    ]);
  });

  it('lets a checkout that may succeed later fail the delivery (redelivered), answering nothing', async () => {
    const publisher = new RecordingPublisher();
    const flaky = host({ checkout: () => Promise.reject(new TransientError('SPEC.FETCH', 'git daemon unreachable')) });
    await expect(answer(flaky, round(), 1, unanswered, publisher)).rejects.toMatchObject({ code: 'SPEC.FETCH' });
    expect(publisher.events).toEqual([]);
  });

  it('skips a round it is not on and a round past its deadline by the clock it is given', async () => {
    const publisher = new RecordingPublisher();
    expect(await answer(host(), round({ critics: [] }), 1, unanswered, publisher)).toBeUndefined();
    expect(await answer(host(), round({ deadline_at: NOW.toISOString() }), 1, unanswered, publisher)).toBe('expired');
    expect(publisher.events).toEqual([]);
  });

  it('answers each critic a runner hosts once: on a redelivery only those the journal has no answer of run, each after its settle hook', async () => {
    const other = defineCritic({ id: 'team/other', evidence: 'pattern', triggers: [], run: () => Promise.resolve([]) });
    const dispatched = (id: string): DispatchedCritic => ({
      critic_id: id,
      evidence: 'pattern',
      core: false,
      reason: 'matched',
      timeout_ms: 5_000,
    });
    const event = round({
      critics: [
        dispatched('team/counter'),
        dispatched('team/other'),
        dispatched('team/budgeted'),
        dispatched('team/elsewhere'),
      ],
    });
    const settled: string[] = [];
    const publisher = new RecordingPublisher();
    const runner = host({
      critic: (id) => (id === 'team/counter' ? critic : id === 'team/other' || id === 'team/budgeted' ? other : null),
      prepare: (_round, todo) =>
        Promise.resolve((d) =>
          d.critic_id === 'team/budgeted'
            ? notRun(d.critic_id, 'not_runnable', `not run: budget (${todo.length} to run)`)
            : null,
        ),
      settle: (_round, d) => {
        settled.push(d.critic_id);
        expect(publisher.events.some((e) => e.event_id === reportEventId(event, d.critic_id))).toBe(false);
        return Promise.resolve();
      },
    });
    const journal: Journal = {
      hasEvent: (id) => Promise.resolve({ found: id === reportEventId(event, 'team/counter') }),
    };
    const outcomes = await answerRound(
      runner,
      { publisher, journal, clock: { now: () => NOW }, logger: quiet },
      event,
      { deliveries: 2, signal: new AbortController().signal },
    );
    expect(Object.fromEntries(outcomes)).toEqual({
      'team/counter': 'already_answered',
      'team/other': 'reported',
      'team/budgeted': 'failed',
    });
    expect(settled.sort()).toEqual(['team/budgeted', 'team/other']);
    expect(publisher.events.map((e) => [e.type, e.event_id]).sort()).toEqual(
      [
        ['CriticFailed', reportEventId(event, 'team/budgeted')],
        ['FindingsReported', reportEventId(event, 'team/other')],
      ].sort(),
    );
    expect(publisher.events.find((e) => e.type === 'CriticFailed')?.data).toMatchObject({
      message: 'not run: budget (2 to run)',
    });
  });

  it("reports what a core critic covered, and fails it when it analysed none of the files it supports (the operator's bound applies)", async () => {
    await writeFile(join(dir, 'big.ts'), `// ${'x'.repeat(64)}\n`);
    const reading = defineCritic({
      id: 'team/counter',
      evidence: 'pattern',
      triggers: [],
      covers: (f) => f.endsWith('.ts'),
      run: (ctx) => {
        for (const file of ctx.files) ctx.reader.read(file);
        return Promise.resolve([]);
      },
    });
    const readingHost = (maxFileBytes?: number): RoundHost =>
      host({ critic: (id) => (id === reading.id ? reading : null) }, maxFileBytes);
    const publisher = new RecordingPublisher();
    expect(await answer(readingHost(), round({ files: ['a.ts', 'README.md'] }), 1, unanswered, publisher)).toBe(
      'reported',
    );
    expect(await answer(readingHost(16), round({ files: ['big.ts'] }), 1, unanswered, publisher)).toBe('failed');
    expect(publisher.events.map((e) => [e.type, e.data])).toEqual([
      [
        'FindingsReported',
        expect.objectContaining({
          coverage: expect.objectContaining({
            considered: 2,
            analysed: 1,
            unsupported: 1,
            max_file_bytes_configured: false,
          }),
        }),
      ],
      [
        'CriticFailed',
        expect.objectContaining({
          reason: 'no_files_analysed',
          core: true,
          coverage: expect.objectContaining({
            analysed: 0,
            max_file_bytes: 16,
            max_file_bytes_configured: true,
            skipped: [expect.objectContaining({ file: 'big.ts', reason: 'too_large' })],
          }),
        }),
      ],
    ]);
  });
});
