import type { Finding } from '@rloop/contracts';
import { git as hardenedGit } from '@rloop/git';
import { ReviewGitError } from '../errors.js';
import { isInsideGit } from '../repo/files.js';

/** Lines added or changed since a base, per repo-relative file (inclusive ranges on the new side). */
export type ChangedLines = ReadonlyMap<string, readonly (readonly [number, number])[]>;

function unquotePath(raw: string): string {
  if (!raw.startsWith('"')) return raw;
  try {
    return JSON.parse(raw) as string;
  } catch {
    // git's C-style quoting is close to JSON; when it is not, keep the text between the quotes.
    return raw.slice(1, -1);
  }
}

/** Parses `git diff -U0` output into the changed line ranges of each file (deleted files have none). */
export function parseUnifiedDiff(diff: string): Map<string, [number, number][]> {
  const changed = new Map<string, [number, number][]>();
  let current: string | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      const target = unquotePath(line.slice(4).trim());
      current = target === '/dev/null' ? null : target.replace(/^b\//, '');
      if (current !== null && !changed.has(current)) changed.set(current, []);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk !== null && current !== null) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      if (count > 0) changed.get(current)?.push([start, start + count - 1]);
    }
  }
  return changed;
}

/** The hardened runner (@rloop/git): a reviewed directory's .git/config never chooses a program for git to run. */
async function git(repoDir: string, args: readonly string[], signal?: AbortSignal): Promise<string> {
  return (await hardenedGit(args, { cwd: repoDir, literalPaths: true, ...(signal === undefined ? {} : { signal }) }))
    .stdout;
}

/**
 * What changed in the working tree (committed, staged and unstaged, plus untracked files) since
 * `base`. Needs git; an unknown ref or a directory outside git is a ReviewGitError.
 */
export async function changedLinesSince(
  repoDir: string,
  base: string,
  signal?: AbortSignal,
): Promise<Map<string, [number, number][]>> {
  if (!(await isInsideGit(repoDir)))
    throw new ReviewGitError(`--base needs a git repository, and ${repoDir} is not inside one`);
  if (base.startsWith('-') || base.trim() === '')
    throw new ReviewGitError(`--base ${JSON.stringify(base)} is not a git ref`);
  try {
    await git(repoDir, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`], signal);
  } catch (error) {
    throw new ReviewGitError(`--base ${base} is not a commit in ${repoDir}`, { cause: error });
  }
  const diff = await git(
    repoDir,
    ['diff', '-U0', '--no-color', '--no-ext-diff', '--relative', '-M', base, '--'],
    signal,
  );
  const changed = parseUnifiedDiff(diff);
  const untracked = await git(repoDir, ['ls-files', '--others', '--exclude-standard', '-z'], signal);
  for (const file of untracked.split('\0').filter((f) => f !== '')) changed.set(file, [[1, Number.MAX_SAFE_INTEGER]]);
  return changed;
}

/** The commit checked out in a git repository, or null outside git (or before the first commit). */
export async function headCommit(repoDir: string): Promise<string | null> {
  try {
    const sha = (await git(repoDir, ['rev-parse', 'HEAD'])).trim();
    return /^[0-9a-f]{40}$/.test(sha) ? sha : null;
  } catch {
    // Not a repository, or no commits yet: the caller derives a content-based id instead.
    return null;
  }
}

function overlaps(ranges: readonly (readonly [number, number])[] | undefined, start: number, end: number): boolean {
  return (ranges ?? []).some(([a, b]) => a <= end && start <= b);
}

/**
 * Whether a finding concerns new code: its own lines, or one of its related locations (the taint
 * source or call site of a flow, the other copy of a duplicate), intersect the changed lines.
 */
export function touchesChange(
  finding: Pick<Finding, 'file' | 'line_range' | 'related_locations'>,
  changed: ChangedLines,
): boolean {
  if (overlaps(changed.get(finding.file), finding.line_range.start, finding.line_range.end)) return true;
  return finding.related_locations.some((l) => overlaps(changed.get(l.file), l.line_range.start, l.line_range.end));
}
