import { type Command, Option } from 'commander';
import { CliError, type CommandRegistrar } from '../program.js';
import { FAIL_ON, type FailOn, REPORT_FORMATS, type ReportFormat } from '../format/report.js';
import type { ReviewIo, ReviewRequest } from '../review/run-review.js';

/** The exit codes of `rloop review`, for CI (also in `rloop review --help` and the README). */
export const REVIEW_EXIT_CODES = { clean: 0, findings: 1, usage: 2, incomplete: 3 } as const;

export const REVIEW_EXIT_HELP = `
Exit codes:
  0  clean: nothing at or above --fail-on, and not more than --max-findings
  1  findings at or above --fail-on (default critical), or more than --max-findings
  2  usage error: a bad option, path, ref, configuration or baseline; nothing was reviewed
  3  the review could not run completely: a check failed or timed out, or a file under review could
     not be analysed (too large, unreadable, not parseable); what was found is printed

Configuration: .rloop.yaml at the repository root (or --config) — critics on/off, rules (severity
or off), exclude, max_file_bytes, llm.model; schema in schemas/rloop-config.schema.json.
.rloopignore (gitignore syntax) lists files never reviewed. An excluded file is counted as
excluded, never as unanalysed; a file under review over the size bound (4 MiB unless
--max-file-bytes or max_file_bytes sets it) is not analysed and makes the review incomplete.
To accept one finding, write
  rloop-ignore <rule-or-critic> -- <reason>      (optionally until=YYYY-MM-DD)
in a comment on its line or the line before. The LLM review runs when ANTHROPIC_API_KEY is set.
The repository's own ESLint config is code: it is loaded only with --repo-eslint-config, and
cargo runs a crate's build scripts and proc macros only with --allow-build-scripts. Dependencies
are audited offline against an OSV export with --advisories or RLOOP_ADVISORIES. Secrets in what
the checks quote are masked in every format.`;

interface RawOptions {
  readonly files?: string[];
  readonly exclude?: string[];
  readonly base?: string;
  readonly format?: string;
  readonly json?: boolean;
  readonly sarif?: boolean;
  readonly md?: boolean;
  readonly output?: string;
  readonly stylishOutput?: string;
  readonly jsonOutput?: string;
  readonly sarifOutput?: string;
  readonly mdOutput?: string;
  readonly githubOutput?: string;
  readonly gitlabOutput?: string;
  readonly failOn: string;
  readonly maxFindings?: number;
  readonly config?: string;
  readonly baseline?: string;
  readonly writeBaseline?: string;
  readonly verbose?: boolean;
  readonly llm?: boolean;
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

/** A parser of a whole-number option with a lower bound; a bad value is a usage error (exit 2). */
function wholeNumber(option: string, min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new CliError(`${option} expects a whole number of ${min} or more, got "${value}"`, REVIEW_EXIT_CODES.usage);
    return n;
  };
}

/** The format from --format or one of the old flags (--json, --sarif, --md); two at once is a usage error. */
export function formatOf(
  options: Pick<RawOptions, 'format' | 'json' | 'sarif' | 'md'>,
  fallback: ReportFormat,
): ReportFormat {
  const chosen = [
    ...(options.format === undefined ? [] : [options.format]),
    ...(options.json === true ? ['json'] : []),
    ...(options.sarif === true ? ['sarif'] : []),
    ...(options.md === true ? ['md'] : []),
  ];
  if (new Set(chosen).size > 1)
    throw new CliError(`choose one output format, not ${chosen.join(' and ')}`, REVIEW_EXIT_CODES.usage);
  const format = chosen[0] ?? fallback;
  if (!(REPORT_FORMATS as readonly string[]).includes(format))
    throw new CliError(`--format must be one of ${REPORT_FORMATS.join(', ')}, not ${format}`, REVIEW_EXIT_CODES.usage);
  return format as ReportFormat;
}

function toRequest(path: string, o: RawOptions): ReviewRequest {
  if (!(FAIL_ON as readonly string[]).includes(o.failOn))
    throw new CliError(`--fail-on must be one of ${FAIL_ON.join(', ')}, not ${o.failOn}`, REVIEW_EXIT_CODES.usage);
  return {
    path,
    format: formatOf(o, 'stylish'),
    failOn: o.failOn as FailOn,
    verbose: o.verbose === true,
    llm: o.llm !== false,
    cache: o.cache !== false,
    repoEslintConfig: o.repoEslintConfig === true,
    files: o.files ?? [],
    exclude: o.exclude ?? [],
    critics: o.critics ?? [],
    skip: o.skip ?? [],
    ...(o.base === undefined ? {} : { base: o.base }),
    ...(o.output === undefined ? {} : { output: o.output }),
    alsoWrite: [
      ...(o.stylishOutput === undefined ? [] : [{ format: 'stylish' as const, file: o.stylishOutput }]),
      ...(o.jsonOutput === undefined ? [] : [{ format: 'json' as const, file: o.jsonOutput }]),
      ...(o.sarifOutput === undefined ? [] : [{ format: 'sarif' as const, file: o.sarifOutput }]),
      ...(o.mdOutput === undefined ? [] : [{ format: 'md' as const, file: o.mdOutput }]),
      ...(o.githubOutput === undefined ? [] : [{ format: 'github' as const, file: o.githubOutput }]),
      ...(o.gitlabOutput === undefined ? [] : [{ format: 'gitlab' as const, file: o.gitlabOutput }]),
    ],
    ...(o.maxFindings === undefined ? {} : { maxFindings: o.maxFindings }),
    ...(o.config === undefined ? {} : { config: o.config }),
    ...(o.baseline === undefined ? {} : { baseline: o.baseline }),
    ...(o.writeBaseline === undefined ? {} : { writeBaseline: o.writeBaseline }),
    ...(o.cacheDir === undefined ? {} : { cacheDir: o.cacheDir }),
    ...(o.registry === undefined ? {} : { registry: o.registry }),
    ...(o.advisories === undefined ? {} : { advisories: o.advisories }),
    ...(o.coverage === undefined ? {} : { coverage: o.coverage }),
    allowBuildScripts: o.allowBuildScripts === true,
    ...(o.maxFileBytes === undefined ? {} : { maxFileBytes: o.maxFileBytes }),
  };
}

/** The `review` command; `io` is injected by tests (default: the process's streams and environment). */
export function reviewCommandWith(io: ReviewIo | null = null): CommandRegistrar {
  return (program: Command): void => {
    program
      .command('review')
      .description(
        'review a directory with every check and print the findings (exit 0 clean, 1 findings, 2 usage error, 3 incomplete)',
      )
      .argument('<path>', 'directory to review (a git checkout or not)')
      .option('--files <glob...>', 'review only files matching these globs; !glob leaves files out')
      .option('--exclude <glob...>', 'never review files matching these globs (on top of .rloop.yaml and .rloopignore)')
      .option('--base <ref>', 'review only lines changed since this git ref (e.g. origin/main in a pull request)')
      .addOption(new Option('--format <format>', 'output format').choices(REPORT_FORMATS))
      .option('-o, --output <file>', 'write the report to a file instead of stdout')
      .option(
        '--sarif-output <file>',
        'also write SARIF to a file (as do --json-output, --md-output, --stylish-output, --github-output, --gitlab-output)',
      )
      .option('--json-output <file>', 'also write the JSON report to a file')
      .option('--md-output <file>', 'also write the Markdown report to a file')
      .option('--stylish-output <file>', 'also write the terminal report (no colour) to a file')
      .addOption(new Option('--github-output <file>', 'also write GitHub workflow annotations to a file').hideHelp())
      .option('--gitlab-output <file>', "also write GitLab's code quality report to a file")
      .addOption(
        new Option('--fail-on <tier>', 'lowest tier that fails the review (exit 1)')
          .choices(FAIL_ON)
          .default('critical'),
      )
      .option(
        '--max-findings <n>',
        'also fail (exit 1) when there are more than n findings of any tier',
        wholeNumber('--max-findings', 0),
      )
      .option('--config <file>', 'configuration file (default: .rloop.yaml at the repository root)')
      .option('--baseline <file>', 'report only findings that are not in this baseline')
      .option(
        '--write-baseline <file>',
        'record every current finding in a baseline file (then exit 0, or 3 when incomplete)',
      )
      .option('-v, --verbose', 'show code excerpts and each check as it runs')
      .option('--no-llm', 'do not run the LLM review even when ANTHROPIC_API_KEY is set')
      .option('--critics <id...>', 'run only these checks')
      .option('--skip <id...>', 'do not run these checks (e.g. toolchain/dependency-audit when offline)')
      .option('--cache-dir <dir>', 'incremental analysis cache (default: ~/.cache/rloop/review/<hash of path>)')
      .option('--no-cache', 'do not read or write the incremental cache')
      .option('--registry <url>', 'npm registry for the dependency audit')
      .option(
        '--advisories <path>',
        'audit dependencies offline against this OSV export (a directory or all.zip; default: $RLOOP_ADVISORIES; `rloop advisories update` downloads one)',
      )
      .option(
        '--coverage <path>',
        'what the tests ran: coverage-final.json (c8 --reporter=json, jest --coverage, vitest, nyc) or a NODE_V8_COVERAGE directory; reports changed lines the tests never run',
      )
      .option(
        '--allow-build-scripts',
        "let cargo run the crates' build scripts and proc macros for the Rust check (the repository's code: only for repositories you trust)",
      )
      .option(
        '--repo-eslint-config',
        "load the repository's own ESLint config (it runs the repository's code: only for repositories you trust)",
      )
      .option(
        '--max-file-bytes <n>',
        'read files up to this size; larger ones are skipped and no longer make the review incomplete (default: .rloop.yaml max_file_bytes, else 4 MiB and a skipped file makes it incomplete)',
        wholeNumber('--max-file-bytes', 1),
      )
      .addOption(new Option('--json', 'same as --format json').hideHelp())
      .addOption(new Option('--sarif', 'same as --format sarif').hideHelp())
      .addOption(new Option('--md', 'same as --format md').hideHelp())
      .addHelpText('after', REVIEW_EXIT_HELP)
      .action(async (path: string, options: RawOptions) => {
        const request = toRequest(path, options);
        const { runReview, processReviewIo } = await import('../review/run-review.js');
        await runReview(request, io ?? processReviewIo());
      });
  };
}

/** `rloop review <path> [options]`. */
export const registerReview: CommandRegistrar = reviewCommandWith();
