import { describe, expect, it } from '@jest/globals';
import { RUN_ID, SHA_A, SHA_B, event, finding, gated, letterFor, planSpec } from '../testing/builders.test-helpers.js';
import { journalDocument } from './journal-document.js';

describe("the spec's journal.yaml view", () => {
  it('given two rounds with a fix between them, when exported, then each round has its critics, letter, fixes, tests and convergence delta', () => {
    const critics = [
      { critic_id: 'toolchain/compiler-linter', evidence: 'toolchain', core: true, reason: 'core', timeout_ms: 1000 },
    ];
    const roundData = (round: number, commit: string) => ({
      round,
      phase: 'critical' as const,
      phase_round: round,
      k: 3,
      mode: 'loop' as const,
      commit,
      base_commit: SHA_A,
      repo_path: '/repo',
      files: ['src/index.ts'],
      critics,
      not_configured: [],
      deadline_at: '2026-11-30T11:00:00.000Z',
    });
    const doc = journalDocument('add-billing', [
      event('PlanSubmitted', { plan: planSpec(), submission_id: 's' }, { event_id: RUN_ID }),
      gated(),
      event('RoundStarted', roundData(1, SHA_A)),
      event('LetterWritten', { letter: letterFor(1, 'critical', [finding()]) }),
      event('FixApplied', {
        round: 1,
        letter_id: 'd_letter00000001',
        strategy: 'autofix',
        outcome: 'committed',
        fixes_applied: [{ file: 'src/index.ts', fixed_findings: ['f-1'], lines_changed: 2, hunks: [] }],
        tests_added: [],
        tests_result: { added: 0, passed: 2, failed: 0, total: 2, regressions: 0, warnings: 0 },
        base_commit: SHA_A,
        commit: SHA_B,
        diff_stats: { files_changed: 1, insertions: 1, deletions: 1 },
        duration_ms: 5,
      }),
      event('RoundStarted', roundData(2, SHA_B)),
      event('LetterWritten', { letter: letterFor(2, 'critical', []) }),
    ]);
    expect(doc).toMatchObject({ plan: 'add-billing', run_id: RUN_ID, phase: 'critical', status: 'running' });
    expect(doc.rounds).toHaveLength(2);
    expect(doc.rounds[0]).toMatchObject({
      round: 1,
      critics_dispatched: ['toolchain/compiler-linter'],
      letter_id: 'd_letter00000001',
      fixes_applied: [{ file: 'src/index.ts', fixed_findings: ['f-1'], lines_changed: 2 }],
      tests_result: { passed: 2, total: 2 },
      convergence_delta: { critical_open_before: 1, critical_open_after: 0 },
    });
    expect(doc.rounds[0]?.findings_by_critic['toolchain/compiler-linter']).toMatchObject({
      reported: 1,
      kept: 1,
      outcome: 'reported',
    });
    expect(doc.rounds[1]?.convergence_delta).toEqual({ critical_open_before: 0, critical_open_after: null });
  });
});
