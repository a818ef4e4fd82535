import ignore from 'ignore';
import picomatch from 'picomatch';

/**
 * Keeps the files matching the globs, where a glob starting with `!` takes files back out:
 * `['src/**', '!src/legacy.js']` is everything under src/ except legacy.js, and `['!**\/*.test.ts']`
 * alone is every file but the tests. No globs: every file.
 */
export function selectByGlobs(files: readonly string[], globs: readonly string[]): string[] {
  const positive = globs.filter((g) => !g.startsWith('!'));
  const negative = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  const include = positive.length === 0 ? null : picomatch(positive, { dot: true });
  const exclude = negative.length === 0 ? null : picomatch(negative, { dot: true });
  return files.filter((file) => (include === null || include(file)) && (exclude === null || !exclude(file)));
}

/** Why a file was left out of a review. */
export interface ExcludedFile {
  readonly file: string;
  /** `--exclude vendor/**`, `.rloop.yaml exclude vendor/**`, `.rloopignore`, `.rloop.yaml max_file_bytes (…)`. */
  readonly by: string;
}

/** One source of exclude globs, applied in order; `!glob` takes a file back in (the last match wins, as in .gitignore). */
export interface ExcludeGlobs {
  readonly globs: readonly string[];
  /** Named in ExcludedFile.by, e.g. `--exclude` or `.rloop.yaml exclude`. */
  readonly source: string;
}

export interface ExcludeOptions {
  readonly globs?: readonly ExcludeGlobs[];
  /** The text of a `.rloopignore` (gitignore syntax). */
  readonly ignoreText?: string | null;
  /** Files larger than this many bytes are left out. */
  readonly maxFileBytes?: number;
  /** Where maxFileBytes comes from, for ExcludedFile.by. */
  readonly maxFileBytesSource?: string;
  /** A file's size in bytes, or null when it cannot be read. */
  readonly sizeOf?: (file: string) => number | null;
}

function lastGlobMatch(file: string, sources: readonly ExcludeGlobs[]): string | null {
  let by: string | null = null;
  for (const source of sources) {
    for (const glob of source.globs) {
      const negated = glob.startsWith('!');
      if (!picomatch.isMatch(file, negated ? glob.slice(1) : glob, { dot: true })) continue;
      by = negated ? null : `${source.source} ${glob}`;
    }
  }
  return by;
}

/**
 * Splits files into those reviewed and those excluded, with why: exclude globs (the CLI's and the
 * repository's), the repository's `.rloopignore` (gitignore syntax) and a size bound. Pure but for
 * `sizeOf`.
 */
export function excludeFiles(
  files: readonly string[],
  options: ExcludeOptions,
): { readonly kept: string[]; readonly excluded: ExcludedFile[] } {
  const ignored =
    options.ignoreText === undefined || options.ignoreText === null
      ? null
      : ignore({ allowRelativePaths: true }).add(options.ignoreText);
  const kept: string[] = [];
  const excluded: ExcludedFile[] = [];
  for (const file of files) {
    const byGlob = lastGlobMatch(file, options.globs ?? []);
    if (byGlob !== null) {
      excluded.push({ file, by: byGlob });
      continue;
    }
    if (ignored?.ignores(file) === true) {
      excluded.push({ file, by: '.rloopignore' });
      continue;
    }
    if (options.maxFileBytes !== undefined && options.sizeOf !== undefined) {
      const size = options.sizeOf(file);
      if (size !== null && size > options.maxFileBytes) {
        excluded.push({
          file,
          by: `${options.maxFileBytesSource ?? 'max_file_bytes'} (${size} > ${options.maxFileBytes} bytes)`,
        });
        continue;
      }
    }
    kept.push(file);
  }
  return { kept, excluded };
}
