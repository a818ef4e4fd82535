import { describe, expect, it } from '@jest/globals';
import { RUN_ID, SHA_A, event, given, planSpec } from '../testing/builders.test-helpers.js';
import { evolveLoop } from '../loop/state.js';
import { type Gating, type OpenRun, decideScopeLock, repositoryKey, scopeLockEvents } from './scope-lock.js';

const REPO = '/repos/billing';

/** An open run as the journal's open_runs query lists it; `null` files: not gated yet. */
function run(id: string, files: readonly string[] | null, overrides: Partial<OpenRun> = {}): OpenRun {
  return {
    plan: `plan-${id}`,
    run_id: `run-${id}-0000000`,
    status: files === null ? 'submitted' : 'reviewing',
    scope: files === null ? null : { repo_path: REPO, files },
    settled: true,
    ...overrides,
  };
}

const candidate = (id: string, files: readonly string[], queued = false) => ({
  run_id: `run-${id}-0000000`,
  repo_path: REPO,
  files,
  queued,
});

describe('scope locking: may a run start now? (decideScopeLock)', () => {
  it('given no earlier open run shares a file, when decided, then it runs', () => {
    const open = [run('a', ['src/a.ts']), run('b', ['src/b.ts'])];
    expect(decideScopeLock(candidate('b', ['src/b.ts']), open, 'queue')).toEqual({ kind: 'run' });
  });

  it('given an earlier run on the same repository holding a file of the plan, when decided, then it is queued naming that run and the shared files', () => {
    const open = [run('a', ['src/a.ts', 'src/shared.ts']), run('b', ['src/shared.ts', 'src/b.ts'])];
    expect(decideScopeLock(candidate('b', ['src/shared.ts', 'src/b.ts']), open, 'queue')).toEqual({
      kind: 'queue',
      waiting_for: [{ plan: 'plan-a', run_id: 'run-a-0000000', files: ['src/shared.ts'] }],
    });
  });

  it('given the same files on another repository, when decided, then it runs (repositories are compared first)', () => {
    const open = [
      run('a', ['src/shared.ts'], { scope: { repo_path: '/repos/other', files: ['src/shared.ts'] } }),
      run('b', ['src/shared.ts']),
    ];
    expect(decideScopeLock(candidate('b', ['src/shared.ts']), open, 'queue')).toEqual({ kind: 'run' });
  });

  it('given one repository by URL spelled two ways (and read from different clones), when decided, then it is the same repository; another URL is not', () => {
    const byUrl = (repo_url: string, repo_path: string) => ({
      scope: { repo_path, repo_url, files: ['src/shared.ts'] },
    });
    const open = [
      run('a', ['src/shared.ts'], byUrl('https://git@Example.com/org/app.git', '/gate-a/repos/1')),
      run('b', ['src/shared.ts'], byUrl('https://example.com/org/app/', '/gate-b/repos/2')),
    ];
    expect(
      decideScopeLock(
        {
          ...candidate('b', ['src/shared.ts']),
          repo_path: '/gate-b/repos/2',
          repo_url: 'https://example.com/org/app/',
        },
        open,
        'queue',
      ),
    ).toEqual({
      kind: 'queue',
      waiting_for: [{ plan: 'plan-a', run_id: 'run-a-0000000', files: ['src/shared.ts'] }],
    });
    expect(
      decideScopeLock(
        {
          ...candidate('b', ['src/shared.ts']),
          repo_path: '/gate-a/repos/1',
          repo_url: 'https://example.com/org/other',
        },
        open,
        'queue',
      ),
    ).toEqual({ kind: 'run' });
    expect(repositoryKey({ repo_path: '/x', repo_url: 'git@example.com:org/app.git' })).toBe(
      repositoryKey({ repo_path: '/y', repo_url: 'ssh://git@EXAMPLE.com/org/app' }),
    );
  });

  it('given a later run sharing its files, when the earlier one is decided, then only runs admitted before it count', () => {
    const open = [run('a', ['src/shared.ts']), run('b', ['src/shared.ts'])];
    expect(decideScopeLock(candidate('a', ['src/shared.ts']), open, 'queue')).toEqual({ kind: 'run' });
  });

  it('given an earlier run that is itself queued, when decided, then the plan waits for it too (first come, first served)', () => {
    const open = [run('a', ['x.ts']), run('b', ['x.ts', 'y.ts'], { status: 'queued' }), run('c', ['y.ts'])];
    expect(decideScopeLock(candidate('c', ['y.ts']), open, 'queue')).toMatchObject({
      kind: 'queue',
      waiting_for: [{ plan: 'plan-b' }],
    });
  });

  it('given reject mode, when a new plan overlaps, then it is rejected naming the run; a plan queued before the mode changed keeps its place', () => {
    const open = [run('a', ['x.ts']), run('b', ['x.ts'])];
    expect(decideScopeLock(candidate('b', ['x.ts']), open, 'reject')).toEqual({
      kind: 'reject',
      conflicts: [{ plan: 'plan-a', run_id: 'run-a-0000000', files: ['x.ts'] }],
    });
    expect(decideScopeLock(candidate('b', ['x.ts'], true), open, 'reject')).toMatchObject({ kind: 'queue' });
  });

  it('given an earlier run the gate has not decided yet, or runs submitted just before that may commit late, when decided, then it is decided again later', () => {
    expect(decideScopeLock(candidate('b', ['x.ts']), [run('a', null), run('b', ['x.ts'])], 'queue')).toMatchObject({
      kind: 'undecided',
      reason: expect.stringContaining('plan-a') as unknown,
    });
    expect(decideScopeLock(candidate('b', ['x.ts']), [run('b', ['x.ts'], { settled: false })], 'queue')).toMatchObject({
      kind: 'undecided',
    });
    expect(decideScopeLock(candidate('b', ['x.ts']), [run('a', ['x.ts'])], 'queue')).toMatchObject({
      kind: 'undecided',
    });
  });

  it('given three plans in a cycle of overlaps (A∩B, B∩C, C∩A), when each is decided and the holders end in turn, then they run one after another and never wait for each other in a cycle', () => {
    const a = run('a', ['a.ts', 'b.ts']);
    const b = run('b', ['b.ts', 'c.ts']);
    const c = run('c', ['c.ts', 'a.ts']);
    // All three open: A runs, B waits for A, C waits for A and B — every edge points to an earlier admission.
    expect(decideScopeLock(candidate('a', ['a.ts', 'b.ts']), [a, b, c], 'queue')).toEqual({ kind: 'run' });
    expect(decideScopeLock(candidate('b', ['b.ts', 'c.ts']), [a, b, c], 'queue')).toMatchObject({
      kind: 'queue',
      waiting_for: [{ plan: 'plan-a', files: ['b.ts'] }],
    });
    expect(decideScopeLock(candidate('c', ['c.ts', 'a.ts']), [a, b, c], 'queue')).toMatchObject({
      kind: 'queue',
      waiting_for: [
        { plan: 'plan-a', files: ['a.ts'] },
        { plan: 'plan-b', files: ['c.ts'] },
      ],
    });
    // A ends: B runs, C now waits for B only.
    expect(decideScopeLock(candidate('b', ['b.ts', 'c.ts'], true), [b, c], 'queue')).toEqual({ kind: 'run' });
    expect(decideScopeLock(candidate('c', ['c.ts', 'a.ts'], true), [b, c], 'queue')).toMatchObject({
      kind: 'queue',
      waiting_for: [{ plan: 'plan-b' }],
    });
    // B ends: C runs.
    expect(decideScopeLock(candidate('c', ['c.ts', 'a.ts'], true), [c], 'queue')).toEqual({ kind: 'run' });
  });
});

describe('scope locking: the gate events of a decision (scopeLockEvents)', () => {
  const gating: Gating = {
    verdict: 'run',
    rules: [],
    commit: SHA_A,
    files: ['x.ts'],
    repo_path: REPO,
    test_cmd: 'npm test',
  };
  const meta = {
    plan: 'add-billing',
    run_id: RUN_ID,
    causation_id: RUN_ID,
    producer: 'gate@test',
    now: '2026-12-01T12:00:00.000Z',
  };
  const holder = { plan: 'plan-a', run_id: 'run-a-0000000', files: ['x.ts'] };

  it('given a queue decision, when turned into events, then one LoopQueued stamped with the version it was decided on; the same holders again publish nothing', () => {
    const first = scopeLockEvents(
      { kind: 'queue', waiting_for: [holder] },
      { meta, version: 1, submission_id: 'sub-1', queued_for: null },
      gating,
    );
    expect(first).toEqual({
      publish: [
        expect.objectContaining({
          type: 'LoopQueued',
          data: { ...gating, waiting_for: [holder] },
          decision: expect.objectContaining({ expected_version: 1 }) as unknown,
        }),
      ],
    });
    expect(
      scopeLockEvents(
        { kind: 'queue', waiting_for: [holder] },
        { meta, version: 2, submission_id: 'sub-1', queued_for: [holder] },
        gating,
      ),
    ).toEqual({ publish: [] });
  });

  it('given a run decision for a queued plan, when turned into events, then LoopGated with the gating it was queued with, and the fold starts the run', () => {
    const queuedState = given(
      event('PlanSubmitted', { plan: planSpec(), submission_id: 'sub-1' }, { event_id: RUN_ID }),
      event('LoopQueued', { ...gating, waiting_for: [holder] }),
    );
    expect(queuedState).toMatchObject({ status: 'queued', queued: { gating, waiting_for: [holder] }, gated: null });
    const outcome = scopeLockEvents(
      { kind: 'run' },
      { meta, version: queuedState.version, submission_id: 'sub-1', queued_for: [holder] },
      queuedState.queued?.gating ?? gating,
    );
    if (!('publish' in outcome) || outcome.publish[0] === undefined) throw new Error('expected an event');
    expect(outcome.publish[0]).toMatchObject({
      type: 'LoopGated',
      data: gating,
      decision: { expected_version: queuedState.version },
    });
    const running = evolveLoop(queuedState, outcome.publish[0], queuedState.version + 1);
    expect(running).toMatchObject({
      status: 'awaiting_baseline',
      queued: null,
      gated: { files: ['x.ts'], repo_path: REPO },
    });
  });

  it('given a reject decision, when turned into events, then PlanRejected names the holders and the files they share; an undecided one asks to retry', () => {
    const outcome = scopeLockEvents(
      { kind: 'reject', conflicts: [holder] },
      { meta, version: 1, submission_id: 'sub-1', queued_for: null },
      gating,
    );
    expect(outcome).toEqual({
      publish: [
        expect.objectContaining({
          type: 'PlanRejected',
          data: {
            submission_id: 'sub-1',
            errors: [{ path: 'files', message: expect.stringContaining('plan-a (x.ts)') as unknown }],
          },
        }),
      ],
    });
    expect(
      scopeLockEvents(
        { kind: 'undecided', reason: 'later' },
        { meta, version: 1, submission_id: null, queued_for: null },
        gating,
      ),
    ).toEqual({ retry: 'later' });
  });
});
