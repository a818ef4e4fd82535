import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import picomatch from 'picomatch';
import { RloopError } from '@rloop/contracts';
import { escapeControlChars, maskSecrets, maskSecretsDeep, roundCoverageGaps } from '@rloop/domain';
import {
  BUILT_IN_CRITIC_IDS,
  type CriticDefinition,
  RepoReader,
  type LoadedRepoConfig,
  baselineText,
  builtInCritics,
  criticSwitchedOff,
  loadRepoConfig,
  reviewRepositoryWithRuns,
} from '@rloop/critics';
import {
  CODE_REVIEWER_ID,
  PROMPT_CRITIC_SPECS,
  type UsageRecord,
  createAnthropicClient,
  createCodeReviewerCritic,
  createPromptCritics,
  findModel,
  loadModelCatalogue,
  redactSecrets,
  registerSecret,
} from '@rloop/llm';
import { CliError } from '../program.js';
import { renderReport } from '../format/render.js';
import { type FailOn, type ReportFormat, type ReviewReport, failsAt, plural } from '../format/report.js';
import { summaryLines } from '../format/stylish.js';
import { colourWanted, palette } from '../format/terminal.js';
import { cliVersion } from '../version.js';
import { type ReviewEnvironment, reviewEnvironment } from './environment.js';

/** What `rloop review` was asked to do, after its options were checked. */
export interface ReviewRequest {
  readonly path: string;
  readonly format: ReportFormat;
  readonly failOn: FailOn;
  readonly verbose: boolean;
  readonly llm: boolean;
  readonly cache: boolean;
  readonly repoEslintConfig: boolean;
  readonly files: readonly string[];
  readonly exclude: readonly string[];
  readonly critics: readonly string[];
  readonly skip: readonly string[];
  readonly base?: string;
  readonly output?: string;
  /** Further reports written to files in the same run (`--sarif-output rloop.sarif`, …). */
  readonly alsoWrite: readonly { readonly format: ReportFormat; readonly file: string }[];
  readonly maxFindings?: number;
  readonly config?: string;
  readonly baseline?: string;
  readonly writeBaseline?: string;
  readonly cacheDir?: string;
  readonly registry?: string;
  /** `--advisories`: an OSV export the dependency audit reads offline (RLOOP_ADVISORIES when absent). */
  readonly advisories?: string;
  /** `--coverage`: what the tests ran (coverage-final.json or a NODE_V8_COVERAGE directory), for quality/test-coverage. */
  readonly coverage?: string;
  /** `--allow-build-scripts`: cargo may run the crates' build scripts and proc macros (the repository's code). */
  readonly allowBuildScripts: boolean;
  /** `--max-file-bytes`: files under review larger than this are not read, and not counted as gaps. */
  readonly maxFileBytes?: number;
}

/** Where the review writes, what it reads from the environment, and the clock (injected by tests). */
export interface ReviewIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdoutIsTty: boolean;
  readonly stderrIsTty: boolean;
  readonly env: ReviewEnvironment;
  readonly now: () => Date;
  /** Checks added by the caller (tests, or an embedding tool). */
  readonly extraCritics?: readonly CriticDefinition[];
}

export function processReviewIo(): ReviewIo {
  let env: ReviewEnvironment;
  try {
    env = reviewEnvironment(process.env);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    stdoutIsTty: process.stdout.isTTY,
    stderrIsTty: process.stderr.isTTY,
    env,
    now: () => new Date(),
  };
}

const USAGE = 2;
const AUDIT_CRITIC_ID = 'toolchain/dependency-audit';
const FINDINGS = 1;
const INCOMPLETE = 3;

/** The LLM critics for this review, or why there are none (one line for the user). */
async function llmCritics(
  request: ReviewRequest,
  io: ReviewIo,
  repo: LoadedRepoConfig,
  files: readonly string[],
  usage: UsageRecord[],
): Promise<{ critics: CriticDefinition[]; off: string | null }> {
  if (!request.llm) return { critics: [], off: 'LLM review is off: --no-llm was given.' };
  if (criticSwitchedOff(repo.config, CODE_REVIEWER_ID))
    return { critics: [], off: `LLM review is off: ${repo.source ?? '.rloop.yaml'} switches ${CODE_REVIEWER_ID} off.` };
  const apiKey = io.env.anthropicApiKey;
  if (apiKey === null)
    return {
      critics: [],
      off: 'LLM review is off: ANTHROPIC_API_KEY is not set (set it to add a model’s review of intent and correctness).',
    };
  registerSecret(apiKey);
  const modelsPath = join(io.env.configDir, 'models.yaml');
  let catalogue;
  try {
    catalogue = await loadModelCatalogue(modelsPath);
  } catch (error) {
    throw new CliError(
      `cannot read the model catalogue ${modelsPath}: ${redactSecrets((error as Error).message)}`,
      USAGE,
    );
  }
  const model = repo.config.llm?.model ?? catalogue.roles?.critics;
  if (model === undefined)
    throw new CliError(
      `${modelsPath} names no roles.critics model, and ${repo.source ?? '.rloop.yaml'} sets no llm.model`,
      USAGE,
    );
  if (findModel(catalogue, model) === null) {
    const where =
      repo.config.llm?.model === undefined
        ? `${modelsPath} roles.critics`
        : `${repo.source ?? '.rloop.yaml'}: llm.model`;
    throw new CliError(
      `${where}: ${model} is not in the model catalogue ${modelsPath} (known: ${Object.keys(catalogue.models).join(', ')})`,
      USAGE,
    );
  }
  const client = createAnthropicClient({
    apiKey,
    model,
    maxRetries: 2,
    timeoutMs: 120_000,
    ...(io.env.anthropicBaseUrl === null ? {} : { baseURL: io.env.anthropicBaseUrl }),
  });
  const options = {
    model,
    catalogue,
    client,
    // A review has no journal: each dispatch is held to the per-dispatch limit of models.yaml.
    budget: () => Promise.resolve({ limits: catalogue.budgets, spentOnPlanUsd: 0, spentTodayUsd: 0 }),
    onUsage: (record: UsageRecord) => void usage.push(record),
  };
  // The code reviewer always; a prompt critic when the files it is for are under review (as the fleet's panel picks them).
  const prompt = createPromptCritics(options).filter((critic) => {
    const spec = PROMPT_CRITIC_SPECS.find((s) => s.id === critic.id);
    return spec !== undefined && files.some((file) => picomatch.isMatch(file, [...spec.triggers], { dot: true }));
  });
  return { critics: [createCodeReviewerCritic(options), ...prompt], off: null };
}

function selectCritics(
  request: ReviewRequest,
  all: readonly CriticDefinition[],
  repo: LoadedRepoConfig,
): CriticDefinition[] {
  const known = all.map((c) => c.id);
  const unknown = [...request.critics, ...request.skip].filter(
    (id) => !known.includes(id) && id !== CODE_REVIEWER_ID && !PROMPT_CRITIC_SPECS.some((s) => s.id === id),
  );
  if (unknown.length > 0)
    throw new CliError(
      `unknown check ${unknown.join(', ')}; checks are ${[...BUILT_IN_CRITIC_IDS, CODE_REVIEWER_ID].join(', ')}`,
      USAGE,
    );
  return all.filter(
    (c) =>
      (request.critics.length === 0 || request.critics.includes(c.id)) &&
      !request.skip.includes(c.id) &&
      !criticSwitchedOff(repo.config, c.id),
  );
}

/** What a review says about a check it leaves out because it was not given what the check reads. */
const NOT_CONFIGURED_NOTES: Readonly<Record<string, string>> = {
  'quality/test-coverage':
    'Test coverage is off: --coverage was not given (a coverage-final.json or NODE_V8_COVERAGE directory of your test run adds the changed lines the tests never run).',
};

/**
 * The checks that can run. One that needs what the review was not given (quality/test-coverage
 * without --coverage) is left out with one line in `notes`, never run only to fail; asked for by
 * name with --critics, it is a usage error.
 */
function configuredCritics(
  request: ReviewRequest,
  critics: readonly CriticDefinition[],
  notes: string[],
): CriticDefinition[] {
  return critics.filter((critic) => {
    const reason = critic.notConfiguredReason?.() ?? null;
    if (reason === null) return true;
    if (request.critics.includes(critic.id)) throw new CliError(`${critic.id} cannot run: ${reason}`, USAGE);
    notes.push(NOT_CONFIGURED_NOTES[critic.id] ?? `${critic.id} is off: ${reason}.`);
    return false;
  });
}

function writeOut(path: string, text: string): void {
  try {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeFileSync(path, text);
  } catch (error) {
    throw new CliError(`cannot write ${path}: ${(error as Error).message}`, USAGE);
  }
}

/** A reviewed file's lines for excerpts, read like the critics read it (inside the directory, never through a link out); null when it cannot be. */
function fileLines(reader: RepoReader): (file: string) => readonly string[] | null {
  const memo = new Map<string, readonly string[] | null>();
  return (file) => {
    if (!memo.has(file)) {
      // Excerpts (--verbose, SARIF snippets) show the file as the letter does: secrets masked.
      const text = reader.read(file);
      memo.set(file, text === null ? null : maskSecrets(text).split(/\r?\n/));
    }
    return memo.get(file) ?? null;
  };
}

/**
 * Runs `rloop review`: every check over a directory, the report in the chosen format on stdout (or
 * --output), notes on stderr. Ends with a CliError carrying the exit code (1 findings, 2 usage,
 * 3 incomplete: a check did not finish, or a file under review could not be analysed) or returns
 * for exit 0.
 */
export async function runReview(request: ReviewRequest, io: ReviewIo): Promise<void> {
  const started = performance.now();
  const repoDir = resolve(request.path);
  const now = io.now();
  const known = [
    ...BUILT_IN_CRITIC_IDS,
    CODE_REVIEWER_ID,
    ...PROMPT_CRITIC_SPECS.map((s) => s.id),
    ...(io.extraCritics ?? []).map((c) => c.id),
  ];
  let repo: LoadedRepoConfig;
  try {
    repo = loadRepoConfig(repoDir, {
      knownCritics: known,
      ...(request.config === undefined ? {} : { configPath: request.config }),
    });
  } catch (error) {
    if (error instanceof RloopError) throw new CliError(error.message, USAGE);
    throw error;
  }
  const advisories = request.advisories ?? io.env.advisories ?? undefined;
  const deterministic = selectCritics(
    request,
    [
      ...builtInCritics({
        now,
        hostEnv: io.env.host,
        ...(request.registry === undefined ? {} : { registry: request.registry }),
        ...(advisories === undefined ? {} : { advisories: resolve(advisories) }),
        ...(request.repoEslintConfig ? { useRepoEslintConfig: true } : {}),
        ...(request.allowBuildScripts ? { allowBuildScripts: true } : {}),
        ...(request.coverage === undefined
          ? {}
          : { testCoverage: { kind: 'report' as const, path: resolve(request.coverage), testRoot: repoDir } }),
      }),
      ...(io.extraCritics ?? []),
    ],
    repo,
  );
  const notes: string[] = [];
  const runnable = configuredCritics(request, deterministic, notes);
  const usage: UsageRecord[] = [];
  // Progress names files and quotes critics: shown with control characters escaped.
  const progress = request.verbose ? (line: string): void => io.stderr(`${escapeControlChars(line)}\n`) : undefined;
  const cacheDir = !request.cache
    ? undefined
    : (request.cacheDir ??
      join(io.env.cacheRoot, 'rloop', 'review', createHash('sha256').update(repoDir).digest('hex').slice(0, 16)));
  let llmOff: string | null = null;
  const wantsLlm = request.critics.length === 0 || request.critics.includes(CODE_REVIEWER_ID);
  // Whoever runs the review is its operator: .rloop.yaml's max_file_bytes sets the bound files are
  // read up to as well as the one they are excluded over, unless --max-file-bytes says otherwise.
  const maxFileBytes = request.maxFileBytes ?? repo.config.max_file_bytes;
  let outcome;
  try {
    // The LLM checks depend on the files under review (prompt checks by their triggers), so the
    // deterministic review runs first with them added once the file list is known.
    outcome = await reviewRepositoryWithRuns({
      repoDir,
      now,
      repoConfig: repo,
      critics: runnable,
      lateCritics: async (files) => {
        if (!wantsLlm || request.skip.includes(CODE_REVIEWER_ID)) return [];
        const llm = await llmCritics(request, io, repo, files, usage);
        llmOff = llm.off;
        return llm.critics.filter((c) => !request.skip.includes(c.id));
      },
      ...(progress === undefined ? {} : { onProgress: progress }),
      ...(request.files.length === 0 ? {} : { files: request.files }),
      ...(request.exclude.length === 0 ? {} : { exclude: request.exclude }),
      ...(request.base === undefined ? {} : { base: request.base }),
      ...(request.baseline === undefined ? {} : { baseline: request.baseline }),
      ...(cacheDir === undefined ? {} : { cacheDir }),
      ...(maxFileBytes === undefined ? {} : { maxFileBytes }),
    });
  } catch (error) {
    if (error instanceof RloopError) throw new CliError(redactSecrets(error.message), USAGE);
    throw error;
  }
  if (llmOff !== null) notes.push(llmOff);
  if (usage.length > 0) {
    const cost = usage.reduce((sum, u) => sum + u.cost_usd, 0);
    notes.push(
      `LLM review: ${plural(usage.length, 'request')} to ${usage[0]?.model ?? 'the model'}, $${cost.toFixed(4)}.`,
    );
  }
  for (const refused of outcome.letter.repo_config?.refused ?? []) notes.push(`Not applied: ${refused}`);
  // Offline advisories are only as good as the export is recent: its size and age are worth a line.
  const audit =
    advisories === undefined
      ? undefined
      : outcome.runs.find((r) => r.critic_id === AUDIT_CRITIC_ID && r.status === 'reported');
  for (const line of audit?.notes ?? []) notes.push(`${AUDIT_CRITIC_ID}: ${line}`);

  // Printed in every format: secrets in what checks quote are masked like everything rloop journals.
  const letter = maskSecretsDeep(outcome.letter);
  const report: ReviewReport = {
    letter,
    filesReviewed: outcome.files.length,
    filesExcluded: outcome.excluded.length,
    durationMs: performance.now() - started,
    failOn: request.failOn,
    notes: notes.map(maskSecrets),
    readLines: fileLines(new RepoReader(repoDir, maxFileBytes === undefined ? {} : { maxFileBytes })),
    verbose: request.verbose,
    toolVersion: cliVersion(),
  };
  const toTerminal = request.output === undefined;
  const colour = colourWanted(
    { FORCE_COLOR: io.env.forceColor, NO_COLOR: io.env.noColor },
    toTerminal && io.stdoutIsTty,
  );
  const text = renderReport(request.format, report, palette(colour));
  if (request.output === undefined) io.stdout(text);
  else writeOut(request.output, text);
  for (const extra of request.alsoWrite) writeOut(extra.file, renderReport(extra.format, report, palette(false)));
  // The summary goes to stderr whenever stdout (or the file) is not the person-readable report.
  if (request.format !== 'stylish' || !toTerminal) {
    const p = palette(colourWanted({ FORCE_COLOR: io.env.forceColor, NO_COLOR: io.env.noColor }, io.stderrIsTty));
    io.stderr(`${summaryLines(report, p).join('\n')}\n`);
  }

  if (request.writeBaseline !== undefined) {
    // A baseline is committed to the repository: its titles are masked like the report.
    writeOut(request.writeBaseline, baselineText(maskSecretsDeep(outcome.baselineCandidates), now));
    io.stderr(
      `wrote ${plural(outcome.baselineCandidates.length, 'finding')} to ${request.writeBaseline}; review with --baseline ${request.writeBaseline} to see only new ones\n`,
    );
  }
  if (outcome.failed.length > 0) {
    throw new CliError(
      maskSecrets(
        `review incomplete: ${outcome.failed.map((r) => `${r.critic_id} (${r.status === 'failed' ? r.reason : ''})`).join(', ')} did not finish`,
      ),
      INCOMPLETE,
    );
  }
  // A file under review that a check could not read was not reviewed: not clean, whatever was found.
  const gaps = roundCoverageGaps(letter.critics);
  if (gaps.length > 0) {
    const listed = gaps.slice(0, 5).map((g) => g.text);
    const hint = gaps.some((g) => g.skip.reason === 'too_large') ? ' (--max-file-bytes sets the size bound)' : '';
    throw new CliError(
      `review incomplete: not analysed: ${listed.join('; ')}${gaps.length > 5 ? `; and ${gaps.length - 5} more` : ''}${hint}`,
      INCOMPLETE,
    );
  }
  if (request.writeBaseline !== undefined) return;
  const failing = letter.findings.filter((f) => failsAt(f, request.failOn)).length;
  // The report already says why: no extra line.
  if (failing > 0) throw new CliError('', FINDINGS);
  const total = letter.findings.length;
  if (request.maxFindings !== undefined && total > request.maxFindings)
    throw new CliError(`${plural(total, 'finding')}: more than --max-findings ${request.maxFindings}`, FINDINGS);
}
