import { describe, expect, it } from '@jest/globals';
import type { RoundRecord } from '../loop/state.js';
import { decideRoundClosure } from './round-closure.js';

const meta = { plan: 'p', run_id: 'run-1', causation_id: 'started-1', producer: 'synthesizer@1', now: '2026-01-01T00:00:10.000Z' };

function round(reports: RoundRecord['reports']): RoundRecord {
  return {
    round: 2,
    phase: 'critical',
    phase_round: 2,
    k: 3,
    mode: 'loop',
    commit: 'c'.repeat(40),
    started_event_id: 'started-1',
    started_at: '2026-01-01T00:00:00.000Z',
    started_position: 7,
    deadline_at: '2026-01-01T00:01:00.000Z',
    critics: [
      { critic_id: 'security/sast', core: true },
      { critic_id: 'quality/duplicates', core: false },
    ],
    reports,
    failures: {},
    letter: null,
    fix_requested: false,
    fix: null,
  };
}

const beforeDeadline = Date.parse('2026-01-01T00:00:30.000Z');
const afterDeadline = Date.parse('2026-01-01T00:01:00.001Z');

describe('decideRoundClosure', () => {
  it('given every dispatched critic has answered (a report or a failure), then the round is complete, whatever the time', () => {
    expect(decideRoundClosure(round({ 'security/sast': 'reported', 'quality/duplicates': 'failed' }), afterDeadline, meta)).toEqual({ kind: 'complete' });
    expect(decideRoundClosure(round({ 'security/sast': 'reported', 'quality/duplicates': 'reported' }), beforeDeadline, meta)).toEqual({ kind: 'complete' });
  });

  it('given a critic has not answered before the deadline, then the round waits until the deadline for it', () => {
    expect(decideRoundClosure(round({ 'security/sast': 'reported' }), beforeDeadline, meta)).toEqual({ kind: 'waiting', waitMs: 30_000, missing: [{ critic_id: 'quality/duplicates', core: false }] });
  });

  it('given the deadline has passed with critics silent, then each silent critic (and only it) fails timed_out, with an id from the round and the critic', () => {
    const closure = decideRoundClosure(round({ 'quality/duplicates': 'reported' }), afterDeadline, meta);
    expect(closure.kind).toBe('timed_out');
    const failures = closure.kind === 'timed_out' ? closure.failures : [];
    expect(failures.map((f) => [f.type, f.data.critic_id, f.data.core, f.data.reason, f.data.round])).toEqual([['CriticFailed', 'security/sast', true, 'timed_out', 2]]);
    expect(failures[0]?.data.message).toBe("no report by the round's deadline 2026-01-01T00:01:00.000Z");
    expect(failures[0]?.causation_id).toBe('started-1');
    // Another replica deciding the same deadline later publishes the same event (the journal drops the duplicate).
    const again = decideRoundClosure(round({ 'quality/duplicates': 'reported' }), afterDeadline + 5_000, { ...meta, now: '2026-01-01T00:01:05.000Z' });
    expect(again.kind === 'timed_out' ? again.failures.map((f) => f.event_id) : []).toEqual(failures.map((f) => f.event_id));
  });

  it('given the deadline is exactly now, then the round no longer waits', () => {
    expect(decideRoundClosure(round({}), Date.parse('2026-01-01T00:01:00.000Z'), meta).kind).toBe('timed_out');
  });
});
