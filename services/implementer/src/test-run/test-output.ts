/** Which runner's output a result was read from; `exit_code` when none was recognised. */
export const TEST_RUNNERS = ['node_test', 'jest', 'vitest', 'mocha', 'summary_line', 'exit_code'] as const;
export type TestRunner = (typeof TEST_RUNNERS)[number];

export interface ParsedTestOutput {
  readonly runner: TestRunner;
  readonly passed: number;
  readonly failed: number;
  readonly total: number;
  /** Names of failing tests, suite path joined with ` > `, file paths relative to the run's directory. */
  readonly failing: readonly string[];
  /** Compiler, linter and runtime warnings found in the output (see countWarnings). */
  readonly warnings: number;
}

/**
 * The name recorded when a run failed without naming a failing test (a crash, a timeout, a runner
 * we cannot read). It is stable across runs, so a run that starts failing this way is a regression
 * and one that already failed this way at the baseline is not.
 */
export const COMMAND_FAILED = '(test command failed)';

export interface ParseOptions {
  readonly exitCode: number | null;
  /** The directory the command ran in: stripped from test names so they compare across runs. */
  readonly cwd?: string;
}

// eslint-disable-next-line no-control-regex -- ANSI colour codes begin with ESC; stripping them is the point
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function clean(output: string): string[] {
  return output.replace(ANSI, '').replace(/\r\n?/g, '\n').split('\n');
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

function relative(name: string, cwd: string | undefined): string {
  if (cwd === undefined) return name;
  const prefixes = [`${cwd.replace(/\/$/, '')}/`, `file://${cwd.replace(/\/$/, '')}/`];
  let result = name;
  for (const prefix of prefixes) result = result.split(prefix).join('');
  return result;
}

function int(text: string | undefined): number {
  return text === undefined ? 0 : Number.parseInt(text, 10);
}

interface Counts {
  readonly passed: number;
  readonly failed: number;
  readonly total: number;
  readonly failing: readonly string[];
}

// ── node --test ────────────────────────────────────────────────────────────────────────────────

/** TAP from `node --test` (the default reporter when stdout is not a terminal on Node 20). */
function parseNodeTap(lines: readonly string[]): Counts | null {
  const summary = (key: string): number | undefined => {
    const line = [...lines].reverse().find((l) => new RegExp(`^# ${key} \\d+$`).test(l));
    return line === undefined ? undefined : int(line.split(' ')[2]);
  };
  const tests = summary('tests');
  const pass = summary('pass');
  const fail = summary('fail');
  if (tests === undefined || pass === undefined || fail === undefined) return null;
  const stack: string[] = [];
  const failing: string[] = [];
  lines.forEach((line, index) => {
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest !== null) {
      const level = (subtest[1]?.length ?? 0) / 4;
      stack.length = level;
      stack[level] = subtest[2] ?? '';
      return;
    }
    const notOk = /^( *)not ok \d+ - (.*?)(?: # (SKIP|TODO).*)?$/.exec(line);
    // A failing TODO test is expected to fail: node does not count it either.
    if (notOk === null || notOk[3] === 'TODO') return;
    const indent = notOk[1]?.length ?? 0;
    // The YAML block under a result says whether it failed itself or only through its subtests.
    let parentOnly = false;
    for (let i = index + 1; i < lines.length; i += 1) {
      const next = lines[i] ?? '';
      if (next.trim() === '...' || (!next.startsWith(' '.repeat(indent + 2)) && next.trim() !== '')) break;
      if (/failureType: 'subtestsFailed'/.test(next)) parentOnly = true;
    }
    if (parentOnly) return;
    const level = indent / 4;
    const path = [...stack.slice(0, level), notOk[2] ?? ''];
    failing.push(path.join(' > '));
  });
  return { passed: pass, failed: fail, total: tests, failing };
}

/** The `spec` reporter of `node --test` (the default on a terminal, and everywhere from Node 22 on). */
function parseNodeSpec(lines: readonly string[]): Counts | null {
  const summary = (key: string): number | undefined => {
    const line = [...lines].reverse().find((l) => new RegExp(`^ℹ ${key} \\d+$`).test(l));
    return line === undefined ? undefined : int(line.split(' ')[2]);
  };
  const tests = summary('tests');
  const pass = summary('pass');
  const fail = summary('fail');
  if (tests === undefined || pass === undefined || fail === undefined) return null;
  const end = lines.findIndex((l) => /^✖ failing tests:$/.test(l));
  const body = end >= 0 ? lines.slice(0, end) : lines;
  const open: { indent: number; name: string }[] = [];
  const failing: string[] = [];
  for (const line of body) {
    const suite = /^( *)▶ (.*)$/.exec(line);
    if (suite !== null) {
      const indent = suite[1]?.length ?? 0;
      while (open.length > 0 && (open[open.length - 1]?.indent ?? 0) >= indent) open.pop();
      open.push({ indent, name: suite[2] ?? '' });
      continue;
    }
    const failed = /^( *)✖ (.*?) \([\d.]+m?s\)(?: # .*)?$/.exec(line);
    if (failed === null) continue;
    const indent = failed[1]?.length ?? 0;
    const name = failed[2] ?? '';
    const top = open[open.length - 1];
    if (top !== undefined && top.indent === indent && top.name === name) {
      // The closing line of a suite (or of a test with subtests): not a failure of its own.
      open.pop();
      continue;
    }
    while (open.length > 0 && (open[open.length - 1]?.indent ?? 0) >= indent) open.pop();
    failing.push([...open.map((o) => o.name), name].join(' > '));
  }
  return { passed: pass, failed: fail, total: tests, failing };
}

// ── jest ───────────────────────────────────────────────────────────────────────────────────────

function parseJest(lines: readonly string[]): Counts | null {
  const summary = [...lines].reverse().find((l) => /^Tests:\s+.*\d+ total$/.test(l));
  if (summary === undefined) return null;
  const count = (key: string): number => int(new RegExp(`(\\d+) ${key}`).exec(summary)?.[1]);
  const failing: string[] = [];
  let currentFile: string | null = null;
  let suiteFailures = 0;
  for (const line of lines) {
    const file = /^(?:FAIL|PASS) (.+?)(?: \([\d.]+ m?s\))?$/.exec(line);
    if (file !== null) {
      currentFile = file[1] ?? null;
      continue;
    }
    const bullet = /^ {2}● (.+)$/.exec(line);
    if (bullet === null) continue;
    const title = bullet[1] ?? '';
    if (title === 'Console') continue;
    if (title === 'Test suite failed to run') {
      // The file never ran: jest's counts leave it out, so it counts as one failure here.
      failing.push(`${currentFile ?? 'unknown file'} (suite failed to run)`);
      suiteFailures += 1;
    } else {
      failing.push(title.split(' › ').join(' > '));
    }
  }
  const names = unique(failing);
  return {
    passed: count('passed'),
    failed: count('failed') + suiteFailures,
    total: count('total') + suiteFailures,
    failing: names,
  };
}

// ── vitest ─────────────────────────────────────────────────────────────────────────────────────

function parseVitest(lines: readonly string[]): Counts | null {
  const summary = [...lines].reverse().find((l) => /^\s+Tests\s+.*\(\d+\)$/.test(l));
  if (summary === undefined) return null;
  const count = (key: string): number => int(new RegExp(`(\\d+) ${key}`).exec(summary)?.[1]);
  const total = int(/\((\d+)\)$/.exec(summary)?.[1]);
  const failing: string[] = [];
  let suiteFailures = 0;
  for (const line of lines) {
    const fail = /^ FAIL {2}(?:\|[^|]+\| )?(.+?)\s*$/.exec(line);
    if (fail === null) continue;
    const suite = /^(.+?) \[ .+ \]$/.exec(fail[1] ?? '');
    if (suite !== null) {
      failing.push(`${suite[1] ?? ''} (suite failed to run)`);
      suiteFailures += 1;
    } else {
      failing.push(fail[1] ?? '');
    }
  }
  const names = unique(failing);
  return {
    passed: count('passed'),
    failed: count('failed') + suiteFailures,
    total: total + suiteFailures,
    failing: names,
  };
}

// ── mocha ──────────────────────────────────────────────────────────────────────────────────────

function parseMocha(lines: readonly string[]): Counts | null {
  const passingLine = lines.find((l) => /^\s+\d+ passing \(/.test(l));
  if (passingLine === undefined) return null;
  const passed = int(/(\d+) passing/.exec(passingLine)?.[1]);
  const failed = int(lines.map((l) => /^\s+(\d+) failing$/.exec(l)?.[1]).find((v) => v !== undefined));
  const pending = int(lines.map((l) => /^\s+(\d+) pending$/.exec(l)?.[1]).find((v) => v !== undefined));
  const failing: string[] = [];
  const start = lines.findIndex((l) => /^\s+\d+ failing$/.test(l));
  if (start >= 0) {
    for (let i = start + 1; i < lines.length; i += 1) {
      const head = /^ {2}\d+\) (.*)$/.exec(lines[i] ?? '');
      if (head === null) continue;
      // The title continues on further-indented lines until one ends with a colon.
      const parts = [head[1] ?? ''];
      while (
        !(parts[parts.length - 1] ?? '').endsWith(':') &&
        i + 1 < lines.length &&
        /^ {5,}\S/.test(lines[i + 1] ?? '')
      ) {
        i += 1;
        parts.push((lines[i] ?? '').trim());
      }
      const last = parts.length - 1;
      parts[last] = (parts[last] ?? '').replace(/:$/, '');
      failing.push(parts.join(' > '));
    }
  }
  return { passed, failed, total: passed + failed + pending, failing: unique(failing) };
}

// ── any runner: a plain closing line ──────────────────────────────────────────────────────────

/** `N passed, N failed` alone on a line (optionally `, N skipped`, optionally one `word:` first). */
function parseSummaryLine(lines: readonly string[]): Counts | null {
  const line = [...lines].reverse().find((l) => /^\s*(?:\w+:\s*)?\d+ passed, \d+ failed(?:, \d+ skipped)?\s*$/.test(l));
  if (line === undefined) return null;
  const passed = int(/(\d+) passed/.exec(line)?.[1]);
  const failed = int(/(\d+) failed/.exec(line)?.[1]);
  const skipped = int(/(\d+) skipped/.exec(line)?.[1]);
  return { passed, failed, total: passed + failed + skipped, failing: [] };
}

// ── warnings ──────────────────────────────────────────────────────────────────────────────────

const WARNING_LINE = [
  // Node's process warnings: DeprecationWarning, ExperimentalWarning, MaxListenersExceededWarning, …
  /^\(node:\d+\) (?:\[[A-Z0-9_]+\] )?\w*Warning: /,
  // Compilers in the `file(line,col): warning CODE:` / `file:line:col: warning:` styles (tsc, gcc, clang, rustc).
  /(?:^|[\s:)])warning(?: [A-Z]+\d+)?: /,
  // npm's own warnings (deprecated packages, peer conflicts).
  /^npm warn(?:ing)? /i,
];

/**
 * Counts compiler, linter and runtime warnings in a command's output (spec Decision 8: every
 * warning counts). ESLint's stylish summary is read when present; otherwise each warning line
 * counts once.
 */
export function countWarnings(output: string): number {
  const lines = clean(output);
  const eslintSummaries = lines
    .map((l) => /^✖ \d+ problems? \(\d+ errors?, (\d+) warnings?\)/.exec(l)?.[1])
    .filter((v) => v !== undefined);
  const fromEslint = eslintSummaries.reduce((sum, v) => sum + int(v), 0);
  const eslintLine = /^\s+\d+:\d+\s+warning\s/;
  const other = lines.filter(
    (l) =>
      (eslintSummaries.length > 0 ? !eslintLine.test(l) : true) &&
      (eslintLine.test(l) || WARNING_LINE.some((p) => p.test(l))),
  ).length;
  return fromEslint + other;
}

/**
 * Reads a test command's output into counts and failing test names. Recognises node --test (TAP
 * and spec), jest, vitest, mocha and a plain `N passed, N failed` line; otherwise falls back to the
 * exit code (one "test": the command). A non-zero exit with no failing test named adds
 * COMMAND_FAILED, so a crash is never read as a pass.
 */
export function parseTestOutput(output: string, options: ParseOptions): ParsedTestOutput {
  const lines = clean(output);
  const parsers: readonly [TestRunner, (l: readonly string[]) => Counts | null][] = [
    ['node_test', parseNodeTap],
    ['node_test', parseNodeSpec],
    ['jest', parseJest],
    ['vitest', parseVitest],
    ['mocha', parseMocha],
    ['summary_line', parseSummaryLine],
  ];
  const warnings = countWarnings(output);
  for (const [runner, parse] of parsers) {
    const counts = parse(lines);
    if (counts === null) continue;
    const failing = unique(counts.failing.map((name) => relative(name, options.cwd)));
    if (options.exitCode !== 0 && failing.length === 0) {
      // The runner failed without naming a test (a crash after the summary, a reporter we read only partly).
      const extra = counts.failed > 0 ? 0 : 1;
      return {
        runner,
        passed: counts.passed,
        failed: counts.failed + extra,
        total: counts.total + extra,
        failing: [COMMAND_FAILED],
        warnings,
      };
    }
    return { runner, passed: counts.passed, failed: counts.failed, total: counts.total, failing, warnings };
  }
  return options.exitCode === 0
    ? { runner: 'exit_code', passed: 1, failed: 0, total: 1, failing: [], warnings }
    : { runner: 'exit_code', passed: 0, failed: 1, total: 1, failing: [COMMAND_FAILED], warnings };
}

/** Tests failing now that did not fail at the baseline: the regressions a change brought. */
export function diffTestResults(
  baselineFailing: readonly string[],
  now: { readonly failing: readonly string[] },
): string[] {
  const before = new Set(baselineFailing);
  return now.failing.filter((name) => !before.has(name));
}
