import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { RloopError } from '@rloop/contracts';
import { coverageGaps, describeSkip, escapeControlChars, maskSecretsDeep, renderLetterMarkdown } from '@rloop/domain';
import { BUILT_IN_CRITIC_IDS, type CriticDefinition, builtInCritics, letterToSarif, reviewRepositoryWithRuns } from '@rloop/critics';
import { CliError, type CommandRegistrar } from '../program.js';
import { parsePositiveInt } from './options.js';

/** Where the review command writes and what time it is (injected so tests can capture both). */
export interface ReviewIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly now: () => Date;
  /** Base of the default incremental cache (default: $XDG_CACHE_HOME or ~/.cache). */
  readonly cacheRoot: () => string;
}

export interface ReviewCommandOptions {
  readonly files?: string[];
  readonly base?: string;
  readonly json?: boolean;
  readonly sarif?: boolean;
  readonly md?: boolean;
  readonly critics?: string[];
  readonly skip?: string[];
  readonly cache?: boolean;
  readonly cacheDir?: string;
  readonly registry?: string;
  readonly advisories?: string;
  readonly allowBuildScripts?: boolean;
  readonly coverage?: string;
  readonly repoEslintConfig?: boolean;
  readonly maxFileBytes?: number;
}

const processIo: ReviewIo = {
  stdout: (text) => process.stdout.write(text),
  // Progress names files and quotes critics: shown with control characters escaped.
  stderr: (text) => process.stderr.write(escapeControlChars(text)),
  now: () => new Date(),
  cacheRoot: () => process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'),
};

/**
 * Runs `rloop review`: the deterministic critics over a directory, the letter on stdout (Markdown,
 * JSON or SARIF), progress on stderr. Exit code 1 when the letter has a critical finding, 2 when the
 * review could not be completed (bad path or ref, a critic that could not run, a file a critic
 * supports that it could not analyse), 0 when clean.
 */
export async function runReviewCommand(path: string, options: ReviewCommandOptions, io: ReviewIo, extraCritics: readonly CriticDefinition[] = []): Promise<void> {
  const formats = [options.json === true && 'json', options.sarif === true && 'sarif', options.md === true && 'md'].filter((f): f is string => f !== false);
  if (formats.length > 1) throw new CliError(`choose one output format, not ${formats.map((f) => `--${f}`).join(' and ')}`, 2);
  const format = formats[0] ?? 'md';
  const repoDir = resolve(path);
  const now = io.now();
  let critics: CriticDefinition[];
  try {
    critics = [
      ...builtInCritics({
        now,
        ...(options.registry === undefined ? {} : { registry: options.registry }),
        ...(options.advisories === undefined ? {} : { advisories: resolve(options.advisories) }),
        ...(options.repoEslintConfig === true ? { useRepoEslintConfig: true } : {}),
        ...(options.allowBuildScripts === true ? { allowBuildScripts: true } : {}),
        ...(options.coverage === undefined ? {} : { testCoverage: { kind: 'report' as const, path: resolve(options.coverage), testRoot: repoDir } }),
        ...(options.critics === undefined || options.critics.length === 0 ? {} : { only: options.critics.filter((id) => !extraCritics.some((c) => c.id === id)) }),
      }),
      ...extraCritics.filter((c) => options.critics === undefined || options.critics.length === 0 || options.critics.includes(c.id)),
    ].filter((c) => !(options.skip ?? []).includes(c.id));
    const unknown = (options.skip ?? []).filter((id) => !BUILT_IN_CRITIC_IDS.some((known) => known === id) && !extraCritics.some((c) => c.id === id));
    if (unknown.length > 0) throw new TypeError(`unknown critic ${unknown.join(', ')} in --skip`);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), 2);
  }
  const cacheDir =
    options.cache === false ? undefined : (options.cacheDir ?? join(io.cacheRoot(), 'rloop', 'review', createHash('sha256').update(repoDir).digest('hex').slice(0, 16)));
  let outcome;
  try {
    outcome = await reviewRepositoryWithRuns({
      repoDir,
      now,
      critics,
      onProgress: (line) => io.stderr(`${line}\n`),
      ...(options.files === undefined || options.files.length === 0 ? {} : { files: options.files }),
      ...(options.base === undefined ? {} : { base: options.base }),
      ...(cacheDir === undefined ? {} : { cacheDir }),
      ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
    });
  } catch (error) {
    if (error instanceof RloopError) throw new CliError(error.message, 2);
    throw error;
  }
  // Printed in any format: secrets in what critics quote are masked like everything rloop journals.
  const { failed } = outcome;
  const letter = maskSecretsDeep(outcome.letter);
  if (format === 'json') io.stdout(`${JSON.stringify(letter, null, 2)}\n`);
  else if (format === 'sarif') io.stdout(`${JSON.stringify(letterToSarif(letter), null, 2)}\n`);
  else io.stdout(renderLetterMarkdown(letter));
  io.stderr(`review: ${letter.counts.critical} critical, ${letter.counts.medium} medium, ${letter.counts.low} low\n`);
  if (letter.counts.critical > 0) throw new CliError(`${letter.counts.critical} critical finding(s)`, 1);
  if (failed.length > 0) {
    throw new CliError(`incomplete review: ${failed.map((r) => `${r.critic_id} (${r.status === 'failed' ? r.reason : ''})`).join(', ')} did not report`, 2);
  }
  const gaps = letter.critics.flatMap((c) => (c.coverage === undefined ? [] : coverageGaps(c.coverage).map((skip) => `${describeSkip(skip)} by ${c.critic_id}`)));
  if (gaps.length > 0) {
    throw new CliError(`incomplete review: not analysed: ${gaps.slice(0, 5).join('; ')}${gaps.length > 5 ? `; and ${gaps.length - 5} more` : ''} (--max-file-bytes accepts a size bound)`, 2);
  }
}

/** RLOOP_ADVISORIES, when set to something (an empty value means unset, as for the other variables). */
function advisoriesFromEnv(): string | undefined {
  const value = process.env['RLOOP_ADVISORIES'];
  return value === undefined || value === '' ? undefined : value;
}

/** The `review` command with its I/O and any extra critics (an LLM code reviewer, SARIF tools). */
export function reviewCommandWith(io: ReviewIo, extraCritics: readonly CriticDefinition[] = []): CommandRegistrar {
  return (program: Command): void => {
    program
      .command('review')
      .description('Review a directory with the deterministic critics and print the letter (exit 1 on a critical finding, 2 when the review could not complete)')
      .argument('<path>', 'directory to review (a git checkout or not)')
      .option('--files <glob...>', 'review only files matching these globs')
      .option('--base <ref>', 'keep only findings on lines changed since this git ref')
      .option('--json', 'print the letter as JSON')
      .option('--sarif', 'print the letter as SARIF 2.1.0 (GitHub code scanning)')
      .option('--md', 'print the letter as Markdown (the default)')
      .option('--critics <id...>', 'run only these critics')
      .option('--skip <id...>', 'do not run these critics (e.g. toolchain/dependency-audit when offline)')
      .option('--cache-dir <dir>', 'incremental analysis cache (default: ~/.cache/rloop/review/<hash of path>)')
      .option('--no-cache', 'do not read or write the incremental cache')
      .option('--registry <url>', 'npm registry for the dependency audit')
      .option('--advisories <path>', 'audit dependencies offline against this OSV export (a directory or all.zip; default: $RLOOP_ADVISORIES; `rloop advisories update` downloads one)', advisoriesFromEnv())
      .option('--coverage <path>', "what the tests ran: coverage-final.json (c8 --reporter=json, jest --coverage, vitest, nyc) or a NODE_V8_COVERAGE directory; reports changed lines the tests never run")
      .option('--allow-build-scripts', "let cargo run the crates' build scripts and proc macros for the Rust check (the repository's code: only for repositories you trust)")
      .option('--repo-eslint-config', "load the repository's own ESLint config (it runs the repository's code: only for repositories you trust)")
      .option('--max-file-bytes <n>', 'read files up to this size; larger ones are skipped and no longer make the review incomplete (default: 4 MiB, and a skipped file makes it incomplete)', parsePositiveInt)
      .action(async (path: string, options: ReviewCommandOptions) => {
        await runReviewCommand(path, options, io, extraCritics);
      });
  };
}

/** `rloop review <path> [--files <glob>…] [--base <ref>] [--json|--sarif|--md]`. */
export const registerReview: CommandRegistrar = reviewCommandWith(processIo);
