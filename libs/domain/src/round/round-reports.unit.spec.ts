import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import type { RoundRecord } from '../loop/state.js';
import { roundReports } from './round-reports.js';

const RUN = '01JHHHHHHHHHHHHHHHHHHHHHHH';
const SHA = 'c'.repeat(40);

const current: RoundRecord = {
  round: 1,
  phase: 'critical',
  phase_round: 1,
  k: 3,
  mode: 'loop',
  commit: SHA,
  started_event_id: '01JIIIIIIIIIIIIIIIIIIIIIII',
  started_at: '2026-01-01T00:00:00.000Z',
  started_position: 4,
  deadline_at: '2026-01-01T00:05:00.000Z',
  critics: [{ critic_id: 'team/dispatched', core: true }],
  reports: {},
  failures: {},
  letter: null,
  fix_requested: false,
  fix: null,
};

function failed(criticId: string, core: boolean, reason: 'unavailable' | 'crashed'): JournaledEvent {
  return {
    event_id: `d_${criticId.replace('/', '')}0000000000`,
    type: 'CriticFailed',
    schema_version: 1,
    plan: 'p',
    correlation_id: RUN,
    causation_id: null,
    occurred_at: '2026-01-01T00:00:01.000Z',
    producer: 'panel',
    data: { round: 1, critic_id: criticId, core, reason, message: 'no live heartbeat' },
  };
}

/** team/dispatched's FindingsReported for round 1 (no findings), with `extra` data. */
function reportedEvent(
  extra: Partial<Extract<JournaledEvent, { type: 'FindingsReported' }>['data']> = {},
): JournaledEvent {
  return {
    event_id: 'd_reported00000000000',
    type: 'FindingsReported',
    schema_version: 1,
    plan: 'p',
    correlation_id: RUN,
    causation_id: null,
    occurred_at: '2026-01-01T00:00:02.000Z',
    producer: 'critic',
    data: {
      round: 1,
      critic_id: 'team/dispatched',
      commit: SHA,
      findings: [],
      truncated: false,
      duration_ms: 1,
      ...extra,
    },
  };
}

describe('roundReports', () => {
  it('counts a core critic the panel could not dispatch (CriticFailed unavailable), so the letter cannot be complete', () => {
    const reported = reportedEvent();
    const { reports } = roundReports(current, RUN, [
      failed('team/missing', true, 'unavailable'),
      reported,
      failed('team/stray', false, 'crashed'),
    ]);
    expect(reports.map((r) => [r.critic_id, r.core, r.outcome])).toEqual([
      ['team/dispatched', true, 'reported'],
      ['team/missing', true, 'failed'],
    ]);
  });

  it("carries each critic's coverage (reported or failed for analysing nothing) into the letter's reports", () => {
    const coverage = {
      considered: 2,
      analysed: 0,
      unsupported: 0,
      skipped: [{ file: 'src/a.js', reason: 'too_large' as const }],
      skipped_total: 2,
      max_file_bytes: 10,
      max_file_bytes_configured: false,
    };
    const reported = reportedEvent({ coverage });
    const blind: JournaledEvent = {
      ...failed('team/blind', true, 'crashed'),
      type: 'CriticFailed',
      data: {
        round: 1,
        critic_id: 'team/blind',
        core: true,
        reason: 'no_files_analysed',
        message: 'analysed none',
        coverage,
      },
    };
    const { reports } = roundReports(
      { ...current, critics: [...current.critics, { critic_id: 'team/blind', core: true }] },
      RUN,
      [reported, blind],
    );
    expect(reports.map((r) => [r.critic_id, r.outcome, r.coverage])).toEqual([
      ['team/dispatched', 'reported', coverage],
      ['team/blind', 'failed', coverage],
    ]);
  });

  it("carries a report's coverage beside what the repository dismissed and excluded", () => {
    const coverage = {
      considered: 1,
      analysed: 1,
      unsupported: 0,
      skipped: [],
      skipped_total: 0,
      max_file_bytes: 10,
      max_file_bytes_configured: false,
    };
    const suppressed = [
      {
        fingerprint: 'a1b2c3d4e5f6',
        finding_type: 'eslint/no-var',
        raised_by: 'team/dispatched',
        severity: 'medium' as const,
        file: 'src/a.ts',
        line: 2,
        title: 'no var',
        kind: 'inline' as const,
        reason: 'legacy',
        source: 'src/a.ts:1',
      },
    ];
    const repoConfig = { config: '.rloop.yaml', excluded_files: 1, overrides: [], refused: [] };
    const reported = reportedEvent({ coverage, suppressed, repo_config: repoConfig });
    const { reports } = roundReports(current, RUN, [reported]);
    expect(reports).toEqual([
      {
        critic_id: 'team/dispatched',
        core: true,
        outcome: 'reported',
        findings: [],
        coverage,
        suppressed,
        repo_config: repoConfig,
      },
    ]);
  });
});
