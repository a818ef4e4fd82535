// Helpers for the implementer's tests: real git repositories in temp dirs, letters built from real
// ESLint and tsc output, and a minimal environment for the commands the tests run.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { type Finding, Letter } from '@rloop/contracts';
import { fingerprintOf } from '@rloop/domain';
// eslint-disable-next-line @nx/enforce-module-boundaries -- examples/ is no project: its sample-repo.mjs is shared by these tests and the CLI demo on purpose
import { createSampleRepo, type SampleRepo, type SampleVariant } from '../../../../examples/sample-repo.mjs';
import { DEFAULT_ESLINT_CONFIG } from '../strategies/autofix.js';

export { type SampleRepo, type SampleVariant };

/** A temp dir that `cleanup` removes (restoring write bits first, for read-only checkouts). */
export interface TempDir {
  readonly path: string;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `rloop-impl-${prefix}-`));
  return {
    path,
    async cleanup() {
      execFileSync('chmod', ['-R', 'u+w', path]);
      // Retried: a test process a strategy started may still be exiting and writing under the home.
      await rm(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

export function sampleRepo(root: string, variant: SampleVariant, name: string = variant): Promise<SampleRepo> {
  return createSampleRepo(join(root, name), variant);
}

/** Runs git in a directory for assertions and test setup (identity via env, never global config). */
export function gitOut(dir: string, args: readonly string[], input?: string): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    input,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/root',
      LC_ALL: 'C',
      GIT_AUTHOR_NAME: 'User',
      GIT_AUTHOR_EMAIL: 'user@example.com',
      GIT_COMMITTER_NAME: 'User',
      GIT_COMMITTER_EMAIL: 'user@example.com',
    },
  }).trim();
}

/**
 * The environment the tests' commands run with: enough to find node and git, and none of jest's
 * own settings (NODE_OPTIONS with --experimental-vm-modules would print warnings in every child).
 */
/**
 * The operator's allowlist in these specs: the samples' test command, `echo …`, and the scripts
 * specs write into their temp directories (`sh /tmp/…/<name>.sh`).
 */
export const TEST_COMMANDS = { allow: ['node --test', '/echo [a-z ]+/', '/sh \\/\\S+\\.sh/'] } as const;

export function commandEnv(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LANG: 'C.UTF-8' };
}

const CRITIC = 'toolchain/compiler-linter';

function finding(
  partial: Pick<Finding, 'id' | 'finding_type' | 'file' | 'line_range' | 'title'> & { fixable: boolean },
): Finding {
  return {
    ...partial,
    fingerprint: fingerprintOf({
      critic_id: CRITIC,
      file: partial.file,
      line_range: partial.line_range,
      finding_type: partial.finding_type,
    }),
    severity: 'critical',
    score: 8,
    category: 'maintainability',
    current_behaviour: partial.title,
    expected_behaviour: 'the toolchain reports nothing here',
    observable_test_conditions: ['the linter and compiler report nothing for this line'],
    forbidden_in_test: ['disabling the rule'],
    raised_by: CRITIC,
    related_findings: [],
    related_locations: [],
  };
}

/** A finding on one line of a file, for tests that only need the letter to point somewhere. */
export function findingAt(file: string, line: number, findingType = 'eslint/prefer-const'): Finding {
  return finding({
    id: `${findingType}-${file}-${line}`,
    finding_type: findingType,
    file,
    line_range: { start: line, end: line },
    title: `${findingType} at ${file}:${line}`,
    fixable: true,
  });
}

/** ESLint findings (default config) for the lintable files of a checkout, as a critic would report them. */
export async function eslintFindings(dir: string): Promise<Finding[]> {
  const eslint = new ESLint({ cwd: dir, overrideConfigFile: true, overrideConfig: DEFAULT_ESLINT_CONFIG });
  const results = await eslint.lintFiles(['src']);
  return results.flatMap((result) =>
    result.messages.map((m, index) =>
      finding({
        id: `eslint-${relative(dir, result.filePath).replace(/[^A-Za-z0-9]+/g, '-')}-${m.line}-${index}`,
        finding_type: `eslint/${m.ruleId ?? 'parse-error'}`,
        file: relative(dir, result.filePath),
        line_range: { start: m.line, end: m.endLine ?? m.line },
        title: m.message,
        fixable: m.fix !== undefined,
      }),
    ),
  );
}

/** tsc diagnostics of a checkout (its own tsconfig.json) as findings. */
export function tscFindings(dir: string): Finding[] {
  const configPath = join(dir, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  return ts.getPreEmitDiagnostics(program).flatMap((d, index) => {
    if (d.file === undefined || d.start === undefined) return [];
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const file = relative(dir, d.file.fileName);
    return [
      finding({
        id: `tsc-${d.code}-${index}`,
        finding_type: `tsc/TS${d.code}`,
        file,
        line_range: { start: line, end: line },
        title: ts.flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 300),
        fixable: false,
      }),
    ];
  });
}

export const LETTER_ID = '01JLETTER0000000000000000A';
export const RUN_ID = '01JRUN00000000000000000000';

/** A valid letter for a plan with the given findings. */
export function letterFor(
  plan: string,
  commit: string,
  findings: readonly Finding[],
  overrides: { letter_id?: string; round?: number } = {},
): Letter {
  const critical = findings.filter((f) => f.severity === 'critical').length;
  return Letter.parse({
    letter_id: overrides.letter_id ?? LETTER_ID,
    plan,
    run_id: RUN_ID,
    round: overrides.round ?? 1,
    phase: 'critical',
    k: null,
    commit,
    mode: 'loop',
    created_at: '2026-11-30T10:00:00.000Z',
    critics: [
      {
        critic_id: CRITIC,
        core: true,
        outcome: 'reported',
        findings_total: findings.length,
        findings_kept: findings.length,
      },
    ],
    findings,
    counts: { critical, medium: 0, low: findings.length - critical },
    complete: true,
    disagreements: [],
    summary: `${findings.length} finding(s) from the toolchain`,
  });
}
