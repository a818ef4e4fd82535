import { posix } from 'node:path';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { CriticNotRunnableError } from '../errors.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { measureFunctions } from '../quality/complexity-metrics.js';
import { checkoutRoots } from '../toolchains/family.js';
import type { RecordedCoverage } from '@rloop/contracts';
import {
  CoverageReportError,
  type TestCoverage,
  fromRecorded,
  isTestFile,
  lineRanges,
  readCoverageReport,
  reportRoots,
} from './report.js';

/** Where the critic gets what the tests executed. */
export type CoverageSource =
  /** A report on disk (`rloop review --coverage <file|dir>`); `testRoot` is where the tests ran (default: the reviewed directory). */
  | { readonly kind: 'report'; readonly path: string; readonly testRoot?: string }
  /** What the implementer recorded with the plan's test run at the reviewed commit (the fleet), null when it recorded none. */
  | { readonly kind: 'recorded'; readonly coverage: (context: CriticContext) => Promise<RecordedCoverage | null> };

export interface TestCoverageCriticOptions {
  readonly timeoutMs?: number;
  /** No source: the critic is not configured (nothing says what the tests ran). */
  readonly source?: CoverageSource;
}

/** Source files whose coverage matters: TypeScript and JavaScript that are not tests themselves nor declarations. */
export function isCoverable(file: string): boolean {
  return /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/.test(file) && !/\.d\.[mc]?ts$/.test(file) && !isTestFile(file);
}

function describeRanges(ranges: readonly (readonly [number, number])[]): string {
  const parts = ranges.slice(0, 12).map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
  return `${parts.join(', ')}${ranges.length > 12 ? ` and ${ranges.length - 12} more` : ''}`;
}

/**
 * The findings for one file: one per function holding lines the tests never ran (its uncovered
 * ranges in the text), one for such lines outside any function, one for a file no test loaded.
 */
export function uncoveredDrafts(
  file: string,
  text: string,
  lines: { readonly executable: readonly number[]; readonly uncovered: readonly number[] } | null,
  source: string,
): FindingDraft[] {
  const last = Math.max(1, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  const common = {
    severity: 'medium' as const,
    category: 'correctness' as const,
    forbidden_in_test: [
      'a test that only imports the module or calls the function without checking what it returns or does',
      'excluding the file or lines from coverage',
    ],
  };
  if (lines === null) {
    return [
      draftFinding({
        ...common,
        score: 6,
        finding_type: 'coverage/file-not-loaded',
        file,
        line_range: { start: 1, end: last },
        title: `${file} is never loaded by the tests`,
        current_behaviour: `No test of the run that wrote ${source} loads ${file}: none of its code is exercised.`,
        expected_behaviour: `Tests load ${file} and check what its exported functions do.`,
        observable_test_conditions: [
          `the coverage report of the plan's test command lists ${file}`,
          `a test fails when the behaviour of ${file} changes`,
        ],
      }),
    ];
  }
  if (lines.uncovered.length === 0) return [];
  const uncovered = new Set(lines.uncovered);
  const functions = measureFunctions(file, text);
  const drafts: FindingDraft[] = [];
  const claimed = new Set<number>();
  // Innermost functions first, so a line belongs to the function that holds it most closely.
  for (const fn of [...functions].sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))) {
    const mine = [...uncovered]
      .filter((line) => line >= fn.startLine && line <= fn.endLine && !claimed.has(line))
      .sort((a, b) => a - b);
    if (mine.length === 0) continue;
    for (const line of mine) claimed.add(line);
    const executable = lines.executable.filter((line) => line >= fn.startLine && line <= fn.endLine).length;
    const ranges = lineRanges(mine);
    // Never run: every line of its body (its signature line belongs to the code that defines it).
    const body = lines.executable.filter((line) => line > fn.startLine && line <= fn.endLine);
    const never = body.length > 0 && body.every((line) => uncovered.has(line));
    drafts.push(
      draftFinding({
        ...common,
        score: never ? 6 : 5,
        finding_type: never ? 'coverage/function-not-run' : 'coverage/lines-not-run',
        file,
        line_range: { start: fn.startLine, end: fn.endLine },
        title: never
          ? `${fn.name} is never run by the tests`
          : `${fn.name}: lines ${describeRanges(ranges)} are never run by the tests`,
        current_behaviour: `The tests run ${Math.max(0, executable - mine.length)} of ${executable} lines of ${fn.name} (${file}:${fn.startLine}-${fn.endLine}); never run: lines ${describeRanges(ranges)}.`,
        expected_behaviour: `A test runs lines ${describeRanges(ranges)} of ${fn.name} and checks their effect.`,
        observable_test_conditions: [
          `the plan's test command, with coverage, runs lines ${describeRanges(ranges)} of ${file}`,
          `a test fails when the behaviour of those lines changes`,
        ],
      }),
    );
  }
  const loose = [...uncovered].filter((line) => !claimed.has(line)).sort((a, b) => a - b);
  if (loose.length > 0) {
    const ranges = lineRanges(loose);
    drafts.push(
      draftFinding({
        ...common,
        score: 4,
        finding_type: 'coverage/lines-not-run',
        file,
        line_range: { start: loose[0] ?? 1, end: loose.at(-1) ?? 1 },
        title: `${file}: lines ${describeRanges(ranges)} are never run by the tests`,
        current_behaviour: `Module-level lines ${describeRanges(ranges)} of ${file} are never run by the tests.`,
        expected_behaviour: `A test runs lines ${describeRanges(ranges)} of ${file} and checks their effect.`,
        observable_test_conditions: [
          `the plan's test command, with coverage, runs lines ${describeRanges(ranges)} of ${file}`,
        ],
      }),
    );
  }
  return drafts;
}

/**
 * `quality/test-coverage`: the lines of the changed files the tests never run, from a coverage
 * report of the plan's test command — reported as medium with the uncovered ranges, per function.
 * It never runs the tests itself (that is the implementer's, under the operator's allowlist): it
 * reads what a run recorded, and is not configured without one.
 */
export function testCoverageCritic(options: TestCoverageCriticOptions = {}): CriticDefinition {
  const source = options.source;
  return defineCritic({
    id: 'quality/test-coverage',
    evidence: 'coverage',
    description:
      "Lines of the changed TypeScript/JavaScript files that the tests never run, from the coverage the plan's test run recorded (V8 or istanbul); medium, with the uncovered ranges",
    triggers: ['**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}'],
    timeoutMs: options.timeoutMs ?? 60_000,
    covers: isCoverable,
    notConfiguredReason: () =>
      source === undefined
        ? "no coverage report: the plan's test run recorded none (rloop review --coverage <coverage-final.json | NODE_V8_COVERAGE dir>)"
        : null,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      if (source === undefined) throw new CriticNotRunnableError('no coverage report');
      let coverage: TestCoverage | null;
      let truncated = false;
      if (source.kind === 'report') {
        try {
          coverage = readCoverageReport(
            source.path,
            reportRoots(source.testRoot ?? context.repoDir, ...checkoutRoots(context)),
            (file) => context.reader.read(file),
          );
        } catch (error) {
          if (error instanceof CoverageReportError) throw new CriticNotRunnableError(error.message, { cause: error });
          throw error;
        }
      } else {
        const recorded = await source.coverage(context);
        coverage =
          recorded === null
            ? null
            : fromRecorded(recorded, `the test run of ${context.commit.slice(0, 12)}`, (file) =>
                context.reader.read(file),
              );
        truncated = recorded?.truncated === true;
        if (truncated)
          context.note?.(
            'the recorded coverage was cut to its size bound: a file it does not list is not reported as never loaded',
          );
      }
      if (coverage === null)
        throw new CriticNotRunnableError(
          `no coverage was recorded for commit ${context.commit.slice(0, 12)}: the plan's test command wrote none (it runs Node.js with NODE_V8_COVERAGE, or writes coverage/coverage-final.json)`,
        );
      const known = [...coverage.files.keys()];
      const drafts: FindingDraft[] = [];
      let measured = 0;
      for (const file of context.files) {
        if (!isCoverable(file)) continue;
        const text = context.reader.read(file);
        if (text === null) continue;
        const lines = coverage.files.get(file) ?? null;
        // A report that holds no file of this kind (a TypeScript project whose tests ran compiled
        // JavaScript) cannot say the file was never loaded: not of a kind it can speak to.
        if (lines === null && (truncated || !known.some((k) => posix.extname(k) === posix.extname(file)))) {
          context.coverage.unsupported(file);
          continue;
        }
        measured += 1;
        drafts.push(...uncoveredDrafts(file, text, lines, coverage.source));
      }
      context.note?.(
        `coverage from ${coverage.source} (${coverage.format}, ${known.length} file(s)); ${measured} reviewed file(s) measured`,
      );
      return drafts;
    },
  });
}
