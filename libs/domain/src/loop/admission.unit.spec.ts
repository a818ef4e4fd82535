import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import {
  append,
  baseline,
  event,
  gated,
  given,
  letterFor,
  panelContext,
  reportsFor,
  submitted,
} from '../testing/builders.test-helpers.js';
import { admitDecision } from './admission.js';
import { decideNext } from './decide.js';
import { stampDecision } from './envelope.js';
import type { LoopState } from './state.js';

const ctx = panelContext();

/** A state in round 1 with every critic's report in, waiting for its letter. */
function reviewed(): LoopState {
  let state = given(submitted(), gated(), baseline());
  state = append(state, stampDecision(decideNext(state, ctx), state.version));
  return append(state, reportsFor(state));
}

describe('the journal admits a decision only on the state it was decided on', () => {
  it('given a decision made on the run as it stands, when checked, then it is admitted', () => {
    const state = given(submitted(), gated(), baseline());
    const [started] = stampDecision(decideNext(state, ctx), state.version);
    expect(started?.decision).toEqual({ expected_version: state.version, id: started?.event_id });
    expect(admitDecision(state, { expected_version: state.version, id: 'd_anything000' })).toEqual({ admitted: true });
  });

  it("given a report that changed the round after a decision was made, when the decision is checked, then it is refused as stale with the run's version", () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, stampDecision(decideNext(state, ctx), state.version));
    const decidedOn = state.version;
    state = append(state, [
      event('CriticFailed', {
        round: 1,
        critic_id: 'security/sast-scanner',
        core: true,
        reason: 'crashed',
        message: 'boom',
      }),
    ]);
    expect(admitDecision(state, { expected_version: decidedOn, id: 'd_letter00000001' })).toEqual({
      admitted: false,
      reason: 'stale',
      actualVersion: decidedOn + 1,
    });
  });

  it('given late facts that change nothing (a second report of a critic, usage), when a decision made before them is checked, then it is still admitted', () => {
    const state = reviewed();
    const decidedOn = state.version;
    const late = append(state, [
      event('CriticFailed', {
        round: 1,
        critic_id: 'security/sast-scanner',
        core: true,
        reason: 'timed_out',
        message: 'late',
      }),
      event('UsageRecorded', {
        round: 1,
        dispatch: 'quality/code-reviewer',
        model: 'claude',
        input_tokens: 1,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cost_usd: 0.01,
      }),
    ]);
    expect(late.version).toBe(decidedOn + 2);
    expect(late.changed).toEqual(state.changed);
    expect(admitDecision(late, { expected_version: decidedOn, id: 'd_letter00000001' })).toEqual({ admitted: true });
  });

  it('given a decision of two events (phase advanced, next round), when its first event is appended, then the second is still admitted, but not after a change in between', () => {
    let state = reviewed();
    state = append(
      state,
      stampDecision([event('LetterWritten', { letter: letterFor(1, 'critical', []) })], state.version),
    );
    const decision = stampDecision(decideNext(state, ctx), state.version);
    expect(decision.map((e) => e.type)).toEqual(['PhaseAdvanced', 'RoundStarted']);
    const [advanced, started] = decision as [JournaledEvent, JournaledEvent];
    const stamp = started.decision;
    if (stamp === undefined) throw new Error('unstamped');
    const afterFirst = append(state, [advanced]);
    expect(admitDecision(afterFirst, stamp)).toEqual({ admitted: true });
    const interrupted = append(afterFirst, [event('LoopStopped', { by: 'ops' })]);
    expect(admitDecision(interrupted, stamp)).toMatchObject({ admitted: false, reason: 'stale' });
  });

  it('given a decision naming a version the run never had, when checked, then it is refused', () => {
    const state = given(submitted(), gated());
    expect(admitDecision(state, { expected_version: state.version + 3, id: 'd_forged0000001' })).toEqual({
      admitted: false,
      reason: 'ahead',
      actualVersion: state.version,
    });
  });

  it('given a decision already appended, when the same decision comes again from a second replica, then folding it changes nothing', () => {
    let state = given(submitted(), gated(), baseline());
    const decision = stampDecision(decideNext(state, ctx), state.version);
    state = append(state, decision);
    const again = append(state, decision);
    expect(again.changed).toEqual(state.changed);
    expect(again.current).toEqual(state.current);
  });
});
