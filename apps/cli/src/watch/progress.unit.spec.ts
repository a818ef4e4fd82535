import { describe, expect, it } from '@jest/globals';
import type { RloopEvent } from '@rloop/contracts';
import { initialProgress, reduceProgress, renderProgress } from './progress.js';

const RUN = '01JRUN0000000000000000000A';
const gating = {
  verdict: 'run' as const,
  rules: [],
  commit: 'a'.repeat(40),
  files: ['src/a.ts'],
  repo_path: '/r',
  test_cmd: 'npm test',
};
const envelope = {
  event_id: '01JEVENT00000000000000000A',
  schema_version: 1 as const,
  plan: 'later',
  correlation_id: RUN,
  causation_id: null,
  occurred_at: '2026-12-01T12:00:00.000Z',
  producer: 'gate@1',
};

describe('the progress line of `rloop submit --watch`', () => {
  it('given a queued plan (scope locking), when shown, then it names the loops it waits for until it is gated', () => {
    const queued: RloopEvent = {
      ...envelope,
      type: 'LoopQueued',
      data: { ...gating, waiting_for: [{ plan: 'first', run_id: RUN, files: ['src/a.ts'] }] },
    };
    const progress = reduceProgress(initialProgress('later'), queued);
    expect(renderProgress(progress)).toBe(
      "later: queued: waits for first (their files overlap this plan's) · last: LoopQueued",
    );
    const gated: RloopEvent = { ...envelope, type: 'LoopGated', data: gating };
    expect(renderProgress(reduceProgress(progress, gated))).toBe('later: waiting for round 1 · last: LoopGated');
  });
});
