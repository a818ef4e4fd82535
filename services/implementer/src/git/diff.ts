import type { LineRange } from '@rloop/contracts';
import { git } from '@rloop/git';

export interface FileChange {
  /** Repository-relative path (the old path for a deleted file). */
  readonly file: string;
  readonly status: 'added' | 'modified' | 'deleted' | 'type_changed';
  readonly insertions: number;
  readonly deletions: number;
  /** Changed line ranges in the new version (empty for a deleted file). */
  readonly hunks: readonly LineRange[];
  /** The lines of the old version the change touched (an insertion touches the lines on both sides). */
  readonly oldRanges: readonly LineRange[];
}

export interface DiffSummary {
  readonly files: readonly FileChange[];
  readonly insertions: number;
  readonly deletions: number;
}

/** The two sides a diff compares: a base commit and either the index or another commit. */
export type DiffTarget = { readonly index: true } | { readonly commit: string };

// Renames are shown as delete + add so every path maps to findings on the base version directly.
const DIFF_FLAGS = ['-c', 'core.quotePath=false', 'diff', '--no-renames', '--no-ext-diff', '--no-color'] as const;

function rangeArgs(base: string, target: DiffTarget): string[] {
  return 'index' in target ? ['--cached', base] : [base, target.commit];
}

function lineRange(start: number, count: number): LineRange {
  const first = Math.max(start, 1);
  return { start: first, end: count === 0 ? first : first + count - 1 };
}

interface Hunks {
  readonly hunks: LineRange[];
  readonly oldRanges: LineRange[];
}

function parseHunks(patch: string): Map<string, Hunks> {
  const byFile = new Map<string, Hunks>();
  let oldPath: string | null = null;
  let current: Hunks | null = null;
  let deleted = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      oldPath = null;
      current = null;
      continue;
    }
    if (line.startsWith('--- ')) {
      oldPath = line === '--- /dev/null' ? null : line.slice('--- a/'.length);
      continue;
    }
    if (line.startsWith('+++ ')) {
      deleted = line === '+++ /dev/null';
      const path = deleted ? oldPath : line.slice('+++ b/'.length);
      if (path === null) continue;
      current = { hunks: [], oldRanges: [] };
      byFile.set(path, current);
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk === null || current === null) continue;
    const oldStart = Number(hunk[1]);
    const oldCount = hunk[2] === undefined ? 1 : Number(hunk[2]);
    const newStart = Number(hunk[3]);
    const newCount = hunk[4] === undefined ? 1 : Number(hunk[4]);
    // A deleted file has no new version to point into; a pure deletion points at the line it left behind.
    if (!deleted) current.hunks.push(lineRange(newStart, newCount));
    // A pure insertion after old line N touches N and N+1: a finding on either may be what it fixes.
    if (oldCount === 0) current.oldRanges.push({ start: Math.max(oldStart, 1), end: oldStart + 1 });
    else current.oldRanges.push(lineRange(oldStart, oldCount));
  }
  return byFile;
}

/**
 * What changed between `base` and the index (or a commit): per file the line counts and the changed
 * line ranges on both sides. Binary files count as changed with no lines.
 */
export async function diffSummary(cwd: string, base: string, target: DiffTarget): Promise<DiffSummary> {
  const range = rangeArgs(base, target);
  const [status, numstat, patch] = await Promise.all([
    git([...DIFF_FLAGS, '--name-status', '-z', ...range], { cwd }),
    git([...DIFF_FLAGS, '--numstat', '-z', ...range], { cwd }),
    git([...DIFF_FLAGS, '-U0', ...range], { cwd }),
  ]);
  const statuses = new Map<string, FileChange['status']>();
  const statusParts = status.stdout.split('\0');
  for (let i = 0; i + 1 < statusParts.length; i += 2) {
    const code = statusParts[i] ?? '';
    const file = statusParts[i + 1] ?? '';
    statuses.set(file, code === 'A' ? 'added' : code === 'D' ? 'deleted' : code === 'T' ? 'type_changed' : 'modified');
  }
  const hunks = parseHunks(patch.stdout);
  const files: FileChange[] = [];
  for (const record of numstat.stdout.split('\0').filter((r) => r.length > 0)) {
    const [ins, del, ...rest] = record.split('\t');
    const file = rest.join('\t');
    const fileHunks = hunks.get(file);
    files.push({
      file,
      status: statuses.get(file) ?? 'modified',
      insertions: ins === '-' ? 0 : Number(ins),
      deletions: del === '-' ? 0 : Number(del),
      hunks: fileHunks?.hunks ?? [],
      oldRanges: fileHunks?.oldRanges ?? [],
    });
  }
  files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return {
    files,
    insertions: files.reduce((sum, f) => sum + f.insertions, 0),
    deletions: files.reduce((sum, f) => sum + f.deletions, 0),
  };
}

/** Paths with uncommitted changes in a worktree (tracked or untracked, not ignored). */
export async function changedPaths(cwd: string): Promise<string[]> {
  const out = (await git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], { cwd })).stdout;
  return out
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .sort();
}

const TEST_FILE = [
  /(^|\/)(test|tests|__tests__|spec)\//,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /(^|\/)test_[^/]*\.py$/,
  /_test\.(go|py)$/,
];

/** Whether a path looks like a test file in the common layouts (JS/TS, Python, Go). */
export function isTestFile(path: string): boolean {
  return TEST_FILE.some((pattern) => pattern.test(path));
}
