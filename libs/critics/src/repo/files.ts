import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { git } from '@rloop/git';

/** Directories never reviewed when a working directory is walked without git (build output, dependencies, caches). */
export const DEFAULT_IGNORED_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'build',
  'out',
  'coverage',
  '.next',
  '.nuxt',
  '.turbo',
  '.nx',
  '.cache',
  '.rloop',
  'vendor',
  'tmp',
]);

/** In a checkout of a commit every file is the commit's, except a repository's own git data and installed dependencies. */
const CHECKOUT_SKIPPED_DIRS = new Set(['.git', 'node_modules']);

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/**
 * Lists the files under `dir`, skipping directories by name. Symbolic links are listed as files
 * and never followed: whether one may be read is the reader's decision (CheckoutBoundary).
 */
function walk(root: string, dir: string, skipped: ReadonlySet<string>, out: string[], signal?: AbortSignal): void {
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
      if (!skipped.has(entry.name)) walk(root, join(dir, entry.name), skipped, out, signal);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      out.push(toPosix(relative(root, join(dir, entry.name))));
    }
  }
}

/** Runs git (the hardened runner: nothing a repository configures is executed) in `dir`; stdout. */
async function gitIn(dir: string, args: readonly string[], signal?: AbortSignal): Promise<string> {
  return (await git(args, { cwd: dir, literalPaths: true, ...(signal === undefined ? {} : { signal }) })).stdout;
}

/** What git tracks under `dir` plus untracked files it does not ignore, relative to `dir`. */
async function gitFiles(dir: string, signal?: AbortSignal): Promise<string[]> {
  const stdout = await gitIn(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], signal);
  return stdout
    .split('\0')
    .filter((file) => file !== '' && !file.split('/').some((part) => part === 'node_modules'))
    .filter((file) => lexists(join(dir, file)))
    .sort();
}

function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    // Deleted in the working tree (git still tracks it): nothing to review.
    return false;
  }
}

/** The top of the git work tree holding `dir` (real path), or null outside git. */
async function gitTopLevel(dir: string): Promise<string | null> {
  try {
    const top = (await gitIn(dir, ['rev-parse', '--show-toplevel'])).trim();
    return top === '' ? null : realpathSync.native(top);
  } catch {
    // Not inside a work tree (or git is missing): the directory is walked instead.
    return null;
  }
}

/** Whether `dir` is the top of its own git work tree (a clone, a worktree), not a directory inside another one. */
async function isOwnRepository(dir: string): Promise<boolean> {
  const top = await gitTopLevel(dir);
  return top !== null && top === realpathSync.native(dir);
}

/**
 * Every file of a checkout of a commit (a read-only checkout, a clone), relative and with forward
 * slashes, listed from the checkout itself — never from a repository that happens to hold the
 * directory (the fleet's home is often inside the project's own git tree, which ignores it). A
 * checkout with its own git data is listed by git; any other is walked whole, except `.git` and
 * `node_modules`.
 */
export async function listCheckoutFiles(dir: string, signal?: AbortSignal): Promise<string[]> {
  if (await isOwnRepository(dir)) return gitFiles(dir, signal);
  const out: string[] = [];
  walk(dir, dir, CHECKOUT_SKIPPED_DIRS, out, signal);
  return out.sort();
}

/** How a working directory's files were listed: by git (the repository's view) or by walking it. */
export interface DirectoryListing {
  readonly files: string[];
  readonly source: 'git' | 'walk';
}

/**
 * The files of a directory a person points `rloop review` at: what its repository tracks plus
 * untracked files it does not ignore (so .gitignore is honoured) when the directory is a
 * repository or a part of one it does not ignore; otherwise a walk of the directory itself,
 * without build output and dependencies. A directory that an enclosing repository ignores (a
 * sample under `.rloop/`) is its own tree, never "no files".
 */
export async function listDirectoryFiles(dir: string, signal?: AbortSignal): Promise<DirectoryListing> {
  const top = await gitTopLevel(dir);
  if (top !== null && (top === realpathSync.native(dir) || !(await ignoredBy(dir))))
    return { files: await gitFiles(dir, signal), source: 'git' };
  const out: string[] = [];
  walk(dir, dir, DEFAULT_IGNORED_DIRS, out, signal);
  return { files: out.sort(), source: 'walk' };
}

/** Whether the repository holding `dir` ignores it (or a directory it lies in). */
async function ignoredBy(dir: string): Promise<boolean> {
  try {
    // Exit 0: ignored; 1: not ignored.
    return (await git(['check-ignore', '-q', '--no-index', '.'], { cwd: dir, okExitCodes: [1] })).exitCode === 0;
  } catch {
    // git cannot say (an error): the repository's view is used.
    return false;
  }
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
      return new FileHashIndex(
        path,
        JSON.parse(readFileSync(path, 'utf8')) as Record<string, [number, number, string]>,
        now,
      );
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

/** Yields to the event loop so timers (the critic's deadline) and aborts can fire during long work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Extensions of files that are binary by nature (images, fonts, archives, media, compiled code): no text critic reviews them. */
const BINARY_EXTENSIONS = new Set(
  'png jpg jpeg gif bmp ico icns webp avif tif tiff psd woff woff2 ttf otf eot zip gz tgz bz2 xz 7z rar jar war ear zst br pdf doc docx xls xlsx ppt pptx odt mp3 mp4 m4a wav ogg flac webm mov avi mkv exe dll so dylib a o obj class pyc wasm node sqlite sqlite3 p12 pfx keystore'.split(
    ' ',
  ),
);

/** Whether a file is binary by its name (see BINARY_EXTENSIONS); text critics count such files as not of their kind. */
export function isBinaryByName(file: string): boolean {
  const dot = file.lastIndexOf('.');
  return dot > file.lastIndexOf('/') && BINARY_EXTENSIONS.has(file.slice(dot + 1).toLowerCase());
}
