import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import picomatch from 'picomatch';

const execFileAsync = promisify(execFile);

/** Directories never reviewed when a directory is walked without git (build output, dependencies, caches). */
export const DEFAULT_IGNORED_DIRS = new Set(['node_modules', '.git', 'dist', 'build', 'out', 'coverage', '.next', '.nuxt', '.turbo', '.nx', '.cache', '.rloop', 'vendor', 'tmp']);

/** Larger files are not read as source (minified bundles, data dumps). */
export const MAX_SOURCE_BYTES = 1_000_000;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

function walk(root: string, dir: string, out: string[], signal?: AbortSignal): void {
  signal?.throwIfAborted();
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    // An unreadable directory (permissions) has nothing we can review.
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!DEFAULT_IGNORED_DIRS.has(entry.name)) walk(root, join(dir, entry.name), out, signal);
    } else if (entry.isFile()) {
      out.push(toPosix(relative(root, join(dir, entry.name))));
    }
  }
}

/**
 * The repository's files, relative and with forward slashes: what git tracks plus untracked files
 * it does not ignore (so .gitignore is honoured), or a directory walk without build output and
 * dependencies when the directory is not a git checkout.
 */
export async function listRepoFiles(repoDir: string, signal?: AbortSignal): Promise<string[]> {
  if (await isInsideGit(repoDir)) {
    const { stdout } = await execFileAsync('git', ['-c', 'core.quotepath=off', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repoDir,
      maxBuffer: 256 * 1024 * 1024,
      ...(signal === undefined ? {} : { signal }),
    });
    return stdout
      .split('\0')
      .filter((file) => file !== '' && !file.split('/').some((part) => part === 'node_modules'))
      .filter((file) => existsSync(join(repoDir, file)))
      .sort();
  }
  const out: string[] = [];
  walk(repoDir, repoDir, out, signal);
  return out.sort();
}

export async function isInsideGit(dir: string): Promise<boolean> {
  try {
    const { stdout } = await execFileAsync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: dir });
    return stdout.trim() === 'true';
  } catch {
    // Not a repository (or git is missing): callers walk the directory instead.
    return false;
  }
}

/** Keeps the files matching any of the globs (all files when there are none). */
export function filterByGlobs(files: readonly string[], globs: readonly string[]): string[] {
  if (globs.length === 0) return [...files];
  const matchers = globs.map((glob) => picomatch(glob, { dot: true }));
  return files.filter((file) => matchers.some((match) => match(file)));
}

/** A reader of repo-relative text files with a per-run memo; null for unreadable, binary or huge files. */
export class RepoReader {
  private readonly texts = new Map<string, string | null>();
  private readonly hashes = new Map<string, string | null>();

  constructor(readonly repoDir: string) {}

  read(file: string): string | null {
    if (this.texts.has(file)) return this.texts.get(file) ?? null;
    let text: string | null = null;
    try {
      const path = join(this.repoDir, file);
      if (statSync(path).size <= MAX_SOURCE_BYTES) {
        const raw = readFileSync(path, 'utf8');
        text = raw.includes('\u0000') ? null : raw;
      }
    } catch {
      // Gone or unreadable: the file contributes nothing (callers treat null as "no content").
      text = null;
    }
    this.texts.set(file, text);
    return text;
  }

  hash(file: string): string | null {
    if (this.hashes.has(file)) return this.hashes.get(file) ?? null;
    const text = this.read(file);
    const hash = text === null ? null : sha256(text);
    this.hashes.set(file, hash);
    return hash;
  }
}

/** Yields to the event loop so timers (the critic's deadline) and aborts can fire during long work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
