import { describe, expect, it } from '@jest/globals';
import { RUN_ID, event, planSpec } from '../testing/builders.test-helpers.js';
import { loopDetectedEvent } from './detection.js';
import { evolveMemory, initialLoopMemory } from './memory.js';
import { DEFAULT_LOOP_CONFIG, Scenario, issue } from './scenario.test-helpers.js';

// The loop memory as a read model: one pure evolve(memory, event) — the fold the journal projects
// (loop_memory, round_history, runs, learnings) and the panel's loop-detection reactor decides with.
// The heuristics it calls have their own specs; this one says what the fold keeps.

const OTHER_RUN = '01JRUN0000000000000000000B';
const A = issue({ finding_type: 'tsc/TS2322', file: 'src/a.ts', line: 10 });
const untouched = { other: [{ file: 'src/unrelated.ts', hunks: [{ start: 1, end: 1 }] }] };

describe('evolveMemory', () => {
  it("given no run, when the plan's PlanSubmitted is folded, then the memory follows that run and its run row starts as running", () => {
    const step = evolveMemory(
      initialLoopMemory('add-billing'),
      event('PlanSubmitted', { plan: planSpec(), submission_id: 'sub-1' }, { event_id: RUN_ID }),
      1,
      DEFAULT_LOOP_CONFIG,
    );
    expect(step.memory).toMatchObject({ run_id: RUN_ID, ended: false, version: 1 });
    expect(step.run).toMatchObject({ run_id: RUN_ID, plan: 'add-billing', status: 'running', rounds: 0 });
    expect(step.detections).toEqual([]);
  });

  it('given a run under way, when an event of another run or a second PlanSubmitted comes, then only the version moves and no row changes', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: untouched });
    const before = loop.memory;
    for (const late of [
      event('LoopStopped', { by: 'ops@test', note: 'late' }, { correlation_id: OTHER_RUN }),
      event('PlanSubmitted', { plan: planSpec(), submission_id: 'sub-2' }, { event_id: OTHER_RUN }),
    ]) {
      const step = evolveMemory(before, late, before.version + 1, loop.config);
      expect(step).toEqual({
        memory: { ...before, version: before.version + 1 },
        detections: [],
        round: null,
        run: null,
        learnings: [],
      });
    }
  });

  it("given a round's reports, when its letter is folded, then the round-history row holds the letter and each reported pattern is a learning", () => {
    const loop = new Scenario();
    const { history } = loop.round({ findings: [A] });
    expect(history).toMatchObject({
      round: 1,
      phase: 'critical',
      findings: 1,
      counts: { critical: 1, medium: 0, low: 0 },
      complete: true,
      detections: [],
    });
    const letterStep = loop.steps.find((s) => s.learnings.length > 0);
    expect(letterStep?.learnings).toEqual([
      expect.objectContaining({ critic_id: A.raised_by, finding_type: A.finding_type, new_loop: true, rounds_seen: 1 }),
    ]);
    expect(loop.memory.trackers.map((t) => [t.key, t.streak])).toEqual([[A.fingerprint, 1]]);
  });

  it('given a heuristic fired, when its LoopDetected comes back from the journal, then the run row counts it once', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: untouched });
    loop.round({ findings: [A], fix: untouched });
    const [detection] = loop.round({ findings: [A] }).detections;
    if (detection === undefined) throw new Error('nothing fired');
    expect(loop.memory.run?.detections).toEqual([{ heuristic: 'persistent_issue', round: 3 }]);
    const step = loop.fold(loopDetectedEvent(detection, 'panel@test'));
    expect(step.detections).toEqual([]);
    expect(step.memory.run?.detections).toEqual([{ heuristic: 'persistent_issue', round: 3 }]);
  });

  it('given a run under way, when it is stopped, then the memory has ended and the run row says so; the next PlanSubmitted starts afresh', () => {
    const loop = new Scenario();
    loop.round({ findings: [A], fix: untouched });
    const stopped = loop.fold(event('LoopStopped', { by: 'ops@test', note: 'enough' }));
    expect(stopped.memory.ended).toBe(true);
    expect(stopped.run).toMatchObject({ status: 'stopped' });
    const next = loop.fold(
      event('PlanSubmitted', { plan: planSpec(), submission_id: 'sub-2' }, { event_id: OTHER_RUN }),
    );
    expect(next.memory).toMatchObject({ run_id: OTHER_RUN, trackers: [], ended: false });
  });
});
