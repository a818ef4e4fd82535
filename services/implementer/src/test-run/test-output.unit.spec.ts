import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { COMMAND_FAILED, countWarnings, diffTestResults, parseTestOutput } from './test-output.js';

const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('reading test runner output', () => {
  it('given node --test TAP output, then counts come from the summary and only failing leaves are named, with their suites', () => {
    const parsed = parseTestOutput(recorded('node-test-tap.txt'), { exitCode: 1, cwd: '/tmp/nt' });
    expect(parsed).toMatchObject({ runner: 'node_test', passed: 2, failed: 4, total: 7 });
    expect(parsed.failing).toEqual(['math > subtracts', 'math > nested > deep fail', 'top level fail', 'b.test.mjs']);
  });

  it('given node --test spec output, then the same suite reads the same', () => {
    const parsed = parseTestOutput(recorded('node-test-spec.txt'), { exitCode: 1, cwd: '/tmp/nt' });
    expect(parsed).toMatchObject({ runner: 'node_test', passed: 2, failed: 4, total: 7 });
    expect(parsed.failing).toEqual(['math > subtracts', 'math > nested > deep fail', 'top level fail', 'b.test.mjs']);
  });

  it('given jest output, then a suite that failed to run counts as one failing test', () => {
    const parsed = parseTestOutput(recorded('jest.txt'), { exitCode: 1 });
    expect(parsed).toMatchObject({ runner: 'jest', passed: 3, failed: 3, total: 7 });
    expect(parsed.failing).toEqual([
      'math > subtracts',
      'math > nested > deep fail',
      '__tests__/broken.test.js (suite failed to run)',
    ]);
  });

  it('given vitest output, then failing tests are named by file and suite path', () => {
    const parsed = parseTestOutput(recorded('vitest.txt'), { exitCode: 1 });
    expect(parsed).toMatchObject({ runner: 'vitest', passed: 2, failed: 3, total: 6 });
    expect(parsed.failing).toEqual([
      'test/broken.test.ts (suite failed to run)',
      'test/math.test.ts > math > subtracts',
      'test/math.test.ts > math > nested > deep fail',
    ]);
  });

  it('given mocha output, then multi-line failure titles are joined', () => {
    const parsed = parseTestOutput(recorded('mocha.txt'), { exitCode: 2 });
    expect(parsed).toMatchObject({ runner: 'mocha', passed: 2, failed: 2, total: 5 });
    expect(parsed.failing).toEqual(['math > subtracts', 'math > nested > deep fail']);
  });

  it('given a plain "N passed, N failed" closing line, then it is read whatever the runner', () => {
    expect(parseTestOutput('checking...\nresult: 5 passed, 0 failed, 1 skipped\n', { exitCode: 0 })).toMatchObject({
      runner: 'summary_line',
      passed: 5,
      failed: 0,
      total: 6,
      failing: [],
    });
  });

  it('given output no parser knows, then the exit code decides and a failure has a stable name', () => {
    expect(parseTestOutput('all good\n', { exitCode: 0 })).toMatchObject({
      runner: 'exit_code',
      passed: 1,
      failed: 0,
      total: 1,
      failing: [],
    });
    expect(parseTestOutput('Segmentation fault\n', { exitCode: 139 })).toMatchObject({
      runner: 'exit_code',
      passed: 0,
      failed: 1,
      total: 1,
      failing: [COMMAND_FAILED],
    });
  });

  it('given a runner summary with no failures but a non-zero exit, then the run still fails', () => {
    const output = '# tests 3\n# pass 3\n# fail 0\n';
    expect(parseTestOutput(output, { exitCode: 1 })).toMatchObject({
      passed: 3,
      failed: 1,
      total: 4,
      failing: [COMMAND_FAILED],
    });
  });

  it('given colour codes and CRLF line ends, then parsing is unaffected', () => {
    const output = '\u001b[32m# tests 1\u001b[39m\r\n# pass 1\r\n# fail 0\r\n';
    expect(parseTestOutput(output, { exitCode: 0 })).toMatchObject({ runner: 'node_test', passed: 1, total: 1 });
  });
});

describe('counting warnings', () => {
  it('counts node process warnings, compiler warnings and npm warnings once per line', () => {
    const output = [
      '(node:4242) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.',
      '(node:4242) ExperimentalWarning: VM Modules is an experimental feature',
      'src/a.c:3:5: warning: unused variable [-Wunused-variable]',
      'npm warn deprecated inflight@1.0.6: This module is not supported',
      'ok 1 - no warnings here',
    ].join('\n');
    expect(countWarnings(output)).toBe(4);
  });

  it("reads ESLint's summary instead of counting its warning lines twice", () => {
    const output = [
      '/repo/src/a.ts',
      '  3:7  warning  Unexpected any  @typescript-eslint/no-explicit-any',
      '  5:1  warning  Unused  no-unused-vars',
      '',
      '✖ 2 problems (0 errors, 2 warnings)',
    ].join('\n');
    expect(countWarnings(output)).toBe(2);
  });

  it('finds none in clean output', () => {
    expect(countWarnings(recorded('jest.txt'))).toBe(0);
  });
});

describe('comparing with the baseline', () => {
  it('reports tests failing now that did not fail at the baseline', () => {
    expect(
      diffTestResults(['known flaky', COMMAND_FAILED], { failing: ['known flaky', 'adds', COMMAND_FAILED] }),
    ).toEqual(['adds']);
    expect(diffTestResults([], { failing: [] })).toEqual([]);
  });
});
