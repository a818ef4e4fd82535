import { readFileSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { type RecordedCoverage, RloopError, describeError } from '@rloop/contracts';

// What a test run executed, per source file, read from the reports test runners write: istanbul's
// coverage-final.json (c8 --reporter=json, jest --coverage, vitest, nyc: statements already mapped
// back to the sources) or V8's raw coverage (the directory NODE_V8_COVERAGE names: byte ranges
// with counts per script, turned into lines against the source text).

/** A coverage report that cannot be read. */
export class CoverageReportError extends RloopError {
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super('COVERAGE.REPORT_UNREADABLE', message, options);
  }
}

/** One file's lines as the test run saw them. */
export interface FileLineCoverage {
  /** Lines holding code the run could have executed. */
  readonly executable: readonly number[];
  /** Those it did not execute. */
  readonly uncovered: readonly number[];
}

/** A coverage report: for each repo-relative file the tests loaded, its lines; files absent were never loaded. */
export interface TestCoverage {
  readonly source: string;
  readonly format: 'istanbul' | 'v8';
  readonly files: ReadonlyMap<string, FileLineCoverage>;
}

const Position = z.looseObject({ line: z.number() });
const IstanbulFile = z.looseObject({
  path: z.string().optional(),
  statementMap: z.record(z.string(), z.looseObject({ start: Position, end: Position })),
  s: z.record(z.string(), z.number()),
});
const IstanbulReport = z.record(z.string(), IstanbulFile);

const V8Report = z.looseObject({
  result: z.array(
    z.looseObject({
      url: z.string(),
      functions: z.array(
        z.looseObject({
          ranges: z.array(z.looseObject({ startOffset: z.number(), endOffset: z.number(), count: z.number() })),
        }),
      ),
    }),
  ),
});
export type V8ScriptCoverage = z.infer<typeof V8Report>['result'][number];

/** A reported path as a repo-relative one, or null when it is not inside the repository (node_modules excluded). */
function inRepo(path: string, roots: readonly string[]): string | null {
  const absolute = path.startsWith('file://') ? fileURLToPath(path) : path;
  if (!isAbsolute(absolute)) return absolute.split(sep).join('/').replace(/^\.\//, '');
  for (const root of roots) {
    const rel = relative(root, absolute);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) {
      const file = rel.split(sep).join('/');
      return file.split('/').includes('node_modules') ? null : file;
    }
  }
  return null;
}

/** Istanbul statements → lines: a line is executable when a statement starts on it, covered when one of those ran. */
export function istanbulLines(report: unknown, roots: readonly string[]): Map<string, FileLineCoverage> {
  const parsed = IstanbulReport.safeParse(report);
  if (!parsed.success)
    throw new CoverageReportError(
      `not an istanbul coverage report (coverage-final.json): ${parsed.error.issues[0]?.message ?? ''}`,
    );
  const files = new Map<string, FileLineCoverage>();
  for (const [key, entry] of Object.entries(parsed.data)) {
    const file = inRepo(entry.path ?? key, roots);
    if (file === null) continue;
    const hits = new Map<number, number>();
    for (const [id, range] of Object.entries(entry.statementMap)) {
      const line = range.start.line;
      hits.set(line, Math.max(hits.get(line) ?? 0, entry.s[id] ?? 0));
    }
    const executable = [...hits.keys()].sort((a, b) => a - b);
    files.set(file, { executable, uncovered: executable.filter((line) => hits.get(line) === 0) });
  }
  return files;
}

/** Lines that hold code (a token that is not a comment), 1-based. */
export function codeLines(file: string, text: string): number[] {
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    true,
    /\.[jt]sx$/.test(file) ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard,
    text,
  );
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const lines = new Set<number>();
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    // Closing braces and semicolons alone on a line are not statements anyone could test.
    if (
      kind === ts.SyntaxKind.CloseBraceToken ||
      kind === ts.SyntaxKind.SemicolonToken ||
      kind === ts.SyntaxKind.CloseParenToken ||
      kind === ts.SyntaxKind.CloseBracketToken ||
      kind === ts.SyntaxKind.CommaToken
    )
      continue;
    lines.add(source.getLineAndCharacterOfPosition(scanner.getTokenStart()).line + 1);
  }
  return [...lines].sort((a, b) => a - b);
}

/**
 * V8 block coverage of one script → lines: each code line takes the count of the innermost range
 * that holds its first code character (V8 lists a function's own range, then the blocks inside it
 * whose count differs). Offsets are UTF-16 positions in the source as it ran.
 */
export function v8Lines(file: string, text: string, script: V8ScriptCoverage): FileLineCoverage {
  const ranges = script.functions.flatMap((fn) => fn.ranges);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const starts = source.getLineStarts();
  const executable = codeLines(file, text);
  const uncovered: number[] = [];
  for (const line of executable) {
    const lineStart = starts[line - 1] ?? 0;
    const offset = lineStart + (/^\s*/.exec(text.slice(lineStart, starts[line] ?? text.length))?.[0].length ?? 0);
    let best: { size: number; count: number } | null = null;
    for (const range of ranges) {
      if (range.startOffset > offset || offset >= range.endOffset) continue;
      const size = range.endOffset - range.startOffset;
      if (best === null || size <= best.size) best = { size, count: range.count };
    }
    if (best !== null && best.count === 0) uncovered.push(line);
  }
  return { executable, uncovered };
}

/** Reads a report: a coverage-final.json, or a NODE_V8_COVERAGE directory (`readSource` gives the files' text for V8's offsets). */
export function readCoverageReport(
  path: string,
  roots: readonly string[],
  readSource: (file: string) => string | null,
): TestCoverage {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    throw new CoverageReportError(`the coverage report ${path} does not exist (${describeError(error)})`, {
      cause: error,
    });
  }
  const parse = (file: string): unknown => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new CoverageReportError(`${file} is not JSON: ${describeError(error)}`, { cause: error });
    }
  };
  if (stat.isFile()) {
    const body = parse(path);
    if (V8Report.safeParse(body).success)
      return { source: path, format: 'v8', files: v8Files([body], roots, readSource) };
    return { source: path, format: 'istanbul', files: istanbulLines(body, roots) };
  }
  const jsons = readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name));
  if (jsons.includes(join(path, 'coverage-final.json')))
    return { source: path, format: 'istanbul', files: istanbulLines(parse(join(path, 'coverage-final.json')), roots) };
  const bodies = jsons.map(parse).filter((body) => V8Report.safeParse(body).success);
  if (bodies.length === 0)
    throw new CoverageReportError(
      `${path} holds neither coverage-final.json nor V8 coverage files (coverage-*.json from NODE_V8_COVERAGE)`,
    );
  return { source: path, format: 'v8', files: v8Files(bodies, roots, readSource) };
}

/** Several processes' V8 coverage (one file each): a line is covered when any process ran it. */
function v8Files(
  bodies: readonly unknown[],
  roots: readonly string[],
  readSource: (file: string) => string | null,
): Map<string, FileLineCoverage> {
  const merged = new Map<string, { executable: readonly number[]; uncovered: Set<number> }>();
  for (const body of bodies) {
    for (const script of V8Report.parse(body).result) {
      if (!script.url.startsWith('file://')) continue;
      const file = inRepo(script.url, roots);
      if (file === null) continue;
      const text = readSource(file);
      if (text === null) continue;
      const lines = v8Lines(file, text, script);
      const known = merged.get(file);
      if (known === undefined) merged.set(file, { executable: lines.executable, uncovered: new Set(lines.uncovered) });
      else for (const line of [...known.uncovered]) if (!lines.uncovered.includes(line)) known.uncovered.delete(line);
    }
  }
  return new Map(
    [...merged].map(([file, lines]) => [
      file,
      { executable: lines.executable, uncovered: [...lines.uncovered].sort((a, b) => a - b) },
    ]),
  );
}

/**
 * Coverage the implementer recorded with the plan's test run (V8, as ranges of lines never run) as
 * a TestCoverage: the code lines of each file are counted again from its text at the same commit,
 * as v8Lines counted them when it was recorded.
 */
export function fromRecorded(
  recorded: RecordedCoverage,
  source: string,
  read: (file: string) => string | null,
): TestCoverage {
  const files = new Map<string, FileLineCoverage>();
  for (const entry of recorded.files) {
    const uncovered = entry.uncovered.flatMap(({ start, end }) =>
      Array.from({ length: end - start + 1 }, (_, i) => start + i),
    );
    const text = read(entry.file);
    files.set(entry.file, { executable: text === null ? uncovered : codeLines(entry.file, text), uncovered });
  }
  return { source, format: recorded.format, files };
}

/** Consecutive line numbers as ranges: [3, 4, 5, 9] → [[3, 5], [9, 9]]. */
export function lineRanges(lines: readonly number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const line of lines) {
    const last = ranges.at(-1);
    if (last !== undefined && line === last[1] + 1) last[1] = line;
    else ranges.push([line, line]);
  }
  return ranges;
}

/** The checkout roots a report's absolute paths are matched against: the directory the tests ran in, and the checkout. */
export function reportRoots(...dirs: readonly string[]): string[] {
  return [...new Set(dirs.map((d) => resolve(d)))];
}

/** Test files are what covers, not what is covered. */
export function isTestFile(file: string): boolean {
  return (
    /(^|\/)(__tests__|__mocks__|test|tests|spec|e2e)\//.test(file) ||
    /\.(test|spec|e2e)\.[cm]?[jt]sx?$/.test(file) ||
    posix.basename(file).startsWith('test-')
  );
}
