import { lstat, mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PathOutsideWorktreeError } from './errors.js';

/**
 * File access for the model's tools, confined to one worktree. Every path goes through
 * resolveInWorktree: no absolute paths, no `..`, nothing under `.git` (hooks there would run code
 * on the next commit), and the real path (symlinks resolved) must stay inside the worktree.
 */

export interface ResolvedPath {
  /** Absolute real path inside the worktree. */
  readonly absolute: string;
  /** Repo-relative path with forward slashes. */
  readonly relative: string;
}

const MAX_PATH_LENGTH = 1024;
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

function within(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** The worktree's own real path (resolve it once; every check compares against it). */
export async function realWorktreeRoot(worktreeDir: string): Promise<string> {
  return await realpath(worktreeDir);
}

/**
 * Resolves a model-supplied path inside the worktree or throws PathOutsideWorktreeError. For a
 * path that does not exist yet (a new file), the deepest existing ancestor is resolved instead.
 */
export async function resolveInWorktree(root: string, requested: string): Promise<ResolvedPath> {
  if (typeof requested !== 'string' || requested.trim() === '')
    throw new PathOutsideWorktreeError(String(requested), 'empty path');
  if (requested.length > MAX_PATH_LENGTH) throw new PathOutsideWorktreeError(requested, 'path too long');
  if (requested.includes('\u0000')) throw new PathOutsideWorktreeError(requested, 'NUL byte in path');
  if (requested.includes('\\')) throw new PathOutsideWorktreeError(requested, 'use forward slashes');
  if (isAbsolute(requested) || /^[A-Za-z]:/.test(requested))
    throw new PathOutsideWorktreeError(
      requested,
      'absolute paths are not allowed; give a path relative to the repository root',
    );
  const segments = requested.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new PathOutsideWorktreeError(requested, '".." is not allowed');
  if (segments.some((s) => s.toLowerCase() === '.git'))
    throw new PathOutsideWorktreeError(requested, 'the .git directory is off limits');
  const lexical = resolve(root, ...segments);
  if (!within(root, lexical)) throw new PathOutsideWorktreeError(requested, 'outside the worktree');
  // Resolve symlinks on the deepest part that exists; whatever it points to must stay inside.
  let existing = lexical;
  const rest: string[] = [];
  while (!(await exists(existing))) {
    rest.unshift(basename(existing));
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch {
    // A dangling symlink: where it points cannot be checked, so it is refused.
    throw new PathOutsideWorktreeError(requested, 'a symbolic link that cannot be resolved');
  }
  const absolute = rest.length === 0 ? real : join(real, ...rest);
  if (!within(root, absolute))
    throw new PathOutsideWorktreeError(requested, 'it resolves (through a symbolic link) outside the worktree');
  const rel = relative(root, absolute).split(sep).join('/');
  if (rel.split('/').some((s) => s.toLowerCase() === '.git'))
    throw new PathOutsideWorktreeError(requested, 'the .git directory is off limits');
  return { absolute, relative: rel === '' ? '.' : rel };
}

/** Reads a text file (refuses binaries and files over maxBytes). */
export async function readWorktreeFile(
  root: string,
  path: string,
  maxBytes = 256 * 1024,
): Promise<{ readonly relative: string; readonly content: string }> {
  const target = await resolveInWorktree(root, path);
  const info = await lstat(target.absolute);
  if (!info.isFile()) throw new Error(`${target.relative} is not a regular file`);
  if (info.size > maxBytes)
    throw new Error(`${target.relative} has ${info.size} bytes, more than the ${maxBytes} this tool reads`);
  const content = await readFile(target.absolute, 'utf8');
  if (content.includes('\u0000')) throw new Error(`${target.relative} looks binary`);
  return { relative: target.relative, content };
}

/** Writes (creates or replaces) a text file inside the worktree, creating parent directories. */
export async function writeWorktreeFile(root: string, path: string, content: string): Promise<ResolvedPath> {
  const target = await resolveInWorktree(root, path);
  if (target.relative === '.') throw new Error('cannot write the worktree root');
  if ((await exists(target.absolute)) && (await lstat(target.absolute)).isDirectory())
    throw new Error(`${target.relative} is a directory`);
  const parent = await resolveInWorktree(root, dirname(target.relative) === '.' ? '.' : dirname(target.relative));
  await mkdir(parent.absolute, { recursive: true });
  await writeFile(target.absolute, content, 'utf8');
  return target;
}

/** Replaces the single occurrence of `oldText`; refuses when it occurs zero or several times. */
export async function editWorktreeFile(
  root: string,
  path: string,
  oldText: string,
  newText: string,
): Promise<{ readonly relative: string; readonly line: number }> {
  if (oldText === '') throw new Error('old_string must not be empty (use write_file to create a file)');
  const { relative: rel, content } = await readWorktreeFile(root, path, 2 * 1024 * 1024);
  const first = content.indexOf(oldText);
  if (first < 0)
    throw new Error(
      `old_string was not found in ${rel}; read the file again and copy the text exactly (without line numbers)`,
    );
  if (content.indexOf(oldText, first + 1) >= 0)
    throw new Error(`old_string occurs more than once in ${rel}; include more surrounding lines so it is unique`);
  await writeWorktreeFile(root, rel, content.slice(0, first) + newText + content.slice(first + oldText.length));
  return { relative: rel, line: content.slice(0, first).split('\n').length };
}

/** Lists files under a directory of the worktree (skips .git and node_modules), sorted, capped. */
export async function listWorktreeFiles(
  root: string,
  dir = '.',
  maxEntries = 2000,
): Promise<{ readonly files: string[]; readonly truncated: boolean }> {
  const start = await resolveInWorktree(root, dir);
  const files: string[] = [];
  let truncated = false;
  const walk = async (absolute: string): Promise<void> => {
    const entries = (await readdir(absolute, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (files.length >= maxEntries) {
        truncated = true;
        return;
      }
      if (SKIPPED_DIRS.has(entry.name)) continue;
      const path = join(absolute, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(relative(root, path).split(sep).join('/'));
      // Symbolic links are listed by neither branch: following them could leave the worktree.
    }
  };
  await walk(start.absolute);
  return { files, truncated };
}

/** Fixed-string search (no regular expressions, so no catastrophic backtracking), capped. */
export async function searchWorktree(
  root: string,
  query: string,
  options: { readonly dir?: string; readonly ignoreCase?: boolean; readonly maxResults?: number } = {},
): Promise<{ readonly matches: string[]; readonly truncated: boolean }> {
  if (query === '') throw new Error('query must not be empty');
  const maxResults = options.maxResults ?? 200;
  const needle = options.ignoreCase === true ? query.toLowerCase() : query;
  const { files } = await listWorktreeFiles(root, options.dir ?? '.', 20_000);
  const matches: string[] = [];
  for (const file of files) {
    let content: string;
    try {
      ({ content } = await readWorktreeFile(root, file, 1024 * 1024));
    } catch {
      continue; // binary or too large: not searchable text
    }
    const lines = content.split('\n');
    for (const [index, line] of lines.entries()) {
      const hay = options.ignoreCase === true ? line.toLowerCase() : line;
      if (!hay.includes(needle)) continue;
      if (matches.length >= maxResults) return { matches, truncated: true };
      matches.push(`${file}:${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
    }
  }
  return { matches, truncated: false };
}

/** `cat -n`-style numbering, the form the model cites line numbers from. */
export function numberLines(content: string): string {
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const width = String(lines.length).length;
  return lines.map((line, i) => `${String(i + 1).padStart(width)}\t${line}`).join('\n');
}
