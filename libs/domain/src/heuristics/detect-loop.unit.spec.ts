import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import { RUN_ID, SHA_A, event } from '../testing/builders.test-helpers.js';
import { type LoopState, evolveLoop, initialLoopState } from '../loop/state.js';
import { type RunEntry, detectLoop } from './detect-loop.js';
import { loopDetectedEvent } from './detection.js';
import { Scenario, issue } from './scenario.test-helpers.js';

// The loop-detection reactor's decision (services/panel/src/detection): the heuristics that fired
// on the committed run and still need their LoopDetected.

const A = issue({ finding_type: 'tsc/TS2322', file: 'src/a.ts', line: 10, title: 'A: type mismatch' });
const untouched = { other: [{ file: 'src/unrelated.ts', hunks: [{ start: 1, end: 1 }] }] };

const baseline = (): JournaledEvent =>
  event('BaselineRecorded', { commit: SHA_A, branch: 'rloop/add-billing', tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 }, exit_code: 0, failing: [], duration_ms: 1 });

/** The run as the journal commits it (the scenario's events with the baseline after the gating), and its loop state. */
function committed(events: readonly JournaledEvent[]): { entries: RunEntry[]; state: LoopState } {
  const [submitted, gated, ...rest] = events;
  if (submitted === undefined || gated === undefined) throw new Error('no run');
  const entries = [submitted, gated, baseline(), ...rest].map((e, i) => ({ position: i + 1, event: e }));
  return { entries, state: entries.reduce((s, e) => evolveLoop(s, e.event, e.position), initialLoopState('add-billing')) };
}

function stuckThreeRounds(): Scenario {
  const loop = new Scenario();
  loop.round({ findings: [A], fix: untouched });
  loop.round({ findings: [A], fix: untouched });
  loop.round({ findings: [A] });
  return loop;
}

describe('detectLoop', () => {
  it('given a finding left untouched for three rounds, when the third letter is committed, then it names one persistent_issue of round 3 for this run', () => {
    const { entries, state } = committed(stuckThreeRounds().events);
    const detections = detectLoop(state, entries, new Scenario().config);
    expect(detections.map((d) => [d.heuristic, d.round, d.run_id])).toEqual([['persistent_issue', 3, RUN_ID]]);
    expect(detections[0]?.fingerprints).toEqual([A.fingerprint]);
  });

  it('given two such rounds, when the second letter is committed, then nothing fired', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: untouched });
    loop.round({ findings: [A] });
    const { entries, state } = committed(loop.events);
    expect(detectLoop(state, entries, loop.config)).toEqual([]);
  });

  it('given its LoopDetected is committed, when a redelivery or a second replica decides again, then nothing is left to journal', () => {
    const loop = stuckThreeRounds();
    const first = committed(loop.events);
    const [detection] = detectLoop(first.state, first.entries, loop.config);
    if (detection === undefined) throw new Error('nothing fired');
    const { entries, state } = committed([...loop.events, loopDetectedEvent(detection, 'panel@test')]);
    expect(state.detections.map((d) => d.event_id)).toEqual([detection.event_id]);
    expect(detectLoop(state, entries, loop.config)).toEqual([]);
    // Even on a state that has not folded it yet (it is only in the run's events): no second copy.
    expect(detectLoop({ ...state, detections: [] }, entries, loop.config)).toEqual([]);
  });

  it('given a state older than the letter that fires, when deciding on it, then the events after its version are left to the commit that announces them', () => {
    const { entries, state } = committed(stuckThreeRounds().events);
    const before = entries.slice(0, -1).reduce((s, e) => evolveLoop(s, e.event, e.position), initialLoopState('add-billing'));
    expect(detectLoop(before, entries, new Scenario().config)).toEqual([]);
    expect(state.version).toBe(entries.length);
  });

  it('given the round that fired is over (the next round started), when deciding, then the stale detection is never journaled late', () => {
    const loop = stuckThreeRounds();
    loop.round({ findings: [] });
    const { entries, state } = committed(loop.events);
    expect(state.round).toBe(4);
    expect(detectLoop(state, entries, loop.config)).toEqual([]);
  });
});
