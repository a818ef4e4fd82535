import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent, Letter } from '@rloop/contracts';
import {
  RUN_ID,
  SHA_A,
  SHA_B,
  append,
  availability,
  baseline,
  catalogue,
  event,
  finding,
  gated,
  given,
  letterFor,
  panelContext,
  planSpec,
  reportsFor,
  submitted,
} from '../testing/builders.test-helpers.js';
import { decideNext, needsLetter } from './decide.js';
import { retryBackoffMs } from './retry.js';
import { infrastructureAction } from '../escalation/report.js';
import { withTimelines } from '../escalation/timelines.js';
import { evolveLoop, type LoopState } from './state.js';

const ctx = panelContext;

function withLetter(state: LoopState, letter: Letter): LoopState {
  return append(state, [...reportsFor(state), event('LetterWritten', { letter })]);
}

describe('the panel decides the next step from the journal', () => {
  it('given a gated plan whose baseline is recorded, when deciding, then round 1 of the critical phase starts on the baseline commit', () => {
    const state = given(submitted(), gated(), baseline());
    const [started, ...rest] = decideNext(state, ctx());
    expect(rest).toEqual([]);
    expect(started).toMatchObject({
      type: 'RoundStarted',
      correlation_id: RUN_ID,
      data: {
        round: 1,
        phase: 'critical',
        phase_round: 1,
        k: 3,
        mode: 'loop',
        commit: SHA_A,
        base_commit: SHA_A,
        repo_path: '/repo',
      },
    });
    if (started?.type !== 'RoundStarted') throw new Error('expected RoundStarted');
    expect(started.data.critics.map((c) => c.critic_id)).toEqual([
      'security/sast-scanner',
      'toolchain/compiler-linter',
    ]);
    expect(started.data.not_configured).toEqual([
      { critic_id: 'quality/code-reviewer', reason: 'ANTHROPIC_API_KEY is not set' },
    ]);
  });

  it('given a gated plan still waiting for its baseline, when deciding, then nothing happens', () => {
    expect(decideNext(given(submitted(), gated()), ctx())).toEqual([]);
  });

  it('given the same history, when two replicas decide at different times, then they produce the same event ids and data', () => {
    const state = given(submitted(), gated(), baseline());
    const a = decideNext(state, ctx({ now: '2026-11-30T12:00:00.000Z', producer: 'panel@a' }));
    const b = decideNext(state, ctx({ now: '2026-11-30T12:00:09.000Z', producer: 'panel@b' }));
    expect(a.map((e) => e.event_id)).toEqual(b.map((e) => e.event_id));
    expect(a.map((e) => e.data)).toEqual(b.map((e) => e.data));
  });

  it('given a round already started, when the same decision input is replayed, then no second round starts', () => {
    const state = given(submitted(), gated(), baseline());
    const afterStart = append(state, decideNext(state, ctx()));
    expect(decideNext(afterStart, ctx())).toEqual([]);
  });

  it('given a clean complete letter in the critical phase, when deciding, then the phase advances and a medium round starts', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    state = withLetter(state, letterFor(1, 'critical', []));
    const decided = decideNext(state, ctx());
    expect(decided.map((e) => e.type)).toEqual(['PhaseAdvanced', 'RoundStarted']);
    expect(decided[0]).toMatchObject({ data: { from: 'critical', to: 'medium', round: 1, reason: 'phase_clear' } });
    expect(decided[1]).toMatchObject({ data: { round: 2, phase: 'medium', phase_round: 1, k: 5 } });
  });

  it('given every phase comes back clean, when the final sweep is clean too, then the loop converges naming its panel', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    for (const phase of ['critical', 'medium', 'low'] as const) {
      state = withLetter(state, letterFor(state.round, phase, []));
      state = append(state, decideNext(state, ctx()));
    }
    expect(state.current?.phase).toBe('final_sweep');
    state = withLetter(state, letterFor(state.round, 'final_sweep', []));
    const [converged] = decideNext(state, ctx());
    expect(converged).toMatchObject({
      type: 'LoopConverged',
      data: {
        rounds: 4,
        final_commit: SHA_A,
        branch: 'rloop/add-billing',
        panel: { not_configured: [{ critic_id: 'quality/code-reviewer' }] },
      },
    });
  });

  it('given a letter with findings under the soft cap, when deciding with the letter at hand, then a fix is requested with everything the implementer needs', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    const letter = letterFor(1, 'critical', [finding()]);
    state = withLetter(state, letter);
    expect(needsLetter(state)).toBe(letter.letter_id);
    expect(decideNext(state, ctx())).toEqual([]);
    const [request] = decideNext(state, ctx({ letter }));
    expect(request).toMatchObject({
      type: 'FixRequested',
      data: {
        round: 1,
        attempt: 1,
        base_commit: SHA_A,
        branch: 'rloop/add-billing',
        repo_path: '/repo',
        test_cmd: 'npm test',
        implementer: { strategy: 'autofix' },
      },
    });
  });

  it('given a committed fix, when deciding, then the next round of the same phase reviews the fix commit', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    const letter = letterFor(1, 'critical', [finding()]);
    state = withLetter(state, letter);
    state = append(state, decideNext(state, ctx({ letter })));
    state = append(state, [
      event('FixApplied', {
        round: 1,
        letter_id: letter.letter_id,
        strategy: 'autofix',
        outcome: 'committed',
        fixes_applied: [],
        tests_added: [],
        tests_result: { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 },
        base_commit: SHA_A,
        commit: SHA_B,
        diff_stats: { files_changed: 1, insertions: 1, deletions: 1 },
        duration_ms: 100,
      }),
    ]);
    const [next] = decideNext(state, ctx());
    expect(next).toMatchObject({
      type: 'RoundStarted',
      data: { round: 2, phase: 'critical', phase_round: 2, commit: SHA_B },
    });
  });

  it('given findings persist past the soft cap, when deciding, then the loop escalates with a stuck-issue report in JSON and Markdown', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    for (let attempt = 1; attempt <= catalogue.soft_caps.critical; attempt += 1) {
      const letter = letterFor(state.round, 'critical', [finding()]);
      state = withLetter(state, letter);
      state = append(state, decideNext(state, ctx({ letter })));
      state = append(state, [
        event('FixApplied', {
          round: state.round,
          letter_id: letter.letter_id,
          strategy: 'autofix',
          outcome: 'no_change',
          fixes_applied: [],
          tests_added: [],
          tests_result: { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 },
          base_commit: SHA_A,
          commit: null,
          diff_stats: { files_changed: 0, insertions: 0, deletions: 0 },
          duration_ms: 1,
        }),
      ]);
      state = append(state, decideNext(state, ctx()));
    }
    const letter = letterFor(state.round, 'critical', [finding({ title: 'Unfixable type error' })]);
    state = withLetter(state, letter);
    const [escalation] = decideNext(state, ctx({ letter }));
    if (escalation?.type !== 'EscalationRaised') throw new Error(`expected an escalation, got ${escalation?.type}`);
    expect(escalation.data).toMatchObject({
      reason: 'soft_cap',
      phase: 'critical',
      round: 3,
      report: { trigger: { kind: 'soft_cap' } },
    });
    expect(escalation.data.report.findings.map((f) => f.title)).toEqual(['Unfixable type error']);
    expect(escalation.data.markdown).toContain('Unfixable type error');
    expect(escalation.data.report.recommended_action).toContain('rloop resume add-billing');
    // The panel reads the journal's timelines only once a decision escalates, and completes the report with them.
    const [own] = escalation.data.report.findings;
    if (own === undefined) throw new Error('expected a finding');
    const timelines = [
      {
        ...own,
        title: 'Unfixable type error (from the journal)',
        rounds: [
          { round: 1, present: true },
          { round: 2, present: true },
        ],
      },
    ];
    const completed = withTimelines(decideNext(state, ctx({ letter })), timelines);
    expect(completed).toEqual(decideNext(state, ctx({ letter, timelines })));
    expect(completed[0]?.type === 'EscalationRaised' ? completed[0].data.markdown : '').toContain('(from the journal)');
    expect(withTimelines(decideNext(state, ctx({ letter })), [])).toEqual(decideNext(state, ctx({ letter })));
  });

  it('given an empty letter from a round whose core critic failed, when deciding, then the round is retried rather than counted clean', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    state = withLetter(state, letterFor(1, 'critical', [], { complete: false }));
    const [retry, ...rest] = decideNext(state, ctx());
    expect(rest).toEqual([]);
    expect(retry).toMatchObject({ type: 'RoundStarted', data: { round: 2, phase: 'critical', phase_round: 2 } });
  });

  it('given the final sweep finds a critical, when deciding, then the loop re-enters the critical phase', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    for (const phase of ['critical', 'medium', 'low'] as const) {
      state = withLetter(state, letterFor(state.round, phase, []));
      state = append(state, decideNext(state, ctx()));
    }
    state = withLetter(state, letterFor(state.round, 'final_sweep', [finding()]));
    const decided = decideNext(state, ctx());
    expect(decided.map((e) => e.type)).toEqual(['PhaseAdvanced', 'RoundStarted']);
    expect(decided[0]).toMatchObject({
      data: { from: 'final_sweep', to: 'critical', reason: 'final_sweep_found_critical' },
    });
    expect(decided[1]).toMatchObject({ data: { phase: 'critical', phase_round: 1 } });
  });

  it('given a bypassed plan, when its single-pass letter is written, then the loop ends as bypassed without a fix', () => {
    let state = given(submitted(), gated({ verdict: 'bypass' }));
    const [round] = decideNext(state, ctx());
    expect(round).toMatchObject({
      type: 'RoundStarted',
      data: { mode: 'single_pass', phase: 'final_sweep', k: null, commit: SHA_A },
    });
    state = append(state, [round as JournaledEvent]);
    state = withLetter(state, letterFor(1, 'final_sweep', [finding()], { mode: 'single_pass' }));
    const [ended] = decideNext(state, ctx());
    expect(ended).toMatchObject({
      type: 'LoopBypassed',
      data: { verdict: 'bypass', round: 1, counts: { critical: 1 } },
    });
  });

  it('given a core critic with no heartbeat, when a round starts, then the round records a CriticFailed for it', () => {
    const state = given(submitted(), gated(), baseline());
    const decided = decideNext(
      state,
      ctx({
        availability: (id) =>
          id === 'security/sast-scanner' ? { state: 'unavailable', reason: 'no heartbeat for 30 s' } : availability(id),
      }),
    );
    expect(decided.map((e) => e.type)).toEqual(['RoundStarted', 'CriticFailed']);
    expect(decided[1]).toMatchObject({
      data: { critic_id: 'security/sast-scanner', core: true, reason: 'unavailable', message: 'no heartbeat for 30 s' },
    });
  });

  it('given an escalated loop, when a person resumes it with a raised cap, then the next round of the phase starts', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    state = withLetter(state, letterFor(1, 'critical', [finding()]));
    state = append(state, [
      event('EscalationRaised', {
        escalation_id: 'd_escalation000001',
        reason: 'heuristic',
        phase: 'critical',
        round: 1,
        report: {
          plan: 'add-billing',
          run_id: RUN_ID,
          phase: 'critical',
          round: 1,
          trigger: { kind: 'heuristic', detail: 'x' },
          findings: [],
          recommended_action: 'look',
        },
        markdown: '# x',
      }),
    ]);
    expect(decideNext(state, ctx())).toEqual([]);
    state = append(state, [
      event('LoopResumed', { escalation_id: 'd_escalation000001', raise_cap: 3, by: 'ops', note: 'try again' }),
    ]);
    expect(state.cap_bonus.critical).toBe(3);
    const [next] = decideNext(state, ctx());
    expect(next).toMatchObject({ type: 'RoundStarted', data: { round: 2, phase: 'critical', phase_round: 2 } });
  });

  it('given a stopped loop, when deciding, then nothing more happens', () => {
    const state = given(submitted(), gated(), baseline(), event('LoopStopped', { by: 'ops' }));
    expect(state.status).toBe('stopped');
    expect(decideNext(state, ctx())).toEqual([]);
  });

  it('given a heuristic detection during a loop, when deciding, then the loop escalates naming the heuristic', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    const [escalation] = decideNext(
      state,
      ctx({ detection: { heuristic: 'oscillation', detail: 'F came back', event_id: '01JDETECT000000000000000001' } }),
    );
    expect(escalation).toMatchObject({
      type: 'EscalationRaised',
      data: { reason: 'heuristic', report: { trigger: { heuristic: 'oscillation' } } },
    });
  });
});

describe('a core critic that cannot run', () => {
  const failed = (round: number, reason: 'not_runnable' | 'unauthorised' | 'crashed', message: string) =>
    event('CriticFailed', { round, critic_id: 'toolchain/compiler-linter', core: true, reason, message });

  /** Runs rounds whose compiler-linter fails as given and whose other critics report nothing; returns the state after the last letter. */
  function roundsFailing(
    failures: readonly (readonly ['not_runnable' | 'unauthorised' | 'crashed', string])[],
  ): LoopState {
    let state = given(submitted(), gated(), baseline());
    for (const [reason, message] of failures) {
      const decided = decideNext(state, ctx());
      expect(decided.map((e) => e.type)).toEqual(['RoundStarted']);
      state = append(state, decided);
      state = append(state, [
        failed(state.round, reason, message),
        event('FindingsReported', {
          round: state.round,
          critic_id: 'security/sast-scanner',
          commit: SHA_A,
          findings: [],
          truncated: false,
          duration_ms: 1,
        }),
        event('LetterWritten', { letter: letterFor(state.round, 'critical', [], { complete: false }) }),
      ]);
    }
    return state;
  }

  it("given a core critic that could not run in two rounds in a row, when deciding, then the loop escalates at once with the reason, the critic's message and what to fix", () => {
    const state = roundsFailing([
      ['not_runnable', 'tsc could not run: spawn tsc ENOENT'],
      ['not_runnable', 'tsc could not run: spawn tsc ENOENT'],
    ]);
    const [escalation, ...rest] = decideNext(state, ctx());
    expect(rest).toEqual([]);
    expect(escalation).toMatchObject({ type: 'EscalationRaised', data: { reason: 'critic_failures', round: 2 } });
    if (escalation?.type !== 'EscalationRaised') throw new Error('expected an escalation');
    expect(escalation.data.report.trigger.detail).toBe(
      'core critic toolchain/compiler-linter could not run (not_runnable) in rounds 1 and 2: tsc could not run: spawn tsc ENOENT',
    );
    expect(escalation.data.report.recommended_action).toMatch(/install the toolchain/);
    expect(escalation.data.report.recommended_action).toContain('rloop resume add-billing');
  });

  it('given npm audit that cannot reach its advisories, when advice is written, then it names the advisory source to configure', () => {
    expect(infrastructureAction('toolchain/dependency-audit', 'not_runnable')).toMatch(/advisory source .*registry/);
    expect(infrastructureAction('security/sast-scanner', 'unavailable')).toMatch(/start a critic-runner/);
  });

  it('given a rejected API key in two rounds in a row, when deciding, then the escalation names the key to set', () => {
    const state = roundsFailing([
      ['unauthorised', '401 invalid x-api-key'],
      ['unauthorised', '401 invalid x-api-key'],
    ]);
    const [escalation] = decideNext(state, ctx());
    if (escalation?.type !== 'EscalationRaised') throw new Error('expected an escalation');
    expect(escalation.data.report.recommended_action).toContain('ANTHROPIC_API_KEY');
  });

  it('given one infrastructure failure, or two different reasons, or a crash twice, when deciding, then the round is run again', () => {
    for (const failures of [
      [['not_runnable', 'no npm']],
      [
        ['not_runnable', 'no npm'],
        ['unauthorised', 'bad key'],
      ],
      [
        ['crashed', 'boom'],
        ['crashed', 'boom'],
      ],
    ] as const) {
      const [next] = decideNext(roundsFailing(failures), ctx());
      expect(next).toMatchObject({ type: 'RoundStarted', data: { round: failures.length + 1 } });
    }
  });

  it('given rounds run again after incomplete letters, when their start is timed, then each waits twice as long as the one before, up to the cap', () => {
    const backoff = { initial_ms: 2_000, max_ms: 5_000 };
    const waits = [1, 2, 3].map((n) => {
      const state = roundsFailing(Array.from({ length: n }, () => ['crashed', 'boom'] as const));
      const letterAt = Date.parse(state.current?.letter?.occurred_at ?? '');
      return retryBackoffMs(state, letterAt + 500, backoff);
    });
    expect(waits).toEqual([1_500, 3_500, 4_500]);
    const state = roundsFailing([['crashed', 'boom']]);
    expect(retryBackoffMs(state, Date.parse(state.current?.letter?.occurred_at ?? '') + 2_000, backoff)).toBeNull();
  });

  it('given a complete letter or one with findings, when the next round is timed, then it does not wait', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    state = withLetter(state, letterFor(1, 'critical', [finding()], { complete: false }));
    expect(retryBackoffMs(state, Date.now(), { initial_ms: 60_000, max_ms: 60_000 })).toBeNull();
  });
});

describe('the loop state', () => {
  it('given a report for a round that already has its letter, when folded, then the state does not change', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    state = withLetter(state, letterFor(1, 'critical', []));
    const late = event('CriticFailed', {
      round: 1,
      critic_id: 'security/sast-scanner',
      core: true,
      reason: 'timed_out',
      message: 'late',
    });
    const after = evolveLoop(state, late, state.version + 1);
    expect(after.current).toEqual(state.current);
  });

  it('given a loop in round 1, when a LoopConverged its history does not support is folded, then the loop goes on', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx()));
    const forged = event('LoopConverged', {
      rounds: 1,
      letter_id: 'd_letter00000001',
      final_commit: SHA_A,
      branch: 'rloop/add-billing',
      panel: { critics: [], not_configured: [] },
    });
    const after = evolveLoop(state, forged, state.version + 1);
    expect({ status: after.status, outcome: after.outcome_event_id }).toEqual({ status: 'reviewing', outcome: null });
  });

  it('given a second submission while the loop runs, when folded, then the running loop is kept', () => {
    const state = given(submitted(), gated());
    const again = evolveLoop(
      state,
      event('PlanSubmitted', { plan: planSpec({ title: 'again' }), submission_id: 'sub-2' }),
      state.version + 1,
    );
    expect(again.run_id).toBe(RUN_ID);
    expect(again.spec?.title).toBe('Add billing');
  });
});
