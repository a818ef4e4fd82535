import type { Finding, Letter } from '@rloop/contracts';

// A review's letter and its findings for the formatter and report-pr specs: valid contract values
// with only the interesting fields spelled out.

/** A critical code-injection finding in src/app.js at line 5, with `over` applied. */
export function finding(over: Partial<Finding> = {}): Finding {
  return {
    id: 'f_1',
    fingerprint: '0123456789ab',
    location_hash: '0123456789abcdef',
    severity: 'critical',
    score: 8,
    category: 'security',
    finding_type: 'sast/code-injection',
    raised_by: 'security/sast-scanner',
    file: 'src/app.js',
    line_range: { start: 5, end: 5 },
    title: 'Code injection: request input reaches eval',
    current_behaviour: 'now',
    expected_behaviour: 'The input is never evaluated.',
    observable_test_conditions: [],
    forbidden_in_test: [],
    related_findings: [],
    fixable: false,
    related_locations: [],
    ...over,
  };
}

/** A complete one-pass letter holding `findings` (counts derived), with `extra` applied. */
export function letterOf(findings: Finding[], extra: Partial<Letter> = {}): Letter {
  const count = (s: Finding['severity']): number => findings.filter((f) => f.severity === s).length;
  return {
    letter_id: 'd_0123456789abcdef0123456789abcdef',
    plan: 'demo',
    run_id: 'd_0123456789abcdef0123456789abcdee',
    round: 1,
    phase: 'final_sweep',
    k: null,
    commit: 'a'.repeat(40),
    mode: 'single_pass',
    created_at: '2026-11-30T00:00:00.000Z',
    critics: [
      {
        critic_id: 'security/sast-scanner',
        core: true,
        outcome: 'reported',
        findings_total: findings.length,
        findings_kept: findings.length,
      },
    ],
    findings,
    counts: { critical: count('critical'), medium: count('medium'), low: count('low') },
    complete: true,
    disagreements: [],
    suppressed: [],
    summary: 'x',
    ...extra,
  };
}
