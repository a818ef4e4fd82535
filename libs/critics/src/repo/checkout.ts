import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { CoverageSkipReason } from '@rloop/contracts';
import { type FileHashIndex, sha256 } from './files.js';

/**
 * Files larger than this (4 MiB) are not read by critics unless the operator sets another bound:
 * parsing a data dump or a bundle of that size costs more than it tells. A file under review
 * skipped for its size is reported as `too_large`, and keeps the round from counting as clean
 * until an operator sets the bound (RLOOP_MAX_FILE_BYTES, `rloop review --max-file-bytes`).
 */
// TODO(calibration): 4 MiB keeps hand-written sources (the largest seen are ~3 MB) and most lockfiles in; settle it from the sizes coverage reports skip.
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;

/** Why a file of the checkout could not be read. */
export interface FileRefusal {
  readonly reason: CoverageSkipReason;
  readonly detail: string;
}

/** A file of the checkout that may be read: its real path inside the checkout, and its size and time. */
export interface LocatedFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

export type Located = ({ readonly ok: true } & LocatedFile) | ({ readonly ok: false } & FileRefusal);

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : 'error';
}

/**
 * The edge of a checkout: which files may be read from it. A file is read only where it really
 * is inside the checkout — a symbolic link (of the file or of a directory on its way) that leads
 * out is refused, whatever it points at, so no critic ever reads /etc/passwd through a link a
 * repository committed.
 */
export class CheckoutBoundary {
  readonly root: string;
  private realRootCache: string | null = null;

  constructor(
    dir: string,
    readonly maxFileBytes: number = DEFAULT_MAX_FILE_BYTES,
  ) {
    this.root = resolve(dir);
  }

  /** The checkout's own real path (its enclosing directories may be links; that is not the repository's doing). */
  get realRoot(): string {
    this.realRootCache ??= realpathSync.native(this.root);
    return this.realRootCache;
  }

  /** Where a repo-relative file really is, or why it cannot be read from this checkout (`anySize`: no size bound). */
  locate(file: string, options: { readonly anySize?: boolean } = {}): Located {
    if (
      file === '' ||
      isAbsolute(file) ||
      file.includes('\\') ||
      file.includes('\u0000') ||
      file.split('/').includes('..')
    ) {
      return { ok: false, reason: 'outside_checkout', detail: 'not a path inside the checkout' };
    }
    let real: string;
    try {
      real = realpathSync.native(join(this.root, file));
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR')
        return {
          ok: false,
          reason: 'missing',
          detail: 'not in the checkout at this commit (or a symbolic link to nothing)',
        };
      if (code === 'ELOOP') return { ok: false, reason: 'missing', detail: 'a loop of symbolic links' };
      return { ok: false, reason: 'unreadable', detail: code };
    }
    if (!within(this.realRoot, real))
      return {
        ok: false,
        reason: 'outside_checkout',
        detail: 'a symbolic link to a file outside the checkout, never read',
      };
    let stat;
    try {
      stat = statSync(real);
    } catch (error) {
      return { ok: false, reason: 'unreadable', detail: errorCode(error) };
    }
    if (!stat.isFile())
      return { ok: false, reason: 'missing', detail: 'not a regular file (a directory or a submodule)' };
    if (options.anySize !== true && stat.size > this.maxFileBytes) {
      return { ok: false, reason: 'too_large', detail: `${stat.size} bytes, over the ${this.maxFileBytes}-byte bound` };
    }
    return { ok: true, path: real, size: stat.size, mtimeMs: stat.mtimeMs };
  }

  /**
   * A file's size in bytes when it may be read from the checkout (whatever its size); null when it
   * cannot (outside the checkout, missing, not a regular file). Nothing outside the checkout is
   * measured either: a link's target says nothing about the repository.
   */
  sizeOf(file: string): number | null {
    const located = this.locate(file, { anySize: true });
    return located.ok ? located.size : null;
  }

  /**
   * For tools that read absolute paths themselves (the TypeScript compiler): whether a path may be
   * read. Paths outside the checkout (the compiler's own libraries) and installed dependencies
   * (node_modules: not the repository's files) pass; a path in the checkout whose real location
   * is outside it does not. Paths that do not exist pass (the tool finds nothing there).
   */
  allows(absolutePath: string): boolean {
    const path = resolve(absolutePath);
    if (!within(this.root, path) || path.split(sep).includes('node_modules')) return true;
    try {
      return within(this.realRoot, realpathSync.native(path));
    } catch {
      // Nothing there: the tool will not find it either.
      return true;
    }
  }
}

/** What happened when a critic asked for a file: read (or hashed), or refused with the reason. */
export type FileOutcome = { readonly ok: true } | ({ readonly ok: false } & FileRefusal);

/**
 * A reader of a checkout's repo-relative text files, inside its boundary, with a per-run memo.
 * It remembers what it read and what it refused, and why: that is what a critic's coverage report
 * is made of (see plumbing/coverage.ts), so critics read through it rather than from the disk.
 */
export class RepoReader {
  private readonly texts = new Map<string, string | null>();
  private readonly hashes = new Map<string, string | null>();
  private readonly outcomes = new Map<string, FileOutcome>();
  private readonly index: FileHashIndex | null;
  readonly boundary: CheckoutBoundary;

  constructor(
    readonly repoDir: string,
    options: { readonly index?: FileHashIndex | null; readonly maxFileBytes?: number } = {},
  ) {
    this.boundary = new CheckoutBoundary(repoDir, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
    this.index = options.index ?? null;
  }

  /** The file's text; null when it cannot be read (outside the checkout, missing, binary, too large). */
  read(file: string): string | null {
    if (this.texts.has(file)) return this.texts.get(file) ?? null;
    const located = this.boundary.locate(file);
    let text: string | null = null;
    if (!located.ok) {
      this.outcomes.set(file, located);
    } else {
      try {
        const raw = readFileSync(located.path, 'utf8');
        if (raw.includes('\u0000')) this.outcomes.set(file, { ok: false, reason: 'binary', detail: 'holds NUL bytes' });
        else text = raw;
      } catch (error) {
        this.outcomes.set(file, { ok: false, reason: 'unreadable', detail: errorCode(error) });
      }
      if (text !== null) this.outcomes.set(file, { ok: true });
    }
    this.texts.set(file, text);
    return text;
  }

  /**
   * A file a tool reads whole anyway (a lockfile npm reads), inside the boundary but past the size
   * bound; null when it cannot be read. Not memoised: such files are read once.
   */
  readWhole(file: string): string | null {
    const located = this.boundary.locate(file, { anySize: true });
    if (!located.ok) {
      this.outcomes.set(file, located);
      return null;
    }
    try {
      const text = readFileSync(located.path, 'utf8');
      this.outcomes.set(file, { ok: true });
      return text;
    } catch (error) {
      this.outcomes.set(file, { ok: false, reason: 'unreadable', detail: errorCode(error) });
      return null;
    }
  }

  /** The file's content hash (from the hash index when its size and time are unchanged); null when it cannot be read. */
  hash(file: string): string | null {
    if (this.hashes.has(file)) return this.hashes.get(file) ?? null;
    let located: Located | null = null;
    if (this.index !== null) {
      located = this.boundary.locate(file);
      const known = located.ok ? this.index.lookup(file, located.size, located.mtimeMs) : null;
      if (known !== null) {
        this.outcomes.set(file, { ok: true });
        this.hashes.set(file, known);
        return known;
      }
    }
    const text = this.read(file);
    const hash = text === null ? null : sha256(text);
    if (hash !== null && located?.ok === true) this.index?.record(file, located.size, located.mtimeMs, hash);
    this.hashes.set(file, hash);
    return hash;
  }

  /** What happened to a file this reader was asked for; undefined when it never was. */
  outcome(file: string): FileOutcome | undefined {
    return this.outcomes.get(file);
  }

  /** Saves the hash index (when the reader has one). */
  saveIndex(): void {
    this.index?.save();
  }
}
