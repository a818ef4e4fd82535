import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { type EventContext, RetryLaterError } from '@rloop/bus';
import type { JournaledEvent } from '@rloop/contracts';
import { DEFAULT_KNOWN_CONFLICTS } from '@rloop/domain';
import {
  InMemoryJournal,
  coreCatalogue,
  deliveryTo,
  inMemoryPorts,
  journaledEvent,
  runStartEvents,
  startRoundOne,
  thrownBy,
} from '@rloop/journal-client';
import { SynthesizerModule } from '../app.module.js';
import type { SynthesizerConfig } from '../config.js';
import { LettersController } from './letters.controller.js';

// The synthesizer's handler through Nest's DI, with the publisher and the journal client's
// requester as in-memory ports (the journal's folds, the client's reply validation) and a fixed clock.
const PLAN = 'add-billing';
const RUN = '01JRUN0000000000000000000A';
const SHA = 'a'.repeat(40);
const at = (second: number): string => new Date(Date.parse('2026-11-30T10:00:00.000Z') + second * 1000).toISOString();
const envelope = (second: number, eventId?: string) => ({
  plan: PLAN,
  runId: RUN,
  at: at(second),
  ...(eventId === undefined ? {} : { eventId }),
});

const catalogue = coreCatalogue({
  'toolchain/compiler-linter': { evidence: 'toolchain', timeout_ms: 60_000 },
  'security/sast-scanner': { evidence: 'dataflow', timeout_ms: 30_000 },
});

/** A run whose round 1 the panel started (decideNext itself), the RoundStarted last in the stream. */
function runWithRoundStarted(journal: InMemoryJournal): JournaledEvent {
  journal.append(...runStartEvents({ plan: PLAN, runId: RUN, commit: SHA, at }));
  return startRoundOne(journal, PLAN, catalogue, at(3));
}

const reported = (criticId: string, second: number) =>
  journaledEvent(
    'FindingsReported',
    { round: 1, critic_id: criticId, commit: SHA, findings: [], truncated: false, duration_ms: 5 },
    envelope(second),
  );

const delivery = (deliveries = 1): EventContext => deliveryTo('synthesizer-letters', deliveries);

describe('the synthesizer writes a round letter (handler through Nest DI)', () => {
  let module: TestingModule | null = null;

  async function handler(journal: InMemoryJournal, nowSecond: number): Promise<LettersController> {
    module = await Test.createTestingModule({
      imports: [
        inMemoryPorts(
          journal,
          { now: () => new Date(at(nowSecond)) },
          { service: 'synthesizer', producer: 'synthesizer@spec' },
        ),
        SynthesizerModule.forRoot({
          knownConflicts: DEFAULT_KNOWN_CONFLICTS,
        } as Partial<SynthesizerConfig> as SynthesizerConfig),
      ],
    }).compile();
    return module.get(LettersController);
  }

  afterEach(async () => {
    await module?.close();
    module = null;
  });

  it('given one of two critics has reported before the deadline, when the RoundStarted is announced, then nothing is published and the announcement comes back at the deadline', async () => {
    const journal = new InMemoryJournal();
    const started = runWithRoundStarted(journal);
    journal.append(reported('toolchain/compiler-linter', 10));
    const controller = await handler(journal, 20);
    const deadline = started.type === 'RoundStarted' ? Date.parse(started.data.deadline_at) : 0;
    const error = thrownBy(await controller.onCommitted(journal.announce(PLAN, 2), delivery()));
    expect(error).toBeInstanceOf(RetryLaterError);
    expect((error as RetryLaterError).delayMs).toBe(deadline - Date.parse(at(20)) + 100);
    expect(journal.published).toEqual([]);
  });

  it('given every dispatched critic has reported, when the last report is announced, then the letter is written once, stamped by the clock and the identity', async () => {
    const journal = new InMemoryJournal();
    runWithRoundStarted(journal);
    journal.append(reported('toolchain/compiler-linter', 10), reported('security/sast-scanner', 11));
    const controller = await handler(journal, 12);
    expect(thrownBy(await controller.onCommitted(journal.announce(PLAN), delivery()))).toBeUndefined();
    expect(journal.published.map((e) => [e.type, e.producer, e.occurred_at])).toEqual([
      ['LetterWritten', 'synthesizer@spec', at(12)],
    ]);
    const [written] = journal.published;
    if (written?.type !== 'LetterWritten') throw new Error('expected a letter');
    expect(written.data.letter).toMatchObject({ round: 1, complete: true, created_at: at(11) });
    expect(written.data.letter.critics.map((c) => c.critic_id).sort()).toEqual([
      'security/sast-scanner',
      'toolchain/compiler-linter',
    ]);
  });

  it('given the deadline has passed with a critic silent, when the announcement comes back, then the silent critic fails timed_out and no letter is written yet', async () => {
    const journal = new InMemoryJournal();
    runWithRoundStarted(journal);
    journal.append(reported('toolchain/compiler-linter', 10));
    const controller = await handler(journal, 3600);
    expect(thrownBy(await controller.onCommitted(journal.announce(PLAN, 2), delivery(2)))).toBeUndefined();
    expect(
      journal.published.map((e) => [e.type, e.type === 'CriticFailed' ? [e.data.critic_id, e.data.reason] : null]),
    ).toEqual([['CriticFailed', ['security/sast-scanner', 'timed_out']]]);
    expect(journal.asked).toContain('journal.loop_state');
  });
});
