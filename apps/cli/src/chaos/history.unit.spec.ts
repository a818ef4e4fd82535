import { describe, expect, it } from '@jest/globals';
import type { DecisionStamp, EventOf, JournaledEvent } from '@rloop/contracts';
import { type StoredRow, checkHistory } from './history.test-helpers.js';

const SHA = 'a'.repeat(40);
const RUN = '01JRUNCHECKER0000000000001';
const STREAM = `p-check/${RUN}`;
const CRITIC = 'security/secrets-detector';

function row<T extends JournaledEvent['type']>(
  position: number,
  type: T,
  id: string,
  data: EventOf<T>['data'],
  decision?: DecisionStamp,
): StoredRow {
  return {
    stream_id: STREAM,
    stream_position: position,
    event_id: id,
    type,
    schema_version: 1,
    data,
    metadata: {
      correlation_id: RUN,
      causation_id: null,
      occurred_at: '2026-12-01T10:00:00.000Z',
      producer: 'spec',
      ...(decision === undefined ? {} : { decision }),
    },
  };
}

const started = (position: number, id: string, decidedOn: number): StoredRow =>
  row(
    position,
    'RoundStarted',
    id,
    {
      round: 1,
      phase: 'critical',
      phase_round: 1,
      k: 3,
      mode: 'loop',
      commit: SHA,
      base_commit: SHA,
      repo_path: '/r',
      files: ['a.js'],
      critics: [{ critic_id: CRITIC, evidence: 'pattern', core: true, reason: 'core', timeout_ms: 1000 }],
      not_configured: [],
      deadline_at: '2026-12-01T11:00:00.000Z',
    },
    { expected_version: decidedOn, id },
  );

const letter = (position: number, decidedOn: number): StoredRow =>
  row(
    position,
    'LetterWritten',
    'd_letter_checker_01',
    {
      letter: {
        letter_id: 'd_letterof_checker1',
        plan: 'p-check',
        run_id: RUN,
        round: 1,
        phase: 'critical',
        k: 3,
        commit: SHA,
        mode: 'loop',
        created_at: '2026-12-01T10:00:00.000Z',
        critics: [],
        findings: [],
        counts: { critical: 0, medium: 0, low: 0 },
        complete: true,
        disagreements: [],
        summary: 'clean',
      },
    },
    { expected_version: decidedOn, id: 'd_letter_checker_01' },
  );

function history(): StoredRow[] {
  return [
    row(1, 'PlanSubmitted', RUN, {
      plan: {
        slug: 'p-check',
        title: 'T',
        description: '',
        effort_level: 'high',
        files: ['a.js'],
        repo: { path: '/r', ref: 'HEAD' },
        test_cmd: 'true',
        implementer: { strategy: 'autofix' },
      },
      submission_id: RUN,
    }),
    row(
      2,
      'LoopGated',
      'd_gated_checker_001',
      { verdict: 'run', rules: [], commit: SHA, files: ['a.js'], repo_path: '/r', test_cmd: 'true' },
      { expected_version: 1, id: 'd_gated_checker_001' },
    ),
    row(3, 'BaselineRecorded', '01JBASECHECKER000000000001', {
      commit: SHA,
      branch: 'rloop/p-check',
      tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
      exit_code: 0,
      failing: [],
      duration_ms: 1,
    }),
    started(4, 'd_round_checker_001', 3),
    row(5, 'FindingsReported', '01JREPORTCHECKER0000000001', {
      round: 1,
      critic_id: CRITIC,
      commit: SHA,
      findings: [],
      truncated: false,
      duration_ms: 1,
    }),
  ];
}

describe("the chaos test's history checker", () => {
  it('given a sound history, when checked, then it finds nothing and refolds the run', () => {
    const { problems, runs } = checkHistory([...history(), letter(6, 5)]);
    expect(problems).toEqual([]);
    expect(runs.map((r) => [r.plan, r.state.round, r.state.current?.letter?.findings])).toEqual([['p-check', 1, 0]]);
  });

  it('given a round started twice, when checked, then it says so', () => {
    expect(checkHistory([...history(), started(6, 'd_round_checker_002', 5)]).problems).toContain(
      `${STREAM}: round 1 started 2 times`,
    );
  });

  it('given a letter decided before a report changed the round but appended after it, when checked, then it names the stale decision', () => {
    expect(checkHistory([...history(), letter(6, 4)]).problems).toEqual([
      `${STREAM}@6 LetterWritten d_letter_checker_01: decided on version 4, but the run had changed at 5 (stale)`,
    ]);
  });

  it('given a decision without its version or a gap in the positions, when checked, then it says so', () => {
    const [first, gated, ...rest] = history();
    const unstamped = { ...(gated as StoredRow), metadata: { ...(gated as StoredRow).metadata, decision: undefined } };
    const problems = checkHistory([
      first as StoredRow,
      unstamped,
      ...rest.map((r) => ({ ...r, stream_position: r.stream_position + 1 })),
    ]).problems;
    expect(problems).toContain(
      `${STREAM}@2 LoopGated d_gated_checker_001: a decision without the version it was made on`,
    );
    expect(problems).toContain(`${STREAM}: position 4 where 3 was due`);
  });
});
