import type { Finding } from '@rloop/contracts';

/**
 * A finding for the review specs: one line of `file` flagged by the compiler-linter with `type`,
 * identity derived from the line, and `over` applied.
 */
export function lineFinding(file: string, line: number, type: string, over: Partial<Finding> = {}): Finding {
  return {
    id: `f_${file}_${line}`,
    fingerprint: `${line}`.padStart(12, '0'),
    severity: 'critical',
    score: 8,
    category: 'maintainability',
    finding_type: type,
    raised_by: 'toolchain/compiler-linter',
    file,
    line_range: { start: line, end: line },
    title: `${type} at ${file}:${line}`,
    current_behaviour: 'now',
    expected_behaviour: 'then',
    observable_test_conditions: [],
    forbidden_in_test: [],
    related_findings: [],
    fixable: false,
    related_locations: [],
    ...over,
  };
}
