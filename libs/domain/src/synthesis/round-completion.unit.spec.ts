import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import { RUN_ID, SHA_A, event, given, letterFor, planSpec } from '../testing/builders.test-helpers.js';
import { roundCompletion } from './round-completion.js';

// When is a round complete: every dispatched critic answered, or the deadline passed.

const LINTER = 'toolchain/compiler-linter';
const SAST = 'security/sast-scanner';
const DEADLINE = Date.parse('2026-11-30T12:00:00.000Z');

const started = (): JournaledEvent[] => [
  event('PlanSubmitted', { plan: planSpec(), submission_id: 'sub-1' }, { event_id: RUN_ID }),
  event('LoopGated', { verdict: 'run', rules: [], commit: SHA_A, files: ['src/index.ts'], repo_path: '/repo', test_cmd: 'npm test' }),
  event('BaselineRecorded', { commit: SHA_A, branch: 'rloop/add-billing', tests: { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 }, exit_code: 0, failing: [], duration_ms: 10 }),
  event('RoundStarted', {
    round: 1,
    phase: 'critical',
    phase_round: 1,
    k: 3,
    mode: 'loop',
    commit: SHA_A,
    base_commit: SHA_A,
    repo_path: '/repo',
    files: ['src/index.ts'],
    critics: [LINTER, SAST].map((critic_id) => ({ critic_id, evidence: 'toolchain', core: true, reason: 'core', timeout_ms: 1000 })),
    not_configured: [],
    deadline_at: new Date(DEADLINE).toISOString(),
  }),
];
const reported = (critic_id: string) => event('FindingsReported', { round: 1, critic_id, commit: SHA_A, findings: [], truncated: false, duration_ms: 5 });
const failed = (critic_id: string) => event('CriticFailed', { round: 1, critic_id, core: true, reason: 'crashed', message: 'boom' });

describe('roundCompletion', () => {
  it('given every dispatched critic answered (a report or a failure), when checked, then the round is complete', () => {
    expect(roundCompletion(given(...started(), reported(LINTER), failed(SAST)), DEADLINE - 5000)).toMatchObject({ kind: 'complete', round: { round: 1 } });
  });

  it('given a critic still due before the deadline, when checked, then wait until the deadline for it', () => {
    expect(roundCompletion(given(...started(), reported(LINTER)), DEADLINE - 5000)).toEqual({ kind: 'wait', ms: 5000, missing: [{ critic_id: SAST, core: true }] });
  });

  it('given a critic silent at the deadline, when checked, then it times out', () => {
    expect(roundCompletion(given(...started(), reported(LINTER)), DEADLINE)).toEqual({ kind: 'time_out', missing: [{ critic_id: SAST, core: true }] });
  });

  it('given the letter is written, or no run, when checked, then there is nothing to do', () => {
    const lettered = given(...started(), reported(LINTER), reported(SAST), event('LetterWritten', { letter: letterFor(1, 'critical', []) }));
    expect(roundCompletion(lettered, DEADLINE + 1)).toEqual({ kind: 'none' });
    expect(roundCompletion(given(), DEADLINE)).toEqual({ kind: 'none' });
    expect(roundCompletion(null, DEADLINE)).toEqual({ kind: 'none' });
  });
});
