import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { type EventContext, RetryLaterError } from '@rloop/bus';
import type { Finding, Letter } from '@rloop/contracts';
import { decideNext, fingerprintOf } from '@rloop/domain';
import {
  InMemoryJournal,
  JournalClientModule,
  coreCatalogue,
  deliveryTo,
  inMemoryPorts,
  journaledEvent,
  runStartEvents,
  thrownBy,
} from '@rloop/journal-client';
import type { PanelConfig } from '../config.js';
import { PANEL_CONFIG } from '../tokens.js';
import { FixDeadlineController, GUARD_GRACE_MS } from './fix-deadline.controller.js';

// The guard through Nest's DI, with in-memory ports (the journal's folds) and a fixed clock.
const PLAN = 'add-billing';
const RUN = '01JRUN0000000000000000000A';
const SHA = 'a'.repeat(40);
const DEADLINE_MS = 600_000;
const at = (second: number): string => new Date(Date.parse('2026-11-30T10:00:00.000Z') + second * 1000).toISOString();
const envelope = (second: number, eventId?: string) => ({
  plan: PLAN,
  runId: RUN,
  at: at(second),
  ...(eventId === undefined ? {} : { eventId }),
});

const catalogue = coreCatalogue({ 'toolchain/compiler-linter': { evidence: 'toolchain', timeout_ms: 60_000 } });

const FINDING: Finding = (() => {
  const base = {
    id: 'f-1',
    severity: 'critical' as const,
    score: 8,
    category: 'correctness' as const,
    finding_type: 'tsc/TS2322',
    file: 'src/index.ts',
    line_range: { start: 3, end: 3 },
    title: 'Type mismatch',
    current_behaviour: 'a string is assigned to a number',
    expected_behaviour: 'the value is a number',
    observable_test_conditions: ['tsc reports no TS2322 in src/index.ts'],
    forbidden_in_test: ['@ts-ignore'],
    raised_by: 'toolchain/compiler-linter',
    related_findings: [],
    fixable: false,
    related_locations: [],
  };
  return {
    ...base,
    fingerprint: fingerprintOf({
      critic_id: base.raised_by,
      file: base.file,
      line_range: base.line_range,
      finding_type: base.finding_type,
    }),
  };
})();

const LETTER: Letter = {
  letter_id: 'd_letter00000001',
  plan: PLAN,
  run_id: RUN,
  round: 1,
  phase: 'critical',
  k: 3,
  commit: SHA,
  mode: 'loop',
  created_at: at(10),
  critics: [
    { critic_id: 'toolchain/compiler-linter', core: true, outcome: 'reported', findings_total: 1, findings_kept: 1 },
  ],
  findings: [FINDING],
  counts: { critical: 1, medium: 0, low: 0 },
  complete: true,
  disagreements: [],
  summary: 'one critical finding',
};

/** A run whose round 1 letter (written at second 10) asked for a fix; the FixRequested last in the stream. */
function runWaitingForFix(journal: InMemoryJournal): void {
  journal.append(
    ...runStartEvents({
      plan: PLAN,
      runId: RUN,
      commit: SHA,
      at,
      repoPath: '/gate/repos/1',
      planSpec: { repo: { url: 'https://example.com/org/billing.git', ref: 'HEAD' } },
      gate: { repo_url: 'https://example.com/org/billing.git' },
    }),
  );
  const ctx = { catalogue, availability: () => ({ state: 'available' as const }), producer: 'panel@spec', now: at(3) };
  journal.append(...decideNext(journal.state(PLAN), ctx));
  journal.append(
    journaledEvent(
      'FindingsReported',
      {
        round: 1,
        critic_id: 'toolchain/compiler-linter',
        commit: SHA,
        findings: [FINDING],
        truncated: false,
        duration_ms: 5,
      },
      envelope(9),
    ),
  );
  const letter = LETTER;
  journal.append(journaledEvent('LetterWritten', { letter }, envelope(10)));
  const fix = decideNext(journal.state(PLAN), { ...ctx, now: at(10), letter });
  if (fix[0]?.type !== 'FixRequested')
    throw new Error(`setup: expected a FixRequested, got ${fix.map((e) => e.type).join(', ')}`);
  journal.append(...fix);
}

const delivery = (deliveries = 1): EventContext => deliveryTo('panel-fix-deadline', deliveries);

describe("the panel's guard of a fix nobody serves (handler through Nest DI)", () => {
  let module: TestingModule | null = null;

  async function guard(journal: InMemoryJournal, nowSecond: number): Promise<FixDeadlineController> {
    module = await Test.createTestingModule({
      imports: [
        inMemoryPorts(journal, { now: () => new Date(at(nowSecond)) }, { service: 'panel', producer: 'panel@spec' }),
        JournalClientModule,
      ],
      controllers: [FixDeadlineController],
      providers: [
        { provide: PANEL_CONFIG, useValue: { fixDeadlineMs: DEADLINE_MS } as Partial<PanelConfig> as PanelConfig },
      ],
    }).compile();
    return module.get(FixDeadlineController);
  }

  afterEach(async () => {
    await module?.close();
    module = null;
  });

  it('given a fix requested, when it is announced, then nothing is published and the announcement comes back at the deadline after the letter', async () => {
    const journal = new InMemoryJournal();
    runWaitingForFix(journal);
    const controller = await guard(journal, 20);
    const error = thrownBy(await controller.onCommitted(journal.announce(PLAN, 1), delivery()));
    expect(error).toBeInstanceOf(RetryLaterError);
    expect((error as RetryLaterError).delayMs).toBe(DEADLINE_MS + GUARD_GRACE_MS - 10_000 + 100);
    expect(journal.published).toEqual([]);
  });

  it('given no implementer answered by the deadline, when the timer fires, then the loop escalates with reason implementer_failed', async () => {
    const journal = new InMemoryJournal();
    runWaitingForFix(journal);
    const announcement = journal.announce(PLAN, 1);
    const controller = await guard(journal, 10 + (DEADLINE_MS + GUARD_GRACE_MS) / 1000);
    expect(thrownBy(await controller.onCommitted(announcement, delivery(2)))).toBeUndefined();
    expect(journal.published.map((e) => e.type)).toEqual(['EscalationRaised']);
    expect(journal.published[0]?.type === 'EscalationRaised' && journal.published[0].data.reason).toBe(
      'implementer_failed',
    );
  });

  it('given the fix was applied before the deadline, when the timer fires, then nothing is published late', async () => {
    const journal = new InMemoryJournal();
    runWaitingForFix(journal);
    const announcement = journal.announce(PLAN, 1);
    const letterId = journal.state(PLAN).current?.letter?.letter_id ?? '';
    journal.append(
      journaledEvent(
        'FixApplied',
        {
          round: 1,
          letter_id: letterId,
          strategy: 'autofix',
          outcome: 'no_change',
          reason: 'nothing to do',
          fixes_applied: [],
          tests_added: [],
          tests_result: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
          base_commit: SHA,
          commit: null,
          diff_stats: { files_changed: 0, insertions: 0, deletions: 0 },
          duration_ms: 1,
        },
        envelope(30),
      ),
    );
    const controller = await guard(journal, 10 + (DEADLINE_MS + GUARD_GRACE_MS) / 1000 + 1);
    expect(thrownBy(await controller.onCommitted(announcement, delivery(2)))).toBeUndefined();
    expect(journal.published).toEqual([]);
  });
});
