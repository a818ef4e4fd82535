import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import type { Finding, JournaledEvent } from '@rloop/contracts';
import { fingerprintOf } from '@rloop/domain';
import {
  InMemoryJournal,
  coreCatalogue,
  deliveryTo,
  journaledEvent,
  runStartEvents,
  thrownBy,
} from '@rloop/journal-client';
import { DecideController } from '../deciding/decide.controller.js';
import { compilePanel, panelConfig } from '../testing/panel-harness.test-helpers.js';
import { DetectController } from './detect.controller.js';

// The loop-detection reactor through Nest's DI (moved here from the journal, which only stores and
// projects now): a finding left untouched for three rounds is journaled as one LoopDetected,
// through the same path as any decision (stamped with the version it was decided on), once however
// often it is decided; the panel's decider never decides on that letter before it is committed.
const PLAN = 'mem-untouched';
const RUN = '01JMEMRUN00000000000000001';
const SHA = 'a'.repeat(40);
const CRITIC = 'security/secrets-detector';
const NOW = '2026-11-30T10:10:00.000Z';
let second = 0;
const envelope = (eventId?: string) => ({
  plan: PLAN,
  runId: RUN,
  at: new Date(Date.UTC(2026, 10, 30, 10, 0, (second += 1))).toISOString(),
  ...(eventId === undefined ? {} : { eventId }),
});

const catalogue = coreCatalogue(
  { [CRITIC]: { evidence: 'pattern', timeout_ms: 60_000 } },
  { critical: 8, medium: 8, low: 8, final_sweep: 2 },
);
const config = panelConfig(catalogue);
const delivery = deliveryTo;

const key: Finding = {
  id: 'secret-1',
  fingerprint: fingerprintOf({
    critic_id: CRITIC,
    file: 'src/config.js',
    line_range: { start: 2, end: 2 },
    finding_type: 'secret/aws-access-key',
  }),
  severity: 'critical',
  score: 9,
  category: 'security',
  finding_type: 'secret/aws-access-key',
  file: 'src/config.js',
  line_range: { start: 2, end: 2 },
  title: 'Committed secret',
  current_behaviour: 'a key is in the code',
  expected_behaviour: 'the key comes from the environment',
  observable_test_conditions: ['no key in src/config.js'],
  forbidden_in_test: [],
  raised_by: CRITIC,
  related_findings: [],
  fixable: false,
  related_locations: [],
};

function start(): JournaledEvent[] {
  return runStartEvents({
    plan: PLAN,
    runId: RUN,
    commit: SHA,
    at: () => envelope().at,
    repoPath: '/r',
    testCmd: 'true',
    submissionId: RUN,
    planSpec: { title: 'T', description: '', files: ['src/**'] },
    gate: { files: ['src/config.js'] },
  });
}

function review(round: number): JournaledEvent[] {
  const commit = round.toString(16).padStart(40, 'c');
  return [
    journaledEvent(
      'RoundStarted',
      {
        round,
        phase: 'critical',
        phase_round: round,
        k: 3,
        mode: 'loop',
        commit,
        base_commit: SHA,
        repo_path: '/r',
        files: ['src/config.js'],
        critics: [{ critic_id: CRITIC, evidence: 'pattern', core: true, reason: 'core', timeout_ms: 60_000 }],
        not_configured: [],
        deadline_at: '2026-12-01T00:00:00.000Z',
      },
      envelope(),
    ),
    journaledEvent(
      'FindingsReported',
      { round, critic_id: CRITIC, commit, findings: [key], truncated: false, duration_ms: 3 },
      envelope(),
    ),
    journaledEvent(
      'LetterWritten',
      {
        letter: {
          letter_id: `d_letter00000000${round}`,
          plan: PLAN,
          run_id: RUN,
          round,
          phase: 'critical',
          k: 3,
          commit,
          mode: 'loop',
          created_at: '2026-11-30T10:00:00.000Z',
          critics: [{ critic_id: CRITIC, core: true, outcome: 'reported', findings_total: 1, findings_kept: 1 }],
          findings: [key],
          counts: { critical: 1, medium: 0, low: 0 },
          complete: true,
          disagreements: [],
          summary: 'one secret',
        },
      },
      envelope(),
    ),
  ];
}

function untouchedFix(round: number): JournaledEvent {
  return journaledEvent(
    'FixApplied',
    {
      round,
      letter_id: `d_letter00000000${round}`,
      strategy: 'command',
      outcome: 'committed',
      fixes_applied: [
        { file: 'src/notes.js', fixed_findings: [], lines_changed: 1, hunks: [{ start: round, end: round }] },
      ],
      tests_added: [],
      tests_result: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
      base_commit: round.toString(16).padStart(40, 'c'),
      commit: (round + 1).toString(16).padStart(40, 'c'),
      diff_stats: { files_changed: 1, insertions: 1, deletions: 0 },
      duration_ms: 1,
    },
    envelope(),
  );
}

/** Three rounds whose fixes never touch the finding, up to the third letter (committed, not decided on yet). */
function stuckRun(journal: InMemoryJournal): void {
  journal.append(...start(), ...review(1), untouchedFix(1), ...review(2), untouchedFix(2), ...review(3));
}

describe('loop detection as a reactor of committed state (handler through Nest DI)', () => {
  let module: TestingModule | null = null;

  async function compile(journal: InMemoryJournal): Promise<TestingModule> {
    module = await compilePanel(journal, config, NOW);
    return module;
  }

  afterEach(async () => {
    await module?.close();
    module = null;
  });

  it('given a finding left untouched for three rounds, when the third letter is committed, then one LoopDetected is published, stamped with the version it was decided on', async () => {
    const journal = new InMemoryJournal();
    stuckRun(journal);
    const detector = (await compile(journal)).get(DetectController);
    const version = journal.state(PLAN).version;
    expect(thrownBy(await detector.onCommitted(journal.announce(PLAN, 3), delivery('panel-detect')))).toBeUndefined();
    expect(
      journal.published.map((e) => [
        e.type,
        e.type === 'LoopDetected' ? [e.data.heuristic, e.data.round, e.data.fingerprints] : null,
        e.decision?.expected_version,
        e.producer,
      ]),
    ).toEqual([['LoopDetected', ['persistent_issue', 3, [key.fingerprint]], version, 'panel@spec']]);
  });

  it('given the LoopDetected is committed, when the announcement is redelivered (or a second replica decides), then nothing new is published', async () => {
    const journal = new InMemoryJournal();
    stuckRun(journal);
    const detector = (await compile(journal)).get(DetectController);
    const letterCommit = journal.announce(PLAN, 3);
    await detector.onCommitted(letterCommit, delivery('panel-detect'));
    const [detected] = journal.published;
    if (detected?.type !== 'LoopDetected') throw new Error('expected a LoopDetected');
    journal.append(detected);
    expect(thrownBy(await detector.onCommitted(letterCommit, delivery('panel-detect', 2)))).toBeUndefined();
    expect(journal.published).toHaveLength(1);
  });

  it('given two such rounds, when the second letter is committed, then nothing is detected', async () => {
    const journal = new InMemoryJournal();
    journal.append(...start(), ...review(1), untouchedFix(1), ...review(2));
    const detector = (await compile(journal)).get(DetectController);
    expect(thrownBy(await detector.onCommitted(journal.announce(PLAN, 3), delivery('panel-detect')))).toBeUndefined();
    expect(journal.published).toEqual([]);
  });

  it('given the third letter is committed, when the decider sees it first, then it publishes the LoopDetected instead of a fix request, and escalates naming the heuristic once it is committed', async () => {
    const journal = new InMemoryJournal();
    stuckRun(journal);
    const decider = (await compile(journal)).get(DecideController);
    expect(thrownBy(await decider.onCommitted(journal.announce(PLAN, 3), delivery('panel-decide')))).toBeUndefined();
    expect(journal.published.map((e) => e.type)).toEqual(['LoopDetected']);
    const [detected] = journal.published;
    if (detected?.type !== 'LoopDetected') throw new Error('expected a LoopDetected');
    journal.append(detected);
    expect(thrownBy(await decider.onCommitted(journal.announce(PLAN), delivery('panel-decide')))).toBeUndefined();
    const escalation = journal.published[1];
    expect(escalation?.type).toBe('EscalationRaised');
    if (escalation?.type !== 'EscalationRaised') return;
    expect(escalation.data).toMatchObject({
      reason: 'heuristic',
      round: 3,
      report: { trigger: { kind: 'heuristic', heuristic: 'persistent_issue' } },
    });
  });
});
