import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { HandoffChoice, HandoffWork, ReviewedRound } from '@rloop/domain';
import { type SampleRepo, type TempDir, gitOut, sampleRepo, tempDir } from '../testing/repos.test-helpers.js';
import { handOffBranch, lastCommitRef } from './handoff.js';
import { ensureWorktree } from './worktree.js';

const RUN = '01JRUNHANDOFF0000000000000';

function choiceAt(round: number, commit: string): HandoffChoice {
  const best: ReviewedRound = {
    round,
    phase: 'critical',
    commit,
    letter_id: `d_letter${round}`,
    counts: { critical: 1, medium: 0, low: 0 },
  };
  return { best, last: { ...best, round: round + 2 }, reason: `round ${round} had the fewest open findings` };
}

describe('best-round handoff of the plan branch (real git)', () => {
  let tmp: TempDir;
  let repo: SampleRepo;
  let workRoot: string;
  let worktreeDir: string;
  const commits: string[] = [];

  beforeAll(async () => {
    tmp = await tempDir('handoff');
    repo = await sampleRepo(tmp.path, 'fixable');
    workRoot = join(tmp.path, 'home');
    const worktree = await ensureWorktree({ repoPath: repo.dir, slug: 'demo', workRoot, commit: repo.commit });
    worktreeDir = worktree.dir;
    // Three rounds of fixes on rloop/demo: round 2's commit is the best, the last one is worse.
    for (const n of [1, 2, 3]) {
      await appendFile(join(worktreeDir, 'README.md'), `\nround ${n}\n`);
      gitOut(worktreeDir, ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', `round ${n}`]);
      commits.push(gitOut(worktreeDir, ['rev-parse', 'HEAD']));
    }
  });

  afterAll(() => tmp.cleanup());

  const work = (eventId: string, kind: HandoffWork['trigger']['kind'] = 'escalated'): HandoffWork => ({
    slug: 'demo',
    runId: RUN,
    repoPath: repo.dir,
    branch: 'rloop/demo',
    trigger: { kind, event_id: eventId },
  });

  it('given an escalation whose best round is earlier, when handed off, then the branch and its worktree are at the best commit and the last commit is kept under refs/rloop/<slug>/last', async () => {
    const [, best, last] = commits;
    if (best === undefined || last === undefined) throw new Error('setup');
    const data = await handOffBranch(work('d_escalation0000001'), choiceAt(2, best), workRoot);
    expect(data).toMatchObject({
      branch: 'rloop/demo',
      best_round: 2,
      best_commit: best,
      last_commit: last,
      last_ref: 'refs/rloop/demo/last',
      moved: true,
      trigger: { kind: 'escalated', event_id: 'd_escalation0000001' },
    });
    expect(gitOut(repo.dir, ['rev-parse', 'refs/heads/rloop/demo'])).toBe(best);
    expect(gitOut(repo.dir, ['rev-parse', lastCommitRef('demo')])).toBe(last);
    expect(gitOut(worktreeDir, ['rev-parse', 'HEAD'])).toBe(best);
    expect(await readFile(join(worktreeDir, 'README.md'), 'utf8')).not.toContain('round 3');
    expect(gitOut(worktreeDir, ['status', '--porcelain'])).toBe('');
  });

  it('given the same trigger again (a redelivery), when handed off, then the recorded answer comes back and nothing moves', async () => {
    const [, best, last] = commits;
    const again = await handOffBranch(work('d_escalation0000001'), choiceAt(1, commits[0] ?? ''), workRoot);
    expect(again).toMatchObject({ best_commit: best, last_commit: last, moved: true });
    expect(gitOut(repo.dir, ['rev-parse', 'refs/heads/rloop/demo'])).toBe(best);
  });

  it('given a stop after the escalation with the branch still at the best commit, when handed off, then the last commit stays the real last one', async () => {
    const [, best, last] = commits;
    const data = await handOffBranch(work('01JSTOP0000000000000000000', 'stopped'), choiceAt(2, best ?? ''), workRoot);
    expect(data).toMatchObject({ best_commit: best, last_commit: last, moved: false, trigger: { kind: 'stopped' } });
    expect(gitOut(repo.dir, ['rev-parse', lastCommitRef('demo')])).toBe(last);
  });

  it('given no completely reviewed round, when handed off, then the branch stays where it is and says why', async () => {
    const data = await handOffBranch(
      { ...work('d_escalation0000009'), runId: '01JRUNOTHER000000000000000' },
      null,
      workRoot,
    );
    expect(data).toMatchObject({
      best_round: null,
      counts: null,
      moved: false,
      reason: 'no round was completely reviewed, so the branch stays at its last commit',
    });
  });

  it('given a plan without a branch, when handed off, then there is nothing to hand off', async () => {
    expect(
      await handOffBranch({ ...work('d_escalation0000002'), branch: 'rloop/never-made' }, null, workRoot),
    ).toBeNull();
  });
});
