import { describe, expect, it } from '@jest/globals';
import { journalDocument } from '../journal/journal-document.js';
import { calibrate } from './calibrate.js';
import { DEFAULT_LOOP_CONFIG } from './config.js';
import { loopDetectedEvent } from './detection.js';
import { type RunSummaryRow, evolveMemory, initialLoopMemory } from './memory.js';
import { Scenario, issue } from './scenario.test-helpers.js';
import { findingTimelines, patchOfFile } from './timelines.js';

const A = issue({ finding_type: 'tsc/TS2322', file: 'src/a.ts', line: 10, title: 'A', score: 9 });
const B = issue({ finding_type: 'tsc/TS2345', file: 'src/b.ts', line: 20, title: 'B', score: 8 });

describe('finding timelines', () => {
  it('given a finding that went and came back with attempts, when its timeline is built, then it shows each round and each attempt, skipping rounds its critic did not report', () => {
    const loop = new Scenario({ oscillation: { reappearances: 5 } });
    loop.round({ findings: [A, B], fix: { touched: [{ finding: A, hunks: [{ start: 10, end: 10 }] }] } });
    loop.round({ findings: [B], failed: {}, fix: { touched: [{ finding: B, hunks: [{ start: 20, end: 20 }] }] } });
    loop.round({ findings: [A], failed: { 'security/sast-scanner': 'crashed' } });
    const [timeline] = findingTimelines(loop.memory, { fingerprints: [A.fingerprint], limit: 10, maxRounds: 50 });
    expect(timeline?.timeline).toMatchObject({
      fingerprint: A.fingerprint,
      title: 'A',
      rounds: [
        { round: 1, present: true },
        { round: 2, present: false },
        { round: 3, present: true },
      ],
      attempts: [{ round: 1, lines_changed: 2 }],
    });
    expect(timeline?.attempt_positions).toHaveLength(1);
    expect(findingTimelines(loop.memory, { limit: 10, maxRounds: 50 }).map((d) => d.timeline.title)).toEqual(['A']);
  });

  it('given a patch of several files, when one file is asked for, then only its section comes back', () => {
    const patch = [
      'diff --git a/src/a.ts b/src/a.ts',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1 +1 @@',
      '-x',
      '+y',
      'diff --git a/src/b.ts b/src/b.ts',
      '--- a/src/b.ts',
      '+++ b/src/b.ts',
      '@@ -2 +2 @@',
      '-p',
      '+q',
    ].join('\n');
    expect(patchOfFile(patch, 'src/b.ts')).toBe(
      ['diff --git a/src/b.ts b/src/b.ts', '--- a/src/b.ts', '+++ b/src/b.ts', '@@ -2 +2 @@', '-p', '+q'].join('\n'),
    );
    expect(patchOfFile(patch, 'src/c.ts')).toBeNull();
  });
});

describe('the LoopDetected of a detection', () => {
  it('given the same events folded twice (two journal replicas, a rebuild), when their detections become events, then they are the same event', () => {
    const loop = new Scenario();
    loop.round({ findings: [A] });
    loop.round({ findings: [A] });
    const [detection] = loop.round({ findings: [A] }).detections;
    if (detection === undefined) throw new Error('expected a detection');
    let memory = initialLoopMemory('add-billing');
    const replayed = loop.events.flatMap((e, i) => {
      const step = evolveMemory(memory, e, i + 1, loop.config);
      memory = step.memory;
      return step.detections;
    });
    expect(replayed.map((d) => loopDetectedEvent(d, 'journal@b'))).toEqual([
      { ...loopDetectedEvent(detection, 'journal@a'), producer: 'journal@b' },
    ]);
    expect(loopDetectedEvent(detection, 'journal@a')).toMatchObject({
      type: 'LoopDetected',
      event_id: expect.stringMatching(/^d_/),
      data: { heuristic: 'persistent_issue', round: 3 },
    });
  });
});

describe('journal.yaml key moments', () => {
  it('given letters whose highest score drops by more than 3, when the journal document is built, then that round carries the same key moment as the round history', () => {
    const loop = new Scenario();
    loop.round({ findings: [A, B] });
    loop.round({ findings: [B] });
    const third = loop.round({ findings: [] });
    const doc = journalDocument('add-billing', loop.events);
    expect(doc.rounds.map((r) => r.key_moment ?? null)).toEqual([
      null,
      null,
      'highest severity score dropped from 8 to 0',
    ]);
    expect(third.history?.key_moment).toBe('highest severity score dropped from 8 to 0');
  });
});

function run(overrides: Partial<RunSummaryRow>): RunSummaryRow {
  return {
    run_id: `01JRUN${Math.random().toString(36).slice(2, 12).padEnd(10, '0')}`,
    plan: 'p',
    started_at: '2026-11-30T10:00:00.000Z',
    ended_at: '2026-11-30T11:00:00.000Z',
    status: 'converged',
    rounds: 6,
    phases_cleared: { critical: 3, medium: 1, low: 1, final_sweep: 1 },
    phase_rounds: { critical: 3, medium: 1, low: 1, final_sweep: 1 },
    detections: [],
    escalations: [],
    resumes: 0,
    fixed_after_rounds: { '1': 3, '2': 1 },
    attempts_to_fix: { '1': 3, '2': 1 },
    reappearances: {},
    line_drift: { '2': 2, '7': 1 },
    ...overrides,
  };
}

describe('calibration', () => {
  const current = { softCaps: { critical: 8, medium: 5, low: 3, final_sweep: 3 }, loop: DEFAULT_LOOP_CONFIG };

  it('given too few finished runs, when calibrating, then it reports the data but suggests nothing', () => {
    const report = calibrate([run({}), run({ status: 'running', ended_at: null })], current);
    expect(report.enough_data).toBe(false);
    expect(report.phases.critical.soft_cap.suggested).toBeNull();
    expect(report.notes[0]).toContain('only 1 finished run');
  });

  it('given enough runs, when calibrating, then it suggests caps from what converging loops needed and flags heuristics whose loops converged after a resume', () => {
    const runs = [
      run({ phases_cleared: { critical: 2 } }),
      run({ phases_cleared: { critical: 3 } }),
      run({ phases_cleared: { critical: 4 } }),
      run({ phases_cleared: { critical: 5 }, detections: [{ heuristic: 'flat_trend', round: 3 }] }),
      run({ status: 'escalated', phases_cleared: {}, detections: [{ heuristic: 'persistent_issue', round: 3 }] }),
      run({ status: 'stopped', phases_cleared: {}, detections: [{ heuristic: 'persistent_issue', round: 3 }] }),
    ];
    const report = calibrate(runs, current);
    expect(report.enough_data).toBe(true);
    expect(report.phases.critical).toMatchObject({
      samples: 4,
      median: 3,
      p90: 5,
      max: 5,
      soft_cap: { current: 8, suggested: 6 },
    });
    expect(report.heuristics.flat_trend).toMatchObject({ fired: 1, runs: 1, converged_after: 1 });
    expect(report.heuristics.flat_trend.note).toContain('may fire too early');
    expect(report.heuristics.persistent_issue).toMatchObject({ fired: 2, runs: 2, converged_after: 0 });
    expect(report.thresholds.persistent_issue_rounds).toMatchObject({ current: 3, suggested: 3 });
    expect(report.thresholds.fuzzy_line_window).toMatchObject({ current: 5, suggested: 7 });
  });
});
