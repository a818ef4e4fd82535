import { describe, expect, it } from '@jest/globals';
import type { Letter } from '@rloop/contracts';
import {
  SHA_A,
  SHA_B,
  SHA_C,
  append,
  baseline,
  catalogue,
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
import { type LoopState, noteDetection } from './state.js';

const ctx = panelContext;
function withLetter(state: LoopState, letter: Letter): LoopState {
  const current = state.current;
  if (current === null) throw new Error('no round');
  return append(state, [
    ...reportsFor(state),
    event('LetterWritten', { letter: { ...letter, commit: current.commit } }),
  ]);
}

function fixed(state: LoopState, commit: string | null): LoopState {
  return append(state, [
    event('FixApplied', {
      round: state.round,
      letter_id: state.current?.letter?.letter_id ?? 'd_letter00000000',
      strategy: 'command',
      outcome: commit === null ? 'no_change' : 'committed',
      fixes_applied: [],
      tests_added: [],
      tests_result: { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 },
      base_commit: SHA_A,
      commit,
      diff_stats: { files_changed: 1, insertions: 1, deletions: 1 },
      duration_ms: 1,
    }),
  ]);
}

const detection = (
  round: number,
  heuristic: 'persistent_issue' | 'stall' | 'critic_disagreement' = 'persistent_issue',
) => ({
  event_id: `d_detect${heuristic}${round}`.slice(0, 64),
  heuristic,
  round,
  message: `${heuristic} fired in round ${round}`,
  fingerprints: ['abcdefabcdef'],
});

function inRound1(): LoopState {
  let state = given(submitted(), gated(), baseline());
  state = append(state, decideNext(state, ctx()));
  return state;
}

describe('the panel acts on the heuristics the journal put into the loop state', () => {
  it('given a detection noted with the letter of its round, when deciding, then the loop escalates naming the heuristic instead of asking for a fix', () => {
    const letter = letterFor(1, 'critical', [finding()]);
    const state = noteDetection(withLetter(inRound1(), letter), detection(1));
    const decided = decideNext(state, ctx({ letter }));
    expect(decided.map((e) => e.type)).toEqual(['EscalationRaised']);
    expect(decided[0]).toMatchObject({
      causation_id: 'd_detectpersistent_issue1',
      data: {
        reason: 'heuristic',
        report: {
          trigger: { kind: 'heuristic', heuristic: 'persistent_issue', detail: 'persistent_issue fired in round 1' },
        },
      },
    });
  });

  it('given a detection of an earlier round, when deciding on a later round, then it is stale and ignored', () => {
    const letter = letterFor(1, 'critical', [finding()]);
    const state = noteDetection(withLetter(inRound1(), letter), detection(0));
    expect(state.detections).toEqual([]);
    expect(decideNext(state, ctx({ letter })).map((e) => e.type)).toEqual(['FixRequested']);
  });

  it('given a detection and a clean complete letter, when deciding, then the phase still ends (nothing is left to be stuck on)', () => {
    const state = noteDetection(withLetter(inRound1(), letterFor(1, 'critical', [])), detection(1));
    expect(decideNext(state, ctx()).map((e) => e.type)).toEqual(['PhaseAdvanced', 'RoundStarted']);
  });

  it('given a detection on a letter past the soft cap, when deciding, then the escalation is soft_cap and names the heuristic too', () => {
    let state = inRound1();
    for (let round = 1; round <= catalogue.soft_caps.critical; round += 1) {
      const letter = letterFor(round, 'critical', [finding()]);
      state = withLetter(state, letter);
      state = append(state, decideNext(state, ctx({ letter })));
      state = fixed(state, round.toString(16).padStart(40, 'e'));
      state = append(state, decideNext(state, ctx()));
    }
    state = noteDetection(withLetter(state, letterFor(state.round, 'critical', [finding()])), detection(state.round));
    const [escalation] = decideNext(state, ctx());
    expect(escalation).toMatchObject({
      type: 'EscalationRaised',
      data: { reason: 'soft_cap', report: { trigger: { kind: 'soft_cap', heuristic: 'persistent_issue' } } },
    });
  });

  it('given a stall noted with the fix of its round, when deciding, then the loop escalates with stall rather than starting the next round', () => {
    const letter = letterFor(1, 'critical', [finding()]);
    let state = withLetter(inRound1(), letter);
    state = append(state, decideNext(state, ctx({ letter })));
    state = noteDetection(fixed(state, null), detection(1, 'stall'));
    expect(decideNext(state, ctx())).toMatchObject([
      { type: 'EscalationRaised', data: { report: { trigger: { heuristic: 'stall' } } } },
    ]);
  });

  it('given a disagreement, when the loop escalates, then the report carries both asks and renders a disagreement letter', () => {
    const letter = letterFor(1, 'critical', [finding()]);
    const sides = [
      {
        critic_id: 'toolchain/compiler-linter',
        finding_type: 'eslint/eqeqeq',
        fingerprint: 'aaaaaaaaaaaa',
        file: 'src/a.ts',
        line_range: { start: 3, end: 3 },
        title: 'use ===',
        expected_behaviour: 'compare with ===',
      },
      {
        critic_id: 'security/sast-scanner',
        finding_type: 'review/null-check',
        fingerprint: 'bbbbbbbbbbbb',
        file: 'src/a.ts',
        line_range: { start: 3, end: 3 },
        title: 'use == null',
        expected_behaviour: 'catch undefined too',
      },
    ];
    const state = noteDetection(withLetter(inRound1(), letter), {
      ...detection(1, 'critic_disagreement'),
      disagreement: sides,
    });
    const [escalation] = decideNext(state, ctx({ letter }));
    if (escalation?.type !== 'EscalationRaised') throw new Error('expected an escalation');
    expect(escalation.data.report.disagreement).toEqual(sides);
    expect(escalation.data.markdown).toContain('## Disagreement (not settled by priority rules)');
    expect(escalation.data.markdown).toContain('asks for: catch undefined too');
    expect(escalation.data.report.recommended_action).toContain('does not settle this by priority rules');
  });

  it('given an escalation a person resumed, when a late copy of the same LoopDetected is folded, then it does not escalate again', () => {
    const letter = letterFor(1, 'critical', [finding()]);
    let state = noteDetection(withLetter(inRound1(), letter), detection(1));
    state = append(state, decideNext(state, ctx({ letter })));
    expect(state.status).toBe('escalated');
    state = append(state, [event('LoopResumed', { escalation_id: state.escalation?.escalation_id ?? '', by: 'ops' })]);
    const copy = event(
      'LoopDetected',
      {
        heuristic: 'persistent_issue',
        round: 1,
        fingerprints: ['abcdefabcdef'],
        critic_ids: [],
        message: 'again',
        evidence: {},
      },
      { event_id: 'd_detectpersistent_issue1' },
    );
    state = append(state, [copy]);
    expect(state.detections).toEqual([]);
    expect(decideNext(state, ctx())).toMatchObject([{ type: 'RoundStarted', data: { round: 2 } }]);
  });
});

describe('best-round retention (FSM seed)', () => {
  it('given a round with more critical findings than the best round of the phase, when deciding, then the next round re-reviews the best commit and says why', () => {
    let state = inRound1();
    const first = letterFor(1, 'critical', [finding()]);
    state = withLetter(state, first);
    expect(state.best).toMatchObject({ round: 1, commit: SHA_A, critical: 1 });
    state = append(state, decideNext(state, ctx({ letter: first })));
    state = fixed(state, SHA_B);
    state = append(state, decideNext(state, ctx()));
    const worse = letterFor(2, 'critical', [finding(), finding({ id: 'f-2', line_range: { start: 9, end: 9 } })]);
    state = withLetter(state, worse);
    expect(state.best).toMatchObject({ round: 1 });
    const [next] = decideNext(state, ctx({ letter: worse }));
    expect(next).toMatchObject({
      type: 'RoundStarted',
      data: {
        round: 3,
        phase_round: 3,
        commit: SHA_A,
        retained_best: { best_round: 1, best_commit: SHA_A, worse_round: 2, worse_commit: SHA_B },
      },
    });
    state = append(state, next === undefined ? [] : [next]);
    expect(state.head).toBe(SHA_A);
    const again = letterFor(3, 'critical', [finding()]);
    state = withLetter(state, again);
    const roomy = { ...catalogue, soft_caps: { ...catalogue.soft_caps, critical: 8 } };
    expect(decideNext(state, ctx({ letter: again, catalogue: roomy }))).toMatchObject([
      { type: 'FixRequested', data: { base_commit: SHA_A } },
    ]);
  });

  it('given a round as good as or better than the best, when deciding, then the fix goes on from it', () => {
    let state = inRound1();
    const first = letterFor(1, 'critical', [finding(), finding({ id: 'f-2', line_range: { start: 9, end: 9 } })]);
    state = withLetter(state, first);
    state = append(state, decideNext(state, ctx({ letter: first })));
    state = fixed(state, SHA_C);
    state = append(state, decideNext(state, ctx()));
    const better = letterFor(2, 'critical', [finding()]);
    state = withLetter(state, better);
    expect(state.best).toMatchObject({ round: 2, commit: SHA_C });
    expect(decideNext(state, ctx({ letter: better }))).toMatchObject([
      { type: 'FixRequested', data: { base_commit: SHA_C } },
    ]);
  });

  it('given retention is switched off, when a round is worse, then the fix goes on from the worse commit', () => {
    let state = inRound1();
    const first = letterFor(1, 'critical', [finding()]);
    state = withLetter(state, first);
    state = append(state, decideNext(state, ctx({ letter: first })));
    state = fixed(state, SHA_B);
    state = append(state, decideNext(state, ctx()));
    const worse = letterFor(2, 'critical', [finding(), finding({ id: 'f-2', line_range: { start: 9, end: 9 } })]);
    state = withLetter(state, worse);
    expect(decideNext(state, ctx({ letter: worse, retention: false }))).toMatchObject([
      { type: 'FixRequested', data: { base_commit: SHA_B } },
    ]);
  });
});
