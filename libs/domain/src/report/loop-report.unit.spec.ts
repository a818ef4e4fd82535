import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import { RUN_ID, SHA_A, SHA_B, SHA_C, event, finding, letterFor, planSpec } from '../testing/builders.test-helpers.js';
import { buildLoopReport, reportSummaryLine } from './loop-report.js';
import { renderReportHtml, renderReportMarkdown, sparkline } from './render.js';

const TESTS = { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 };
const f = (n: number, overrides: Parameters<typeof finding>[0] = {}) =>
  finding({ id: `f-${n}`, title: `finding ${n}`, line_range: { start: n * 10, end: n * 10 }, ...overrides });

function round(n: number, phase: 'critical' | 'medium' | 'low' | 'final_sweep', commit: string): JournaledEvent {
  return event('RoundStarted', {
    round: n,
    phase,
    phase_round: 1,
    k: 3,
    mode: 'loop',
    commit,
    base_commit: SHA_A,
    repo_path: '/repo',
    files: [],
    critics: [],
    not_configured: [],
    deadline_at: '2026-11-30T11:00:00.000Z',
  });
}

function fix(
  n: number,
  outcome: 'committed' | 'reverted',
  commit: string | null,
  tests: string[] = [],
): JournaledEvent {
  return event('FixApplied', {
    round: n,
    letter_id: `d_letter${String(n).padStart(8, '0')}`,
    strategy: 'autofix',
    outcome,
    fixes_applied: [{ file: 'src/index.ts', fixed_findings: [], lines_changed: 4, hunks: [] }],
    tests_added: tests,
    tests_result: TESTS,
    base_commit: SHA_A,
    commit,
    diff_stats: { files_changed: 1, insertions: 2, deletions: 2 },
    duration_ms: 1500,
    ...(outcome === 'reverted' ? { reason: 'broke test/ok.test.mjs' } : {}),
  });
}

/** Five findings in round 1, one after the fix, none after the second (which was reverted and retried). */
function convergedRun(title = 'Add billing'): JournaledEvent[] {
  return [
    event('PlanSubmitted', { plan: planSpec({ title }), submission_id: 'sub-1' }, { event_id: RUN_ID }),
    event('BaselineRecorded', {
      commit: SHA_A,
      branch: 'rloop/add-billing',
      tests: TESTS,
      exit_code: 0,
      failing: [],
      duration_ms: 900,
    }),
    round(1, 'critical', SHA_A),
    event('FindingsReported', {
      round: 1,
      critic_id: 'toolchain/compiler-linter',
      commit: SHA_A,
      findings: [f(1), f(2), f(3), f(4), f(5)],
      truncated: false,
      duration_ms: 1200,
    }),
    event('CriticFailed', {
      round: 1,
      critic_id: 'security/sast-scanner',
      core: true,
      reason: 'timed_out',
      message: 'no answer',
      duration_ms: 30_000,
    }),
    event('LetterWritten', { letter: letterFor(1, 'critical', [f(1), f(2), f(3), f(4), f(5)]) }),
    event('UsageRecorded', {
      round: 1,
      dispatch: 'critic',
      model: 'claude',
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cost_usd: 0.5,
    }),
    fix(1, 'committed', SHA_B, ['test/rounding.test.mjs']),
    round(2, 'critical', SHA_B),
    event('LetterWritten', { letter: letterFor(2, 'critical', [f(3)]) }),
    fix(2, 'reverted', null),
    round(3, 'critical', SHA_B),
    event('LetterWritten', { letter: letterFor(3, 'critical', []) }),
    event('PhaseAdvanced', { from: 'critical', to: 'final_sweep', round: 3, reason: 'phase_clear' }),
    round(4, 'final_sweep', SHA_C),
    event('LetterWritten', { letter: letterFor(4, 'final_sweep', []) }),
    event('LoopConverged', {
      rounds: 4,
      letter_id: 'd_letter00000004',
      final_commit: SHA_B,
      branch: 'rloop/add-billing',
      panel: { critics: [], not_configured: [] },
    }),
  ];
}

/** The converged run cut after round 2's fix, escalated at its soft cap. */
function escalatedRun(): JournaledEvent[] {
  return [
    ...convergedRun().slice(0, 10),
    event('EscalationRaised', {
      escalation_id: 'd_escalation01',
      reason: 'soft_cap',
      phase: 'critical',
      round: 2,
      report: {
        plan: 'add-billing',
        run_id: RUN_ID,
        phase: 'critical',
        round: 2,
        trigger: { kind: 'soft_cap', detail: 'two rounds, still one finding' },
        findings: [],
        recommended_action: 'rloop resume add-billing --raise-cap 1',
      },
      markdown: '# stuck',
    }),
  ];
}

describe('the final report of a loop', () => {
  it('given a converged run: outcome and why, the trend per severity, what was fixed in which round and commit', () => {
    const report = buildLoopReport(convergedRun());
    expect(report).toMatchObject({
      plan: 'add-billing',
      run_id: RUN_ID,
      outcome: 'converged',
      why: expect.stringContaining('converged after 4 round(s)'),
      branch: 'rloop/add-billing',
      commits: [SHA_B],
      cost_usd: 0.5,
      open: [],
      escalation: null,
    });
    expect(report.trend).toEqual({
      rounds: [1, 2, 3, 4],
      critical: [5, 1, 0, 0],
      medium: [0, 0, 0, 0],
      low: [0, 0, 0, 0],
    });
    // Four findings went away after round 1's fix (commit B); the fifth only after round 2, whose fix was reverted: no commit of ours.
    expect(report.fixed.map((x) => [x.title, x.round, x.commit])).toEqual([
      ['finding 1', 1, SHA_B],
      ['finding 2', 1, SHA_B],
      ['finding 4', 1, SHA_B],
      ['finding 5', 1, SHA_B],
      ['finding 3', 2, null],
    ]);
    expect(report.tests_added).toEqual([{ round: 1, test: 'test/rounding.test.mjs' }]);
  });

  it('names the key moments: a drop of more than three findings, a reverted fix, a phase cleared, the outcome', () => {
    const kinds = buildLoopReport(convergedRun()).key_moments.map((m) => `${m.round} ${m.kind}`);
    expect(kinds).toEqual(['2 drop', '2 revert', '3 phase', '4 outcome']);
  });

  it('keeps per round the critics outcomes and durations, the fix, its time and cost', () => {
    const [first, second] = buildLoopReport(convergedRun()).rounds;
    expect(first?.critics).toEqual([
      { critic_id: 'security/sast-scanner', outcome: 'timed_out', duration_ms: 30_000, findings: 0 },
      { critic_id: 'toolchain/compiler-linter', outcome: 'reported', duration_ms: 1200, findings: 5 },
    ]);
    expect(first).toMatchObject({
      round: 1,
      counts: { critical: 5, medium: 0, low: 0 },
      fix: { outcome: 'committed', commit: SHA_B, lines_changed: 4 },
      cost_usd: 0.5,
      duration_ms: expect.any(Number),
    });
    expect(second?.fix).toMatchObject({ outcome: 'reverted', reason: 'broke test/ok.test.mjs' });
  });

  it('given an escalated run: what remains open and the escalation, and no end time', () => {
    const events = escalatedRun();
    const report = buildLoopReport(events);
    expect(report).toMatchObject({
      outcome: 'escalated',
      ended_at: null,
      escalation: { reason: 'soft_cap', recommended_action: 'rloop resume add-billing --raise-cap 1' },
    });
    expect(report.open.map((o) => o.title)).toEqual(['finding 3']);
    expect(reportSummaryLine(report, null)).toBe(
      'add-billing: escalated — critical 5 → 1 in 2 rounds; 1 commit on rloop/add-billing',
    );
  });

  it('given an escalated run whose branch was handed off at an earlier round, when reported, then the report says which round and why, in Markdown, HTML and the summary line', () => {
    const events = escalatedRun();
    events.push(
      event('BranchHandedOff', {
        trigger: { kind: 'escalated', event_id: 'd_escalation01' },
        branch: 'rloop/add-billing',
        best_round: 2,
        best_commit: SHA_B,
        counts: { critical: 1, medium: 0, low: 0 },
        last_commit: SHA_C,
        last_ref: 'refs/rloop/add-billing/last',
        moved: true,
        reason:
          'round 2 had the fewest open findings (1 critical); the last reviewed round, 3, had 4 critical; the branch is left there',
      }),
    );
    const report = buildLoopReport(events);
    expect(report.handoff).toMatchObject({ round: 2, commit: SHA_B, last_commit: SHA_C, moved: true });
    expect(renderReportMarkdown(report)).toContain(
      `rloop/add-billing is left at round 2 (${SHA_B.slice(0, 12)}): round 2 had the fewest open findings`,
    );
    expect(renderReportMarkdown(report)).toContain('is kept at refs/rloop/add-billing/last');
    expect(renderReportHtml(report)).toContain('Where the branch is left');
    expect(reportSummaryLine(report, null)).toContain('rloop/add-billing left at round 2');
  });

  it('sums it up on one line: each severity that had findings, rounds, commits and where the report is', () => {
    expect(reportSummaryLine(buildLoopReport(convergedRun()), '.rloop/reports/add-billing/report.md')).toBe(
      'add-billing: converged — critical 5 → 1 → 0 in 4 rounds; 1 commit on rloop/add-billing; report: .rloop/reports/add-billing/report.md',
    );
  });

  it('shows the trend as a sparkline in Markdown and a chart in HTML, and escapes what came from the plan', () => {
    expect(sparkline([5, 1, 0, 0])).toBe('█▂▁▁');
    const report = buildLoopReport(convergedRun('Add <script>alert(1)</script> | billing'));
    const md = renderReportMarkdown(report);
    expect(md).toContain('| critical | `█▂▁▁` | 5 → 1 → 0 → 0 |');
    expect(md).toContain('Add \\<script\\>alert(1)\\</script\\> \\| billing');
    const html = renderReportHtml(report);
    expect(html).toContain('<svg');
    expect(html).toContain('Add &lt;script&gt;alert(1)&lt;/script&gt; | billing');
    expect(html).not.toContain('<script>');
  });

  it('refuses events without the run start', () => {
    expect(() => buildLoopReport(convergedRun().slice(1))).toThrow(RangeError);
  });
});
