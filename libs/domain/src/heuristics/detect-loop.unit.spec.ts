import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import { RUN_ID, baseline as baselineOf } from '../testing/builders.test-helpers.js';
import { type LoopState, evolveLoop, initialLoopState } from '../loop/state.js';
import { type RunEntry, detectLoop } from './detect-loop.js';
import { loopDetectedEvent } from './detection.js';
import { Scenario, issue } from './scenario.test-helpers.js';

// The loop-detection reactor's decision (services/panel/src/detection): the heuristics that fired
// on the committed run and still need their LoopDetected.

const A = issue({ finding_type: 'tsc/TS2322', file: 'src/a.ts', line: 10, title: 'A: type mismatch' });
const untouched = { other: [{ file: 'src/unrelated.ts', hunks: [{ start: 1, end: 1 }] }] };

const baseline = (): JournaledEvent =>
  baselineOf({ tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 }, duration_ms: 1 });

/** The run as the journal commits it (the scenario's events with the baseline after the gating), and its loop state. */
function committed(events: readonly JournaledEvent[]): { entries: RunEntry[]; state: LoopState } {
  const [submitted, gated, ...rest] = events;
  if (submitted === undefined || gated === undefined) throw new Error('no run');
  const entries = [submitted, gated, baseline(), ...rest].map((e, i) => ({ position: i + 1, event: e }));
  return {
    entries,
    state: entries.reduce((s, e) => evolveLoop(s, e.event, e.position), initialLoopState('add-billing')),
  };
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
    const detections = detectLoop(state, entries, new Scenario().config).detections;
    expect(detections.map((d) => [d.heuristic, d.round, d.run_id])).toEqual([['persistent_issue', 3, RUN_ID]]);
    expect(detections[0]?.fingerprints).toEqual([A.fingerprint]);
  });

  it('given two such rounds, when the second letter is committed, then nothing fired', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: untouched });
    loop.round({ findings: [A] });
    const { entries, state } = committed(loop.events);
    expect(detectLoop(state, entries, loop.config).detections).toEqual([]);
  });

  it('given its LoopDetected is committed, when a redelivery or a second replica decides again, then nothing is left to journal', () => {
    const loop = stuckThreeRounds();
    const first = committed(loop.events);
    const [detection] = detectLoop(first.state, first.entries, loop.config).detections;
    if (detection === undefined) throw new Error('nothing fired');
    const { entries, state } = committed([...loop.events, loopDetectedEvent(detection, 'panel@test')]);
    expect(state.detections.map((d) => d.event_id)).toEqual([detection.event_id]);
    expect(detectLoop(state, entries, loop.config).detections).toEqual([]);
    // Even on a state that has not folded it yet (it is only in the run's events): no second copy.
    expect(detectLoop({ ...state, detections: [] }, entries, loop.config).detections).toEqual([]);
  });

  it('given a state older than the letter that fires, when deciding on it, then the events after its version are left to the commit that announces them', () => {
    const { entries, state } = committed(stuckThreeRounds().events);
    const before = entries
      .slice(0, -1)
      .reduce((s, e) => evolveLoop(s, e.event, e.position), initialLoopState('add-billing'));
    expect(detectLoop(before, entries, new Scenario().config).detections).toEqual([]);
    expect(state.version).toBe(entries.length);
  });

  it('given the round that fired is over (the next round started), when deciding, then the stale detection is never journaled late', () => {
    const loop = stuckThreeRounds();
    loop.round({ findings: [] });
    const { entries, state } = committed(loop.events);
    expect(state.round).toBe(4);
    expect(detectLoop(state, entries, loop.config).detections).toEqual([]);
  });

  it('given the checkpoint of a decision after round 2, when only the events since are folded from it, then it detects what a fold from the start detects, and its checkpoint keeps only what can still be live', () => {
    const loop = stuckThreeRounds();
    const { entries, state } = committed(loop.events);
    const cut = entries.findIndex((e) => e.event.type === 'RoundStarted' && e.event.data.round === 3);
    const earlier = entries
      .slice(0, cut)
      .reduce((s, e) => evolveLoop(s, e.event, e.position), initialLoopState('add-billing'));
    const { checkpoint } = detectLoop(earlier, entries.slice(0, cut), loop.config);
    expect(checkpoint).toMatchObject({ run_id: RUN_ID, version: earlier.version, fired: [] });
    const incremental = detectLoop(state, entries.slice(cut), loop.config, checkpoint);
    const whole = detectLoop(state, entries, loop.config);
    expect(incremental.detections).toEqual(whole.detections);
    expect(incremental.checkpoint).toEqual(whole.checkpoint);
    expect(incremental.checkpoint?.fired.map((d) => [d.heuristic, d.round])).toEqual([['persistent_issue', 3]]);
    // Handed the whole run with the checkpoint, the events up to it change nothing (skipped, and the fold ignores what it has seen).
    expect(detectLoop(state, entries, loop.config, checkpoint).checkpoint).toEqual(whole.checkpoint);
  });

  it('given a checkpoint of another run or ahead of the state, when deciding, then it is not used: the run is folded from its start', () => {
    const loop = stuckThreeRounds();
    const { entries, state } = committed(loop.events);
    const { checkpoint } = detectLoop(state, entries, loop.config);
    if (checkpoint === null) throw new Error('no checkpoint');
    const stale = { ...checkpoint, fired: [], memory: { ...checkpoint.memory, trackers: [] } };
    expect(
      detectLoop(state, entries, loop.config, { ...stale, run_id: 'd_another_run' }).detections.map((d) => d.heuristic),
    ).toEqual(['persistent_issue']);
    expect(
      detectLoop(state, entries, loop.config, { ...stale, version: state.version + 1 }).detections.map(
        (d) => d.heuristic,
      ),
    ).toEqual(['persistent_issue']);
  });
});
