import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import type { EventContext } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import {
  InMemoryJournal,
  coreCatalogue,
  deliveryTo,
  journaledEvent,
  runStartEvents,
  thrownBy,
} from '@rloop/journal-client';
import { compilePanel, panelConfig } from '../testing/panel-harness.test-helpers.js';
import { DecideController } from './decide.controller.js';

// The panel's handler through Nest's DI: the publisher and the journal client's requester are
// in-memory ports (the journal's folds, the client's reply validation), the clock is fixed, and the
// critic registry (NATS KV, covered by panel-registry.int.spec.ts) answers that every critic is alive.
const PLAN = 'add-billing';
const RUN = '01JRUN0000000000000000000A';
const SHA = 'a'.repeat(40);
const NOW = '2026-11-30T10:00:30.000Z';
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
const config = panelConfig(catalogue);
const delivery = (): EventContext => deliveryTo('panel-decide');

/** Appends a plan submitted and gated; returns its baseline, not yet appended. */
function gatedRun(journal: InMemoryJournal): EventOf<'BaselineRecorded'> {
  const [submitted, gated, baseline] = runStartEvents({ plan: PLAN, runId: RUN, commit: SHA, at });
  journal.append(submitted, gated);
  return baseline;
}

describe('the panel decides on committed state (handler through Nest DI)', () => {
  let module: TestingModule | null = null;

  async function handler(journal: InMemoryJournal): Promise<DecideController> {
    module = await compilePanel(journal, config, NOW);
    return module.get(DecideController);
  }

  afterEach(async () => {
    await module?.close();
    module = null;
  });

  it('given a gated plan whose baseline is committed, when the commit is announced, then round 1 starts, stamped with the version it was decided on, the clock and the identity', async () => {
    const journal = new InMemoryJournal();
    journal.append(gatedRun(journal));
    const controller = await handler(journal);
    expect(thrownBy(await controller.onCommitted(journal.announce(PLAN), delivery()))).toBeUndefined();
    expect(journal.published.map((e) => [e.type, e.producer, e.occurred_at, e.decision?.expected_version])).toEqual([
      ['RoundStarted', 'panel@spec', NOW, 3],
    ]);
    const [started] = journal.published;
    if (started?.type !== 'RoundStarted') throw new Error('expected a RoundStarted');
    expect(started.data).toMatchObject({
      round: 1,
      phase: 'critical',
      commit: SHA,
      critics: [{ critic_id: 'security/sast-scanner' }, { critic_id: 'toolchain/compiler-linter' }],
    });
    // The deadline counts from the baseline (the cause) plus the slowest critic and the grace, not from the clock.
    expect(started.data.deadline_at).toBe(new Date(Date.parse(at(2)) + 60_000 + 1000).toISOString());
  });

  it('given a commit that cannot change a decision (a gate verdict still waiting for its baseline), when announced, then nothing is published', async () => {
    const journal = new InMemoryJournal();
    gatedRun(journal);
    const controller = await handler(journal);
    expect(thrownBy(await controller.onCommitted(journal.announce(PLAN), delivery()))).toBeUndefined();
    expect(journal.published).toEqual([]);
  });

  it('given an announcement of events that are no decision point, when it arrives, then the journal is not even asked', async () => {
    const journal = new InMemoryJournal();
    gatedRun(journal);
    journal.append(
      journaledEvent(
        'FindingsReported',
        {
          round: 1,
          critic_id: 'toolchain/compiler-linter',
          commit: SHA,
          findings: [],
          truncated: false,
          duration_ms: 5,
        },
        envelope(3),
      ),
    );
    const controller = await handler(journal);
    expect(thrownBy(await controller.onCommitted(journal.announce(PLAN), delivery()))).toBeUndefined();
    expect(journal.asked).toEqual([]);
    expect(journal.published).toEqual([]);
  });
});
