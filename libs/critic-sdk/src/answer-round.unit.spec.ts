import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventPublisher, PublishReceipt } from '@rloop/bus';
import type { EventOf, RloopEvent } from '@rloop/contracts';
import { type Runtime, answerRound } from './answer-round.js';
import { defineCritic } from './define.js';
import { reportEventId } from './dispatch.js';
import { resolveCriticServiceOptions } from './options.js';

const SHA = 'a'.repeat(40);

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
      deadline_at: new Date(Date.now() + 60_000).toISOString(),
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

  function runtime(abort = new AbortController()): Runtime {
    return { critic, settings: resolveCriticServiceOptions({ natsUrl: 'nats://x', workRoot: dir }), checkout: () => Promise.resolve(dir), producer: 'critic:team/counter@i', logger: quiet, abort, inFlight: 0 };
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
    const outcome = await answerRound(runtime(), { publisher, journal: { hasEvent: (id) => (asked.push(id), Promise.resolve({ found: false })) } }, round(), 1);
    expect(outcome).toBe('reported');
    expect(asked).toEqual([]);
    expect(publisher.events).toEqual([expect.objectContaining({ type: 'FindingsReported', event_id: reportEventId(round(), 'team/counter') })]);
  });

  it('on a redelivery of a round it already answered, runs nothing and publishes nothing', async () => {
    const publisher = new RecordingPublisher();
    const before = runs;
    const outcome = await answerRound(runtime(), { publisher, journal: { hasEvent: () => Promise.resolve({ found: true, plan: 'p' }) } }, round(), 2);
    expect(outcome).toBe('already_answered');
    expect(runs).toBe(before);
    expect(publisher.events).toEqual([]);
  });

  it('reviews again when the journal cannot say (the deterministic id makes the answer count once)', async () => {
    const publisher = new RecordingPublisher();
    const outcome = await answerRound(runtime(), { publisher, journal: { hasEvent: () => Promise.reject(new Error('no responders')) } }, round(), 3);
    expect(outcome).toBe('reported');
    expect(publisher.events).toHaveLength(1);
  });

  it('answers nothing when stopped mid-review, so the round is redelivered', async () => {
    const abort = new AbortController();
    abort.abort();
    const publisher = new RecordingPublisher();
    await expect(answerRound(runtime(abort), { publisher, journal: { hasEvent: () => Promise.resolve({ found: false }) } }, round(), 1)).rejects.toMatchObject({ code: 'CRITIC_SDK.STOPPING', retryable: true });
    expect(publisher.events).toEqual([]);
  });

  it('turns a checkout that fails into CriticFailed not_runnable, keeping the dispatch core flag', async () => {
    const publisher = new RecordingPublisher();
    const rt = { ...runtime(), checkout: () => Promise.reject(new Error('no such repository')) };
    const outcome = await answerRound(rt, { publisher, journal: { hasEvent: () => Promise.resolve({ found: false }) } }, round(), 1);
    expect(outcome).toBe('failed');
    expect(publisher.events).toEqual([expect.objectContaining({ type: 'CriticFailed', data: expect.objectContaining({ reason: 'not_runnable', core: true, message: expect.stringContaining('no such repository') as unknown }) as unknown })]);
  });

  it('skips a round it is not on and a round past its deadline', async () => {
    const publisher = new RecordingPublisher();
    const journal = { hasEvent: () => Promise.resolve({ found: false }) };
    expect(await answerRound(runtime(), { publisher, journal }, round({ critics: [] }), 1)).toBe('not_dispatched');
    expect(await answerRound(runtime(), { publisher, journal }, round({ deadline_at: '2020-01-01T00:00:00.000Z' }), 1)).toBe('expired');
    expect(publisher.events).toEqual([]);
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
    const rt = (maxFileBytes?: number): Runtime => ({ ...runtime(), critic: reading, settings: resolveCriticServiceOptions({ natsUrl: 'nats://x', workRoot: dir, ...(maxFileBytes === undefined ? {} : { maxFileBytes }) }) });
    const journal = { hasEvent: () => Promise.resolve({ found: false }) };
    const publisher = new RecordingPublisher();
    expect(await answerRound(rt(), { publisher, journal }, round({ files: ['a.ts', 'README.md'] }), 1)).toBe('reported');
    expect(await answerRound(rt(16), { publisher, journal }, round({ files: ['big.ts'] }), 1)).toBe('failed');
    expect(publisher.events.map((e) => [e.type, e.data])).toEqual([
      ['FindingsReported', expect.objectContaining({ coverage: expect.objectContaining({ considered: 2, analysed: 1, unsupported: 1, max_file_bytes_configured: false }) })],
      [
        'CriticFailed',
        expect.objectContaining({
          reason: 'no_files_analysed',
          core: true,
          coverage: expect.objectContaining({ analysed: 0, max_file_bytes: 16, max_file_bytes_configured: true, skipped: [expect.objectContaining({ file: 'big.ts', reason: 'too_large' })] }),
        }),
      ],
    ]);
  });
});
