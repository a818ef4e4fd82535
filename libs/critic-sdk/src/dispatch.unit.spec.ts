import { describe, expect, it } from '@jest/globals';
import { type EventOf, type Finding, parseEvent } from '@rloop/contracts';
import { deterministicId } from '@rloop/domain';
import {
  MAX_REPORTED_FINDINGS,
  answerEvent,
  criticCacheDir,
  dispatchFor,
  notRun,
  reportData,
  reportEventId,
  roundExpired,
} from './dispatch.js';

const SHA = 'b'.repeat(40);
const dispatched = {
  critic_id: 'team/x',
  evidence: 'pattern',
  core: false,
  reason: 'trigger t: a.ts',
  timeout_ms: 1000,
};
const round: EventOf<'RoundStarted'> = {
  event_id: '01JCCCCCCCCCCCCCCCCCCCCCCC',
  type: 'RoundStarted',
  schema_version: 1,
  plan: 'plan-a',
  correlation_id: '01JDDDDDDDDDDDDDDDDDDDDDDD',
  causation_id: null,
  occurred_at: '2026-01-01T00:00:00.000Z',
  producer: 'panel',
  data: {
    round: 3,
    phase: 'medium',
    phase_round: 1,
    k: 5,
    mode: 'loop',
    commit: SHA,
    base_commit: SHA,
    repo_path: '/r',
    files: [],
    critics: [dispatched],
    not_configured: [],
    deadline_at: '2026-01-01T00:05:00.000Z',
  },
};

function finding(i: number, severity: Finding['severity']): Finding {
  const score = severity === 'critical' ? 8 : severity === 'medium' ? 5 : 2;
  const fp = i.toString(16).padStart(12, '0');
  return {
    id: `f_${fp}`,
    fingerprint: fp,
    severity,
    score,
    category: 'correctness',
    finding_type: 't',
    file: 'a.ts',
    line_range: { start: i + 1, end: i + 1 },
    title: 't',
    current_behaviour: 'c',
    expected_behaviour: 'e',
    observable_test_conditions: [],
    forbidden_in_test: [],
    raised_by: 'team/x',
    related_findings: [],
    fixable: false,
    related_locations: [],
  };
}

describe('dispatch helpers', () => {
  it('finds the critic on the panel, or null', () => {
    expect(dispatchFor(round, 'team/x')).toEqual(dispatched);
    expect(dispatchFor(round, 'team/y')).toBeNull();
  });

  it('treats the deadline instant itself as expired', () => {
    expect(roundExpired(round, new Date('2026-01-01T00:04:59.999Z'))).toBe(false);
    expect(roundExpired(round, new Date('2026-01-01T00:05:00.000Z'))).toBe(true);
  });

  it('gives FindingsReported and CriticFailed the id critic-runner gives its answers (plan, run, report, round, critic)', () => {
    const expected = deterministicId('plan-a', round.correlation_id, 'report', 3, 'team/x');
    const reported = answerEvent(
      round,
      dispatched,
      { status: 'reported', critic_id: 'team/x', findings: [], duration_ms: 12.4, notes: [], coverage: null },
      { producer: 'p', now: '2026-01-01T00:01:00.000Z' },
    );
    const failed = answerEvent(
      round,
      dispatched,
      {
        status: 'failed',
        critic_id: 'team/x',
        reason: 'crashed',
        message: 'boom',
        duration_ms: 3,
        notes: [],
        coverage: null,
      },
      { producer: 'p', now: '2026-01-01T00:01:00.000Z' },
    );
    expect(reportEventId(round, 'team/x')).toBe(expected);
    expect(reported).toMatchObject({
      event_id: expected,
      type: 'FindingsReported',
      causation_id: round.event_id,
      correlation_id: round.correlation_id,
      plan: 'plan-a',
      data: { round: 3, commit: SHA, duration_ms: 12, findings: [] },
    });
    expect(failed).toMatchObject({
      event_id: expected,
      type: 'CriticFailed',
      data: { reason: 'crashed', core: false, message: 'boom', duration_ms: 3 },
    });
  });

  it('ranks findings most important first and caps the report, saying it was truncated', () => {
    const findings = [
      finding(1, 'low'),
      finding(2, 'critical'),
      ...Array.from({ length: MAX_REPORTED_FINDINGS }, (_, i) => finding(i + 10, 'medium')),
    ];
    const data = reportData(1, 'team/x', SHA, findings, 5);
    expect(data.findings).toHaveLength(MAX_REPORTED_FINDINGS);
    expect(data.findings[0]?.severity).toBe('critical');
    expect(data.findings.some((f) => f.severity === 'low')).toBe(false);
    expect(data.truncated).toBe(true);
  });

  it('carries what the critic covered into its answer: in FindingsReported, and in CriticFailed when it analysed nothing', () => {
    const coverage = {
      considered: 1,
      analysed: 0,
      unsupported: 0,
      skipped: [{ file: 'src/a.js', reason: 'too_large' as const }],
      skipped_total: 1,
      max_file_bytes: 10,
      max_file_bytes_configured: false,
    };
    const meta = { producer: 'p', now: '2026-01-01T00:01:00.000Z' };
    const reported = answerEvent(
      round,
      dispatched,
      {
        status: 'reported',
        critic_id: 'team/x',
        findings: [],
        duration_ms: 1,
        notes: [],
        coverage: { ...coverage, analysed: 1, skipped: [], skipped_total: 0 },
      },
      meta,
    );
    const blind = answerEvent(
      round,
      dispatched,
      {
        status: 'failed',
        critic_id: 'team/x',
        reason: 'no_files_analysed',
        message: 'analysed none',
        duration_ms: 1,
        notes: [],
        coverage,
      },
      meta,
    );
    const silent = answerEvent(
      round,
      dispatched,
      { status: 'reported', critic_id: 'team/x', findings: [], duration_ms: 1, notes: [], coverage: null },
      meta,
    );
    expect(reported).toMatchObject({ type: 'FindingsReported', data: { coverage: { considered: 1, analysed: 1 } } });
    expect(blind).toMatchObject({ type: 'CriticFailed', data: { reason: 'no_files_analysed', coverage } });
    expect(silent.data).not.toHaveProperty('coverage');
    for (const event of [reported, blind, silent]) expect(parseEvent(event).ok).toBe(true);
  });

  it("carries the critic's coverage and what the repository's configuration did, side by side", () => {
    const coverage = {
      considered: 1,
      analysed: 1,
      unsupported: 0,
      skipped: [],
      skipped_total: 0,
      max_file_bytes: 10,
      max_file_bytes_configured: false,
    };
    const kept = finding(1, 'critical');
    const dismissed = finding(2, 'medium');
    const suppression = {
      fingerprint: dismissed.fingerprint,
      finding_type: 't',
      raised_by: 'team/x',
      severity: 'medium' as const,
      file: 'a.ts',
      line: 3,
      title: 't',
      kind: 'inline' as const,
      reason: 'ours',
      source: 'a.ts:2',
    };
    const repoConfig = { config: '.rloop.yaml', excluded_files: 2, overrides: [], refused: [] };
    const answer = answerEvent(
      round,
      dispatched,
      { status: 'reported', critic_id: 'team/x', findings: [kept, dismissed], duration_ms: 1, notes: [], coverage },
      { producer: 'p', now: '2026-01-01T00:01:00.000Z' },
      () => ({
        findings: [kept],
        suppressed: [suppression],
        repo_config: repoConfig,
      }),
    );
    expect(answer).toMatchObject({
      type: 'FindingsReported',
      data: { findings: [kept], coverage, suppressed: [suppression], repo_config: repoConfig },
    });
    expect(parseEvent(answer).ok).toBe(true);
  });

  it("words a failure the runner's way when asked: its own reason for its errors, secrets masked, and a critic that was not run answers with a duration of 0", () => {
    const meta = { producer: 'critic-runner@1', now: '2026-01-01T00:01:00.000Z' };
    const failed = {
      status: 'failed' as const,
      critic_id: 'team/x',
      reason: 'crashed' as const,
      message: 'key sk-ant-secret refused',
      duration_ms: 3,
      notes: [],
      coverage: null,
      error: new Error('429'),
    };
    const answer = answerEvent(round, dispatched, failed, meta, () => null, {
      reasonOf: (result) =>
        result.error instanceof Error && result.error.message === '429' ? 'rate_limited' : result.reason,
      redact: (text) => text.replace(/sk-ant-\w+/g, '[redacted]'),
    });
    expect(answer).toMatchObject({
      type: 'CriticFailed',
      data: { reason: 'rate_limited', message: 'key [redacted] refused' },
    });
    const skipped = answerEvent(round, dispatched, notRun('team/x', 'not_runnable', 'not run: switched off'), meta);
    expect(skipped).toMatchObject({
      event_id: reportEventId(round, 'team/x'),
      type: 'CriticFailed',
      data: { reason: 'not_runnable', message: 'not run: switched off', duration_ms: 0 },
    });
    expect(parseEvent(skipped).ok).toBe(true);
  });

  it('keeps one cache directory per critic, whichever runner hosts it', () => {
    expect(criticCacheDir('/home/rloop', 'security/sast-scanner')).toBe('/home/rloop/cache/security_sast-scanner');
  });
});
