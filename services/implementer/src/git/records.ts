import { git } from '@rloop/git';

/**
 * rloop keeps what it has done for a plan inside the user's repository, under `refs/rloop/<slug>/…`
 * (refs, not branches: they point at JSON blobs). The repository is the one thing every replica of
 * the implementer shares, so a redelivered message finds the answer there whichever replica gets it.
 */
export function baselineRecordRef(slug: string, runId: string): string {
  return `refs/rloop/${slug}/baselines/${runId}`;
}

export function fixRecordRef(slug: string, letterId: string): string {
  return `refs/rloop/${slug}/fixes/${letterId}`;
}

/** The JSON stored at a record ref, or null when there is none. */
export async function readRecord(repoPath: string, ref: string): Promise<unknown> {
  const found = await git(['rev-parse', '-q', '--verify', `${ref}^{blob}`], { cwd: repoPath, okExitCodes: [1] });
  if (found.exitCode !== 0) return null;
  const text = (await git(['cat-file', 'blob', found.stdout.trim()], { cwd: repoPath })).stdout;
  return JSON.parse(text) as unknown;
}

/** Stores JSON at a record ref (a blob in the object database plus the ref: both atomic on their own). */
export async function writeRecord(repoPath: string, ref: string, value: unknown): Promise<void> {
  const blob = (
    await git(['hash-object', '-w', '--stdin'], { cwd: repoPath, input: `${JSON.stringify(value, null, 2)}\n` })
  ).stdout.trim();
  await git(['update-ref', ref, blob], { cwd: repoPath });
}
