import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { HandoffChoice, ReviewedRound } from '@rloop/domain';
import { type GitDaemon, startGitDaemon } from '@rloop/testing';
import { recordBaseline } from '../baseline/baseline.js';
import { handOffBranch, lastCommitRef } from '../git/handoff.js';
import type { FixStrategy } from '../strategies/strategy.js';
import {
  RUN_ID,
  type SampleRepo,
  type TempDir,
  TEST_COMMANDS,
  commandEnv,
  gitOut,
  letterFor,
  sampleRepo,
  tempDir,
} from '../testing/repos.test-helpers.js';
import { type FixRequestedData, applyFix } from './fix-cycle.js';

// Two implementers with homes of their own (two hosts, no shared disk) and the plan's repository
// served over git's daemon protocol on 127.0.0.1: the branch and rloop's refs live there.
describe('the fix cycle on a repository given by URL', () => {
  let tmp: TempDir;
  let daemon: GitDaemon;
  let served: string;
  let url: string;
  let repo: SampleRepo;
  let applied = 0;
  const slug = 'remote-plan';

  /** A strategy that appends a line (and counts its runs), so which host did the work shows. */
  const appending: FixStrategy = {
    name: 'command',
    apply: ({ worktreeDir, round }) => {
      applied += 1;
      execFileSync('sh', ['-c', `echo "round ${round}" >> README.md`], { cwd: worktreeDir });
      return Promise.resolve({ changedFiles: ['README.md'], log: 'appended' });
    },
  };
  const home = (host: string) => join(tmp.path, host);
  const deps = (host: string) => ({
    workRoot: home(host),
    env: commandEnv(),
    commands: TEST_COMMANDS,
    testTimeoutMs: 30_000,
    strategyFor: () => appending,
  });
  const remoteHead = (ref: string): string | null =>
    gitOut(served, ['for-each-ref', '--format=%(objectname)', ref]) || null;

  function request(base: string, round: number, letterId: string): FixRequestedData {
    return {
      round,
      attempt: round,
      letter: letterFor(slug, base, [], { round, letter_id: letterId }),
      base_commit: base,
      branch: `rloop/${slug}`,
      // The gate's path on its own host: never read here.
      repo_path: '/nonexistent/gate-host/repos/app',
      repo_url: url,
      test_cmd: 'node --test',
      implementer: { strategy: 'command', command: 'echo fix' },
      baseline_failing: [],
    };
  }

  beforeAll(async () => {
    tmp = await tempDir('remote');
    repo = await sampleRepo(tmp.path, 'fixable', 'origin');
    served = join(tmp.path, 'served', 'app.git');
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, served]);
    daemon = await startGitDaemon(join(tmp.path, 'served'));
    url = daemon.urlOf('app.git');
  });

  afterAll(async () => {
    await daemon.stop();
    await tmp.cleanup();
  });

  it('given a fix made on one host, when the request is redelivered to another, then the other finds the pushed commit and does not redo it', async () => {
    const baseline = await recordBaseline(
      {
        slug,
        runId: RUN_ID,
        repoPath: '/nonexistent/gate-host/repos/app',
        repoUrl: url,
        commit: repo.commit,
        testCmd: 'node --test',
      },
      deps('host-a'),
    );
    expect(baseline.commit).toBe(repo.commit);
    const first = await applyFix(request(repo.commit, 1, 'd_letter_remote_0001'), deps('host-a'));
    expect(first.outcome).toBe('committed');
    expect(applied).toBe(1);
    // The result branch is on the plan's repository, not only in host A's copy.
    expect(remoteHead('refs/heads/rloop/remote-plan')).toBe(first.commit);

    const again = await applyFix(request(repo.commit, 1, 'd_letter_remote_0001'), deps('host-b'));
    expect(again).toEqual(first);
    expect(applied).toBe(1);
  });

  it('given the next round on the other host, when fixed, then it builds its worktree from the pushed branch and moves it on with a lease', async () => {
    const previous = remoteHead('refs/heads/rloop/remote-plan') ?? '';
    const second = await applyFix(request(previous, 2, 'd_letter_remote_0002'), deps('host-b'));
    expect(second.outcome).toBe('committed');
    expect(gitOut(served, ['rev-parse', `${second.commit ?? ''}^`])).toBe(previous);
    expect(remoteHead('refs/heads/rloop/remote-plan')).toBe(second.commit);
  });

  it("given an escalation, when the branch is handed off, then the ref moves are pushed to the plan's repository and a redelivery on another host gets the same answer", async () => {
    const last = remoteHead('refs/heads/rloop/remote-plan') ?? '';
    const best = gitOut(served, ['rev-parse', `${last}^`]);
    const reviewed: ReviewedRound = {
      round: 1,
      phase: 'critical',
      commit: best,
      letter_id: 'd_letter_remote_0001',
      counts: { critical: 1, medium: 0, low: 0 },
    };
    const choice: HandoffChoice = {
      best: reviewed,
      last: { ...reviewed, round: 2 },
      reason: 'round 1 had the fewest open findings',
    };
    const work = {
      slug,
      runId: RUN_ID,
      repoPath: '/nonexistent/gate-host/repos/app',
      repoUrl: url,
      branch: `rloop/${slug}`,
      trigger: { kind: 'escalated' as const, event_id: 'd_escalation_remote_01' },
    };
    const data = await handOffBranch(work, choice, home('host-a'));
    expect(data).toMatchObject({ best_commit: best, last_commit: last, moved: true });
    expect(remoteHead('refs/heads/rloop/remote-plan')).toBe(best);
    expect(remoteHead(lastCommitRef(slug))).toBe(last);

    // Redelivered elsewhere: the record on the plan's repository answers, and nothing moves again.
    expect(await handOffBranch(work, choice, home('host-b'))).toEqual(data);
    // A stop after it, on the other host: the branch is still at the best commit, so the last commit stays the real last one.
    const stopped = await handOffBranch(
      { ...work, trigger: { kind: 'stopped', event_id: 'd_stopped_remote_0001' } },
      choice,
      home('host-b'),
    );
    expect(stopped).toMatchObject({ best_commit: best, last_commit: last, moved: false });
    expect(remoteHead(lastCommitRef(slug))).toBe(last);
  });
});
