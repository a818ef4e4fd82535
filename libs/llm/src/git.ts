import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GitCommandError as GitRunError, git as hardenedGit } from '@rloop/git';
import { GitCommandError } from './errors.js';
import { redactSecrets } from './redact.js';

/**
 * Read-only git plumbing for the reviewer and the verifier, through the one hardened runner
 * (@rloop/git): the worktree holds files the model wrote, and none of them may choose a program
 * for git to run. Diffs also pass --no-ext-diff and --no-textconv.
 */
export async function git(
  cwd: string,
  args: readonly string[],
  options: { readonly allowFailure?: boolean } = {},
): Promise<{ readonly stdout: string; readonly code: number }> {
  try {
    const result = await hardenedGit(args, { cwd });
    return { stdout: result.stdout, code: result.exitCode };
  } catch (error) {
    const code = error instanceof GitRunError ? (error.exitCode ?? 1) : 1;
    if (options.allowFailure === true && error instanceof GitRunError) return { stdout: '', code };
    const stderr = error instanceof GitRunError ? error.stderr : error instanceof Error ? error.message : String(error);
    throw new GitCommandError(
      `git ${args.slice(0, 3).join(' ')} failed (exit ${code}): ${redactSecrets(stderr.trim()).slice(0, 500)}`,
    );
  }
}

/** Lines added and removed per file between a commit and the working tree (untracked files count as added). */
export interface FileChange {
  readonly file: string;
  readonly status: 'added' | 'modified' | 'deleted';
  readonly insertions: number;
  readonly deletions: number;
  readonly binary: boolean;
}

function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Every change in the working tree relative to `baseCommit`, tracked and untracked. */
export async function changesSince(cwd: string, baseCommit: string): Promise<FileChange[]> {
  const numstat = await git(cwd, [
    'diff',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--numstat',
    '-z',
    baseCommit,
    '--',
  ]);
  const status = await git(cwd, ['diff', '--no-ext-diff', '--no-renames', '--name-status', '-z', baseCommit, '--']);
  const statusOf = new Map<string, string>();
  const parts = status.stdout.split('\u0000').filter((p) => p !== '');
  for (let i = 0; i + 1 < parts.length; i += 2) statusOf.set(parts[i + 1] ?? '', parts[i] ?? '');
  const changes: FileChange[] = [];
  for (const record of numstat.stdout.split('\u0000').filter((r) => r !== '')) {
    const [added, removed, ...nameParts] = record.split('\t');
    const file = nameParts.join('\t');
    const binary = added === '-' || removed === '-';
    const code = statusOf.get(file) ?? 'M';
    changes.push({
      file,
      status: code.startsWith('A') ? 'added' : code.startsWith('D') ? 'deleted' : 'modified',
      insertions: binary ? 0 : Number(added),
      deletions: binary ? 0 : Number(removed),
      binary,
    });
  }
  const untracked = await git(cwd, ['ls-files', '--others', '--exclude-standard', '-z']);
  for (const file of untracked.stdout.split('\u0000').filter((f) => f !== '')) {
    const content = await readUntracked(cwd, file);
    // Unreadable (a dangling link) is reported like a binary: present, but not measurable in lines.
    const binary = content === null || content.includes('\u0000');
    changes.push({ file, status: 'added', insertions: binary ? 0 : countLines(content), deletions: 0, binary });
  }
  return changes.sort((a, b) => a.file.localeCompare(b.file));
}

/** An untracked file's text; null when it cannot be measured (a symbolic link is never followed: it may lead out of the worktree). */
async function readUntracked(cwd: string, file: string): Promise<string | null> {
  const info = await lstat(join(cwd, file)).catch(() => null);
  if (info === null || !info.isFile()) return null;
  return await readFile(join(cwd, file), 'utf8').catch(() => null);
}

/** A file's content at a commit, or null when it did not exist there. */
export async function fileAtCommit(cwd: string, commit: string, file: string): Promise<string | null> {
  const result = await git(cwd, ['show', `${commit}:${file}`], { allowFailure: true });
  return result.code === 0 ? result.stdout : null;
}

/** Every file tracked at a commit. */
export async function filesAtCommit(cwd: string, commit: string): Promise<string[]> {
  const result = await git(cwd, ['ls-tree', '-r', '--name-only', '-z', commit]);
  return result.stdout.split('\u0000').filter((f) => f !== '');
}

/** Changed line ranges of the new version of `file` (from `git diff -U0`). */
export async function changedHunks(
  cwd: string,
  baseCommit: string,
  file: string,
): Promise<{ start: number; end: number }[]> {
  const diff = await git(cwd, ['diff', '--no-ext-diff', '--no-textconv', '-U0', baseCommit, '--', file]);
  const hunks: { start: number; end: number }[] = [];
  for (const match of diff.stdout.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    const first = Math.max(1, start);
    hunks.push({ start: first, end: Math.max(first, start + count - 1) });
  }
  return hunks;
}

/** The unified diff between two commits (or a commit's first parent) for some files. */
export async function diffBetween(
  cwd: string,
  base: string | null,
  commit: string,
  files: readonly string[],
): Promise<string | null> {
  const from = base ?? `${commit}~1`;
  const result = await git(
    cwd,
    ['diff', '--no-ext-diff', '--no-textconv', '--no-color', '-U3', from, commit, '--', ...files],
    { allowFailure: true },
  );
  return result.code === 0 ? result.stdout : null;
}
