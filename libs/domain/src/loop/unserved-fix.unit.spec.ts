import { describe, expect, it } from '@jest/globals';
import {
  RUN_ID,
  SHA_A,
  SHA_B,
  append,
  baseline,
  event,
  finding,
  gated,
  given,
  letterFor,
  panelContext,
  reportsFor,
  submitted,
} from '../testing/builders.test-helpers.js';
import { decideNext } from './decide.js';
import { evolveLoop, type LoopState } from './state.js';
import { DEFAULT_UNSERVED_FIX_POLICY, decideUnservedFix } from './unserved-fix.js';

const ctx = panelContext();
const meta = {
  plan: 'add-billing',
  run_id: RUN_ID,
  causation_id: 'd_guard',
  producer: 'panel@test',
  now: '2026-11-30T12:30:00.000Z',
};
const policy = { deadline_ms: 600_000, retry_initial_ms: 2_000, retry_max_ms: 60_000 };

/** A run whose round-1 fix was requested; returns it with the time its letter was written. */
function fixing(): { state: LoopState; letterAt: number } {
  let state = given(
    submitted(),
    gated({ repo_path: '/repos/billing', repo_url: 'https://example.com/org/billing.git' }),
    baseline({ tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 }, duration_ms: 1 }),
  );
  state = append(state, decideNext(state, ctx));
  const letter = { ...letterFor(1, 'critical', [finding()]), commit: SHA_B };
  state = append(state, [...reportsFor(state, {}, 1), event('LetterWritten', { letter })]);
  state = append(state, decideNext(state, { ...ctx, letter }));
  const at = state.current?.letter?.occurred_at;
  if (state.status !== 'fixing' || at === undefined) throw new Error('setup: the run is not fixing');
  return { state, letterAt: Date.parse(at) };
}

describe('a fix request nobody can serve (decideUnservedFix)', () => {
  it('given a fix requested moments ago, when an attempt failed, then it is retried with a backoff that doubles and is capped', () => {
    const { state, letterAt } = fixing();
    const after = (attempts: number) =>
      decideUnservedFix(state, { now_ms: letterAt + 1_000, attempts, failure: 'unreachable' }, policy, meta);
    expect(after(1)).toEqual({ kind: 'retry', after_ms: 2_000 });
    expect(after(2)).toEqual({ kind: 'retry', after_ms: 4_000 });
    expect(after(4)).toEqual({ kind: 'retry', after_ms: 16_000 });
    expect(after(20)).toEqual({ kind: 'retry', after_ms: 60_000 });
  });

  it('given the deadline is near, when retried, then the next look is at the deadline, not past it', () => {
    const { state, letterAt } = fixing();
    expect(decideUnservedFix(state, { now_ms: letterAt + 599_000, attempts: 10, failure: null }, policy, meta)).toEqual(
      { kind: 'retry', after_ms: 1_000 },
    );
  });

  it('given the deadline has passed, when decided, then the loop escalates with reason implementer_failed, saying why; the implementer and the guard raise the same event', () => {
    const { state, letterAt } = fixing();
    const byImplementer = decideUnservedFix(
      state,
      { now_ms: letterAt + 600_000, attempts: 7, failure: 'git fetch: connection refused' },
      policy,
      meta,
    );
    if (byImplementer.kind !== 'escalate') throw new Error(`expected an escalation, got ${byImplementer.kind}`);
    expect(byImplementer.event.data).toMatchObject({ reason: 'implementer_failed', round: 1 });
    expect(byImplementer.event.data.report.trigger.detail).toContain('connection refused');
    expect(byImplementer.event.data.report.recommended_action).toContain('RLOOP_FIX_DEADLINE_MS');
    const byGuard = decideUnservedFix(state, { now_ms: letterAt + 900_000, attempts: 1, failure: null }, policy, {
      ...meta,
      producer: 'panel@other',
    });
    expect(byGuard.kind === 'escalate' && byGuard.event.event_id).toBe(byImplementer.event.event_id);
    // Folded, the escalation ends the wait: nothing is awaited any more.
    const escalated = evolveLoop(state, byImplementer.event, state.version + 1);
    expect(
      decideUnservedFix(escalated, { now_ms: letterAt + 900_000, attempts: 1, failure: null }, policy, meta),
    ).toEqual({ kind: 'served' });
  });

  it('given the fix was applied, or a run not fixing, when decided, then nothing waits', () => {
    const { state, letterAt } = fixing();
    const applied = evolveLoop(
      state,
      event('FixApplied', {
        round: 1,
        letter_id: state.current?.letter?.letter_id ?? '',
        strategy: 'autofix',
        outcome: 'no_change',
        reason: 'nothing',
        fixes_applied: [],
        tests_added: [],
        tests_result: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
        base_commit: SHA_A,
        commit: null,
        diff_stats: { files_changed: 0, insertions: 0, deletions: 0 },
        duration_ms: 1,
      }),
      state.version + 1,
    );
    expect(
      decideUnservedFix(
        applied,
        { now_ms: letterAt + 10_000_000, attempts: 1, failure: null },
        DEFAULT_UNSERVED_FIX_POLICY,
        meta,
      ),
    ).toEqual({ kind: 'served' });
  });
});
