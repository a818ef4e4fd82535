import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { git } from '@rloop/git';
import picomatch from 'picomatch';

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
    const { stdout } = await git(['-c', 'core.quotepath=off', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoDir, ...(signal === undefined ? {} : { signal }) });
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
    const { stdout } = await git(['rev-parse', '--is-inside-work-tree'], { cwd: dir });
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

/**
 * Content hashes remembered by file size and modification time (git's index does the same), so an
 * incremental review does not read and hash every unchanged file again. An entry is trusted only
 * when the file was last modified well before the hash was taken ("racy" files are re-hashed).
 */
export class FileHashIndex {
  private readonly entries: Record<string, [number, number, string]>;
  private dirty = false;

  private constructor(
    private readonly path: string | null,
    entries: Record<string, [number, number, string]>,
    private readonly takenAt: number,
  ) {
    this.entries = entries;
  }

  /** Opens the index in a cache directory; without one it remembers nothing. `now` is the time hashes are taken. */
  static open(cacheDir: string | undefined, now: number): FileHashIndex {
    if (cacheDir === undefined) return new FileHashIndex(null, {}, now);
    const path = join(cacheDir, 'file-hashes.json');
    try {
      return new FileHashIndex(path, JSON.parse(readFileSync(path, 'utf8')) as Record<string, [number, number, string]>, now);
    } catch {
      // No index yet (or an unreadable one): every file is hashed from its content this time.
      return new FileHashIndex(path, {}, now);
    }
  }

  lookup(file: string, size: number, mtimeMs: number): string | null {
    const entry = this.entries[file];
    if (entry === undefined || entry[0] !== size || entry[1] !== mtimeMs) return null;
    return entry[2];
  }

  record(file: string, size: number, mtimeMs: number, hash: string): void {
    // TODO(calibration): 2 s covers coarse file-system timestamps; a file written that recently is re-hashed next time.
    if (mtimeMs > this.takenAt - 2_000) return;
    const entry = this.entries[file];
    if (entry !== undefined && entry[0] === size && entry[1] === mtimeMs && entry[2] === hash) return;
    this.entries[file] = [size, mtimeMs, hash];
    this.dirty = true;
  }

  save(): void {
    if (this.path === null || !this.dirty) return;
    mkdirSync(join(this.path, '..'), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.entries));
    renameSync(temp, this.path);
  }
}

/** A reader of repo-relative text files with a per-run memo; null for unreadable, binary or huge files. */
export class RepoReader {
  private readonly texts = new Map<string, string | null>();
  private readonly hashes = new Map<string, string | null>();

  constructor(
    readonly repoDir: string,
    private readonly index: FileHashIndex | null = null,
  ) {}

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
    let stat: { size: number; mtimeMs: number } | null = null;
    if (this.index !== null) {
      try {
        stat = statSync(join(this.repoDir, file));
      } catch {
        // Gone: the content read below is null as well.
        stat = null;
      }
      const known = stat === null ? null : this.index.lookup(file, stat.size, stat.mtimeMs);
      if (known !== null) {
        this.hashes.set(file, known);
        return known;
      }
    }
    const text = this.read(file);
    const hash = text === null ? null : sha256(text);
    if (hash !== null && stat !== null) this.index?.record(file, stat.size, stat.mtimeMs, hash);
    this.hashes.set(file, hash);
    return hash;
  }

  /** Saves the hash index (when the reader has one). */
  saveIndex(): void {
    this.index?.save();
  }
}

/** Yields to the event loop so timers (the critic's deadline) and aborts can fire during long work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
