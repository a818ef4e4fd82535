import { runCommand } from './commands.js';

export interface TestRunRequest {
  readonly worktreeDir: string;
  /** Run only these test files (repo-relative); the whole suite when absent. */
  readonly testFiles?: readonly string[];
  readonly signal?: AbortSignal;
}

export interface TestRunResult {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** Test names (nested names joined with " > "). */
  readonly passed: readonly string[];
  readonly failed: readonly string[];
  readonly skipped: readonly string[];
  /** Redacted, capped output for people and for the model. */
  readonly output: string;
  readonly durationMs: number;
}

/** Runs tests in a worktree. Injected everywhere, so the lead can wire a runner per toolchain. */
export type TestRunner = (request: TestRunRequest) => Promise<TestRunResult>;

/** Whether a run counts as passing: exit 0, no timeout, no failed test. */
export function runPassed(result: TestRunResult): boolean {
  return result.exitCode === 0 && !result.timedOut && result.failed.length === 0;
}

export interface ParsedTests {
  readonly passed: string[];
  readonly failed: string[];
  readonly skipped: string[];
}

/**
 * Reads TAP 13 as `node --test --test-reporter=tap` (and most TAP producers) print it: nested
 * subtests are indented, each announced by `# Subtest: name`. Only leaves are reported (a suite
 * fails because a leaf failed). Pure.
 */
export function parseTapOutput(text: string): ParsedTests {
  const result: ParsedTests = { passed: [], failed: [], skipped: [] };
  const stack: { indent: number; name: string; hasChildren: boolean }[] = [];
  for (const line of text.split(/\r?\n/)) {
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest !== null) {
      const indent = subtest[1]?.length ?? 0;
      for (const open of stack) if (open.indent < indent) open.hasChildren = true;
      stack.push({ indent, name: subtest[2] ?? '', hasChildren: false });
      continue;
    }
    const point = /^( *)(not ok|ok) \d+(?: - (.*?))?(?: # (SKIP|TODO)\b.*)?$/i.exec(line);
    if (point === null) continue;
    const indent = point[1]?.length ?? 0;
    const name = (point[3] ?? '').replace(/\\#/g, '#');
    let hasChildren = false;
    while (stack.length > 0 && (stack[stack.length - 1]?.indent ?? -1) >= indent) {
      const open = stack.pop();
      if (open !== undefined && open.indent === indent) {
        hasChildren = open.hasChildren;
        break;
      }
    }
    if (hasChildren) continue;
    const path = [...stack.filter((s) => s.indent < indent).map((s) => s.name), name].join(' > ');
    const directive = point[4]?.toUpperCase();
    if (directive === 'SKIP' || directive === 'TODO') result.skipped.push(path);
    else if (point[2]?.toLowerCase() === 'ok') result.passed.push(path);
    else result.failed.push(path);
  }
  return result;
}

export interface CommandTestRunnerOptions {
  /** The plan's test command, e.g. `node --test --test-reporter=tap`. */
  readonly command: string;
  readonly timeoutMs: number;
  /** Environment for the tests (see RunCommandOptions.env: secrets are removed, nothing inherited). */
  readonly env?: Readonly<Record<string, string>>;
  /** Reads the output; default TAP. */
  readonly parse?: (stdout: string, stderr: string) => ParsedTests;
  /** Arguments that select test files; default: the paths themselves, appended. */
  readonly fileArgs?: (files: readonly string[]) => readonly string[];
}

/** A TestRunner that runs the plan's test command in the worktree (no shell for plain commands). */
export function createCommandTestRunner(options: CommandTestRunnerOptions): TestRunner {
  const parse = options.parse ?? ((stdout: string) => parseTapOutput(stdout));
  return async (request) => {
    const files = request.testFiles ?? [];
    const result = await runCommand(options.command, {
      cwd: request.worktreeDir,
      timeoutMs: options.timeoutMs,
      ...(options.env === undefined ? {} : { env: options.env }),
      extraArgs: files.length === 0 ? [] : (options.fileArgs ?? ((f: readonly string[]) => f))(files),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    const parsed = parse(result.stdout, result.stderr);
    return {
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      passed: parsed.passed,
      failed: parsed.failed,
      skipped: parsed.skipped,
      output: `${result.stdout}${result.stderr === '' ? '' : `\n${result.stderr}`}`,
      durationMs: result.durationMs,
    };
  };
}
