import { existsSync } from 'node:fs';
import type { DataOf } from '@rloop/contracts';
import type { HandoffChoice, HandoffWork } from '@rloop/domain';
import { CommitNotFoundError, PushRejectedError, commitExists, git, gitText } from '@rloop/git';
import { z } from 'zod';
import { readRecord, writeRecord } from './records.js';
import { type PlanRemote, RemoteMovedError, planRemote, trackingRef } from './remote.js';
import { resetWorktree, worktreeDirFor } from './worktree.js';

/** Where the branch's last commit is kept when the branch is handed off at an earlier round. */
export function lastCommitRef(slug: string): string {
  return `refs/rloop/${slug}/last`;
}

/** The run's latest handoff, recorded in the repository (a redelivered trigger gets the same answer; a second trigger keeps the first's last commit). */
function handoffRecordRef(slug: string, runId: string): string {
  return `refs/rloop/${slug}/handoffs/${runId}`;
}

const HandoffRecord = z.object({
  trigger_event_id: z.string(),
  best_commit: z.string(),
  last_commit: z.string(),
  data: z.record(z.string(), z.unknown()),
});

async function branchHead(repoPath: string, branch: string): Promise<string | null> {
  const found = await git(['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], {
    cwd: repoPath,
    okExitCodes: [1],
  });
  return found.exitCode === 0 ? found.stdout.trim() : null;
}

/**
 * Leaves the plan's branch at the best round's commit (`choice`, null: no round was completely
 * reviewed, the branch stays) and keeps its last commit at `refs/rloop/<slug>/last`. The plan's
 * worktree (ours, with the branch checked out) is reset with it, so the next fix of a resumed loop
 * starts from a clean tree. Idempotent: the same trigger again returns what was recorded; a later
 * trigger of the same run whose branch is still where the earlier one left it keeps that one's
 * last commit (a stop after an escalation must not make the best commit the "last").
 * Returns null when the branch does not exist (nothing was ever committed for the plan).
 */
export async function handOffBranch(
  work: HandoffWork,
  choice: HandoffChoice | null,
  workRoot: string,
): Promise<DataOf<'BranchHandedOff'> | null> {
  const remote = await planRemote(work.repoUrl, workRoot, []);
  if (remote !== null) return handOffRemoteBranch(work, choice, remote, workRoot);
  const recordRef = handoffRecordRef(work.slug, work.runId);
  const raw = await readRecord(work.repoPath, recordRef);
  const recorded = raw === null ? null : HandoffRecord.parse(raw);
  if (recorded !== null && recorded.trigger_event_id === work.trigger.event_id)
    return recorded.data as DataOf<'BranchHandedOff'>;
  const head = await branchHead(work.repoPath, work.branch);
  if (head === null) return null;
  const last = recorded !== null && recorded.best_commit === head ? recorded.last_commit : head;
  const best = choice?.best.commit ?? head;
  if (!(await commitExists(work.repoPath, best))) throw new CommitNotFoundError(work.repoPath, best);
  const lastRef = lastCommitRef(work.slug);
  await git(['update-ref', lastRef, last], { cwd: work.repoPath });
  const moved = best !== head;
  if (moved) {
    const dir = worktreeDirFor(workRoot, work.slug);
    const checkedOut =
      existsSync(dir) &&
      (await gitText(['symbolic-ref', '-q', 'HEAD'], { cwd: dir }).catch(() => '')) === `refs/heads/${work.branch}`;
    if (checkedOut) await resetWorktree(dir, work.branch, best);
    // Compare-and-swap on the head we read: a fix that moved the branch meanwhile is not overwritten blindly.
    else await git(['update-ref', `refs/heads/${work.branch}`, best, head], { cwd: work.repoPath });
  }
  const data = handedOff(work, choice, best, last, moved);
  await writeRecord(work.repoPath, recordRef, {
    trigger_event_id: work.trigger.event_id,
    best_commit: best,
    last_commit: last,
    data,
  });
  return data;
}

function handedOff(
  work: HandoffWork,
  choice: HandoffChoice | null,
  best: string,
  last: string,
  moved: boolean,
): DataOf<'BranchHandedOff'> {
  return {
    trigger: { kind: work.trigger.kind, event_id: work.trigger.event_id },
    branch: work.branch,
    best_round: choice?.best.round ?? null,
    best_commit: best,
    counts: choice === null ? null : { ...choice.best.counts },
    last_commit: last,
    last_ref: lastCommitRef(work.slug),
    moved,
    reason:
      choice === null
        ? 'no round was completely reviewed, so the branch stays at its last commit'
        : `${choice.reason}; the branch is left there`,
  };
}

/**
 * The handoff of a plan given by URL: the same decision, made on the plan's repository rather than
 * on one implementer's copy — the branch, `refs/rloop/<slug>/last` and the handoff record are read
 * from it and moved on it in one atomic push, each with a lease on what was read, so a handoff
 * redelivered to another implementer finds what the first one did, and a fix pushed meanwhile is
 * never overwritten (the push is refused and the trigger redelivered).
 */
async function handOffRemoteBranch(
  work: HandoffWork,
  choice: HandoffChoice | null,
  remote: PlanRemote,
  workRoot: string,
): Promise<DataOf<'BranchHandedOff'> | null> {
  const { cache, url, dir } = remote;
  const recordRef = handoffRecordRef(work.slug, work.runId);
  const branchRef = `refs/heads/${work.branch}`;
  const lastRef = lastCommitRef(work.slug);
  const head = await cache.fetchRef(url, branchRef, trackingRef(branchRef));
  const remoteLast = await cache.fetchRef(url, lastRef, trackingRef(lastRef));
  // The record is read into its own ref: the remote's, or none.
  const remoteRecord = await cache.fetchRef(url, recordRef, recordRef);
  const raw = await readRecord(dir, recordRef);
  const recorded = raw === null ? null : HandoffRecord.parse(raw);
  if (recorded !== null && recorded.trigger_event_id === work.trigger.event_id)
    return recorded.data as DataOf<'BranchHandedOff'>;
  if (head === null) return null;
  const last = recorded !== null && recorded.best_commit === head ? recorded.last_commit : head;
  const best = choice?.best.commit ?? head;
  await cache.fetchCommit(url, best);
  const moved = best !== head;
  const data = handedOff(work, choice, best, last, moved);
  await writeRecord(dir, recordRef, {
    trigger_event_id: work.trigger.event_id,
    best_commit: best,
    last_commit: last,
    data,
  });
  const recordBlob = await gitText(['rev-parse', recordRef], { cwd: dir });
  try {
    await cache.push(url, [
      ...(moved ? [{ source: best, ref: branchRef, expected: head }] : []),
      { source: last, ref: lastRef, expected: remoteLast },
      { source: recordBlob, ref: recordRef, expected: remoteRecord },
    ]);
  } catch (error) {
    if (error instanceof PushRejectedError)
      throw new RemoteMovedError(`${work.slug}: handing off ${work.branch}`, { cause: error });
    throw error;
  }
  // This implementer's worktree of the plan follows, so a resumed loop's next fix here starts clean.
  const local = worktreeDirFor(workRoot, work.slug);
  if (
    moved &&
    existsSync(local) &&
    (await gitText(['symbolic-ref', '-q', 'HEAD'], { cwd: local }).catch(() => '')) === branchRef
  )
    await resetWorktree(local, work.branch, best);
  return data;
}
