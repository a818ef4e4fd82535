import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import type { CRITIC_FAILURE_REASONS, CoverageSkipReason, Issue } from '@rloop/contracts';
import { type CriticContext, type CriticDefinition, type FindingDraft, isBinaryByName } from '@rloop/critics';
import type {
  ContentBlockParam,
  Message,
  ToolChoice,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { BudgetState } from './budget.js';
import type { CacheWarmup } from './cache-warmup.js';
import {
  type AnthropicClientOptions,
  createAnthropicClient,
  type LlmClient,
  type LlmClientFactory,
  type LlmLogger,
  type LlmMessageRequest,
} from './client.js';
import { dataBlock, fileDataBlock } from './data-blocks.js';
import { assistantTurn, Dispatcher, textBlock, type Turn, withRollingBreakpoint } from './dispatcher.js';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmBudgetExceededError,
  LlmError,
  LlmNotConfiguredError,
  LlmOutputInvalidError,
  LlmOutputTruncatedError,
  LlmOverloadedError,
  LlmRateLimitedError,
  LlmRefusedError,
  LlmSpendLimitError,
} from './errors.js';
import {
  checkFindingLocations,
  type DroppedFinding,
  parseReportedFindings,
  REPORT_FINDINGS_TOOL,
  type ReportedFinding,
  reportFindingsTool,
} from './findings.js';
import { diffBetween } from './git.js';
import { findModel, type ModelCatalogue, type ModelSpec } from './models.js';
import { PROMPT_CRITIC_SPECS } from './prompt-critics.js';
import { CODE_REVIEWER_PROMPT, CRITIC_SYSTEM_PROMPT } from './prompts.js';
import { redactSecrets } from './redact.js';
import type { UsageRecord } from './usage.js';
import { realWorktreeRoot, resolveInWorktree } from './worktree.js';

// ── The review itself ───────────────────────────────────────────────────────────────────────

/** What a critic reviews: the plan, the diff and the files, nothing from other critics. */
export interface ReviewSubject {
  readonly commit: string;
  readonly plan: { readonly title: string; readonly description: string } | null;
  /** The unified diff of the change; null when it could not be computed. */
  readonly diff: string | null;
  readonly files: readonly { readonly path: string; readonly content: string }[];
  /** Files under review that are not shown, and why (binary, too large, deleted). */
  readonly omitted: readonly OmittedFile[];
}

export interface LlmReviewOptions {
  readonly client: LlmClient;
  readonly spec: ModelSpec;
  readonly criticId: string;
  /** The critic's concern (CODE_REVIEWER_PROMPT or a prompt critic's prompt). */
  readonly concern: string;
  readonly subject: ReviewSubject;
  /** Default 8192. */
  readonly maxOutputTokens?: number;
  /** Prompt caching (cache_control breakpoints); default true. */
  readonly caching?: boolean;
  readonly budget?: BudgetState;
  readonly round?: number;
  readonly signal?: AbortSignal;
  /** Shared by a round's critics, so their common prefix is written to the cache once (cache-warmup.ts). */
  readonly warmup?: CacheWarmup;
}

export interface LlmReviewResult {
  readonly findings: readonly FindingDraft[];
  /** Findings that named files or lines the critic was not given: dropped, and counted here. */
  readonly dropped: readonly DroppedFinding[];
  readonly usage: UsageRecord;
  /** 1, or 2 when the first reply was invalid and retried. */
  readonly attempts: number;
}

const MAX_ATTEMPTS = 2;

function renderIssues(issues: readonly Issue[]): string {
  const shown = issues.slice(0, 20).map((i) => `- ${i.path}: ${i.message}`);
  return issues.length > 20 ? [...shown, `- … and ${issues.length - 20} more`].join('\n') : shown.join('\n');
}

/** Paths a unified diff touches (its `+++ b/…` and `--- a/…` lines). Pure. */
export function filesInDiff(diff: string | null): Set<string> {
  const paths = new Set<string>();
  for (const match of (diff ?? '').matchAll(/^(?:\+\+\+ b|--- a)\/(.+)$/gm))
    if (match[1] !== undefined) paths.add(match[1]);
  return paths;
}

/**
 * The user message, most stable part first, so prompt caching reuses as much as possible:
 * 1. files the change does not touch (the same from round to round and for every critic of a
 *    round; cache breakpoint), 2. the files it touches, the plan and the diff (the same for every
 *    critic of a round; cache breakpoint), 3. the critic's concern (not cached).
 */
export function reviewMessage(subject: ReviewSubject, concern: string, caching: boolean): ContentBlockParam[] {
  const touched = filesInDiff(subject.diff);
  const stable = subject.files.filter((f) => !touched.has(f.path));
  const changing = subject.files.filter((f) => touched.has(f.path));
  const context = [
    '## Files under review that this change does not touch',
    '',
    ...(stable.length === 0 ? ['(none)'] : stable.map((f) => fileDataBlock(f.path, f.content))),
  ].join('\n');
  const plan =
    subject.plan === null
      ? 'The plan was not provided.'
      : dataBlock('plan', `Title: ${subject.plan.title}\n\n${subject.plan.description}`.trim());
  const change = [
    `## Files under review that this change touches (as of commit ${subject.commit})`,
    '',
    ...(changing.length === 0 ? ['(none)'] : changing.map((f) => fileDataBlock(f.path, f.content))),
    ...(subject.omitted.length === 0
      ? []
      : ['', 'Not shown (do not report on these):', ...subject.omitted.map((o) => `- ${o.path}: ${o.reason}`)]),
    '',
    '## The plan',
    plan,
    '',
    '## The change',
    subject.diff === null
      ? 'The diff could not be computed; review the files as they are.'
      : subject.diff.trim() === ''
        ? 'The diff is empty.'
        : dataBlock('diff', subject.diff),
  ].join('\n');
  const ask = [
    '## Your concern',
    concern,
    '',
    `Review the change for this concern only, then call ${REPORT_FINDINGS_TOOL}.`,
  ].join('\n');
  return [textBlock(context, caching), textBlock(change, caching), textBlock(ask)];
}

interface Evaluation {
  readonly findings: readonly ReportedFinding[] | null;
  readonly issues: readonly Issue[];
  readonly truncated: boolean;
}

/**
 * What a reply says, by its stop reason (the API's "Stop reasons" page): only a reply that ended
 * its turn (`tool_use`, `end_turn`, `stop_sequence`) is read for findings. A reply cut off at
 * `max_tokens` is retried; one that filled the context window (`model_context_window_exceeded`)
 * throws — the same input would fill it again — and so does a refusal: a cut-off report, whatever
 * it holds (an empty findings list included), is never taken as "no findings".
 */
function evaluate(message: Message): Evaluation {
  switch (message.stop_reason) {
    case 'refusal':
      throw new LlmRefusedError('the model declined to review (stop_reason refusal)');
    case 'model_context_window_exceeded':
      throw new LlmOutputTruncatedError(
        'the reply filled the model context window before the report was complete (stop_reason model_context_window_exceeded): review fewer or smaller files',
      );
    case 'max_tokens':
      return {
        findings: null,
        issues: [
          {
            path: '(reply)',
            message: 'the reply was cut off at the output token limit; report fewer findings with shorter texts',
          },
        ],
        truncated: true,
      };
    case 'tool_use':
    case 'end_turn':
    case 'stop_sequence':
      break;
    default:
      // pause_turn is continued by the caller; anything else is a reply this code does not know to be complete.
      return {
        findings: null,
        issues: [
          {
            path: '(reply)',
            message: `the reply stopped for ${String(message.stop_reason)}, which is not a finished report`,
          },
        ],
        truncated: false,
      };
  }
  const calls = message.content.filter((b) => b.type === 'tool_use');
  const reports = calls.filter((c) => c.name === REPORT_FINDINGS_TOOL);
  if (reports.length === 0)
    return {
      findings: null,
      issues: [{ path: '(reply)', message: `${REPORT_FINDINGS_TOOL} was not called` }],
      truncated: false,
    };
  const findings: ReportedFinding[] = [];
  const issues: Issue[] = [];
  for (const [index, call] of reports.entries()) {
    const parsed = parseReportedFindings(call.input);
    if (parsed.ok) findings.push(...parsed.findings);
    else
      issues.push(
        ...parsed.issues.map((i) => ({
          path: reports.length > 1 ? `call ${index + 1}: ${i.path}` : i.path,
          message: i.message,
        })),
      );
  }
  return issues.length === 0
    ? { findings, issues: [], truncated: false }
    : { findings: null, issues, truncated: false };
}

function followUp(message: Message, issues: readonly Issue[]): ContentBlockParam[] {
  const summary = `Your report was not accepted:\n${renderIssues(issues)}\nCall ${REPORT_FINDINGS_TOOL} again with the complete, corrected list of findings.`;
  const results: ToolResultBlockParam[] = message.content
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({
      type: 'tool_result',
      tool_use_id: b.id,
      is_error: true,
      content: b.name === REPORT_FINDINGS_TOOL ? 'rejected: see below' : `unknown tool ${b.name}`,
    }));
  return [...results, textBlock(summary)];
}

/**
 * One critic review: the model reports through the strict report_findings tool; an invalid
 * reply is retried once with the validation errors; a second invalid reply throws
 * (LlmOutputInvalidError, or LlmOutputTruncatedError after max_tokens), never a guess. Findings
 * that point at files or lines the critic was not given are dropped and returned in `dropped`.
 */
export async function reviewWithLlm(options: LlmReviewOptions): Promise<LlmReviewResult> {
  const caching = options.caching ?? true;
  const dispatcher = new Dispatcher({
    client: options.client,
    spec: options.spec,
    dispatch: options.criticId,
    ...(options.round === undefined ? {} : { round: options.round }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const tool = reportFindingsTool();
  // Forcing the tool is the stronger guarantee, where the model accepts it (models.yaml says which).
  const toolChoice: ToolChoice = options.spec.forced_tool_choice
    ? { type: 'tool', name: REPORT_FINDINGS_TOOL }
    : { type: 'auto' };
  const messages: Turn[] = [{ role: 'user', content: reviewMessage(options.subject, options.concern, caching) }];
  try {
    const request = (attempt: number) => ({
      system: [textBlock(CRITIC_SYSTEM_PROMPT, caching)],
      tools: [tool],
      tool_choice: toolChoice,
      // TODO(calibration): 8192 output tokens fits ~20 findings; check max_tokens stops in the logs.
      max_tokens: options.maxOutputTokens ?? 8192,
      messages: withRollingBreakpoint(messages, caching && attempt > 1),
    });
    for (let attempt = 1; ; attempt += 1) {
      // The first request of a round's critics shares their stable prefix: one warms the cache, the others follow once it is readable.
      const first = request(attempt);
      let message =
        attempt === 1 && options.warmup !== undefined
          ? await options.warmup.run(
              prefixKey(options.spec.id, first),
              (onResponseStart) => dispatcher.send(first, onResponseStart),
              options.signal,
            )
          : await dispatcher.send(first);
      message = await continuePaused(message, messages, (continued) =>
        dispatcher.send({ ...first, messages: continued }),
      );
      const verdict = evaluate(message);
      if (verdict.findings !== null) {
        const lineCounts = new Map(options.subject.files.map((f) => [f.path, lineCount(f.content)]));
        const { kept, dropped } = checkFindingLocations(verdict.findings, lineCounts);
        return { findings: kept, dropped, usage: dispatcher.record, attempts: attempt };
      }
      if (attempt >= MAX_ATTEMPTS) {
        const detail = renderIssues(verdict.issues);
        if (verdict.truncated)
          throw new LlmOutputTruncatedError(`${options.criticId}: the reply was cut off at max_tokens twice`);
        throw new LlmOutputInvalidError(
          `${options.criticId}: the report failed validation twice:\n${detail}`,
          verdict.issues,
        );
      }
      const assistant = assistantTurn(message.content);
      if (assistant !== null) messages.push(assistant, { role: 'user', content: followUp(message, verdict.issues) });
      else {
        // Nothing came back to answer: the follow-up joins the user turn (roles must alternate).
        const first = messages[0];
        if (first !== undefined && Array.isArray(first.content))
          messages[0] = { role: 'user', content: [...first.content, ...followUp(message, verdict.issues)] };
      }
    }
  } catch (error) {
    throw dispatcher.annotate(error);
  }
}

// TODO(calibration): three continuations of a paused turn is a guess; pause_turn comes from server-side tool loops, which critics do not use.
const MAX_CONTINUATIONS = 3;

/**
 * A paused turn (stop_reason pause_turn) is sent back as it is, as the last (assistant) message, so
 * the model continues it; the continuation's content joins the paused content. Anything else is
 * returned unchanged.
 */
async function continuePaused(
  message: Message,
  conversation: readonly Turn[],
  send: (messages: Turn[]) => Promise<Message>,
): Promise<Message> {
  let current = message;
  let content = message.content;
  for (let continuation = 1; current.stop_reason === 'pause_turn'; continuation += 1) {
    const paused = assistantTurn(content);
    if (paused === null || continuation > MAX_CONTINUATIONS) {
      throw new LlmOutputTruncatedError(
        `the model paused its turn ${continuation - 1} time(s) without finishing the report (stop_reason pause_turn)`,
      );
    }
    current = await send([...conversation, paused]);
    content = [...content, ...current.content];
  }
  return content === current.content ? current : { ...current, content };
}

/** What a critic's first request shares with the other critics of its round: the model, tools, system prompt and the cached blocks. */
function prefixKey(model: string, request: LlmMessageRequest): string {
  const first = request.messages[0];
  const blocks =
    first !== undefined && Array.isArray(first.content)
      ? first.content.filter((b) => 'cache_control' in b && b.cache_control !== undefined && b.cache_control !== null)
      : [];
  return createHash('sha256')
    .update(JSON.stringify([model, request.system, request.tools, request.tool_choice, blocks]))
    .digest('hex');
}

function lineCount(content: string): number {
  const lines = content.split('\n');
  return lines.length > 1 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
}

// ── Gathering the subject from a critic context ────────────────────────────────────────────

/** A file under review the model is not shown, why (for the prompt), and the coverage reason it is reported under. */
export interface OmittedFile {
  readonly path: string;
  readonly reason: string;
  readonly skip: CoverageSkipReason;
}

export interface ReviewLimits {
  /** Files larger than this are not shown. Default 200 KiB. */
  readonly maxFileBytes: number;
  /** All shown files together. Default 600 KiB (about 150k tokens). */
  readonly maxTotalBytes: number;
  /** The diff is cut at this size (the files are shown in full anyway). Default 200 KiB. */
  readonly maxDiffBytes: number;
}

// TODO(calibration): sizes picked to keep a review under ~150k input tokens; settle them from UsageRecorded input_tokens of real reviews.
export const DEFAULT_REVIEW_LIMITS: ReviewLimits = {
  maxFileBytes: 200 * 1024,
  maxTotalBytes: 600 * 1024,
  maxDiffBytes: 200 * 1024,
};

/** What the runner knows about the review that the critic context does not carry. */
export interface SubjectHints {
  readonly plan?: { readonly title: string; readonly description: string } | null;
  /** The diff base (RoundStarted.base_commit); default the commit's first parent. */
  readonly baseCommit?: string | null;
  readonly round?: number;
}

/** Reads the files under review from the read-only checkout and computes the diff. */
export async function gatherReviewSubject(
  context: Pick<CriticContext, 'repoDir' | 'commit' | 'files'>,
  hints: SubjectHints = {},
  limits: ReviewLimits = DEFAULT_REVIEW_LIMITS,
): Promise<ReviewSubject> {
  const root = await realWorktreeRoot(context.repoDir);
  const files: { path: string; content: string }[] = [];
  const omitted: OmittedFile[] = [];
  let total = 0;
  for (const path of [...new Set(context.files)].sort()) {
    let absolute: string;
    try {
      ({ absolute } = await resolveInWorktree(root, path));
    } catch (error) {
      omitted.push({
        path,
        reason: redactSecrets(error instanceof Error ? error.message : String(error)),
        skip: 'outside_checkout',
      });
      continue;
    }
    const info = await lstat(absolute).catch(() => null);
    if (info === null || !info.isFile()) {
      omitted.push({ path, reason: 'not a file at this commit (deleted or a directory)', skip: 'missing' });
      continue;
    }
    if (info.size > limits.maxFileBytes) {
      omitted.push({
        path,
        reason: `too large to show (${info.size} bytes, over ${limits.maxFileBytes})`,
        skip: 'too_large',
      });
      continue;
    }
    if (total + info.size > limits.maxTotalBytes) {
      omitted.push({
        path,
        reason: `over the review's total size limit (${limits.maxTotalBytes} bytes)`,
        skip: 'too_large',
      });
      continue;
    }
    const content = await readFile(absolute, 'utf8');
    if (content.includes('\u0000')) {
      omitted.push({ path, reason: 'binary', skip: 'binary' });
      continue;
    }
    total += info.size;
    files.push({ path, content });
  }
  let diff = await diffBetween(context.repoDir, hints.baseCommit ?? null, context.commit, context.files);
  if (diff !== null && diff.length > limits.maxDiffBytes)
    diff = `${diff.slice(0, limits.maxDiffBytes)}\n… [diff cut at ${limits.maxDiffBytes} bytes; the full files are shown above]`;
  return { commit: context.commit, plan: hints.plan ?? null, diff, files, omitted };
}

// ── Critic definitions ──────────────────────────────────────────────────────────────────────

/** What a run reports besides its findings (for UsageRecorded and the runner's notes). */
export interface LlmCriticReport {
  readonly criticId: string;
  readonly commit: string;
  readonly findings: number;
  readonly dropped: readonly DroppedFinding[];
  readonly attempts: number;
  readonly usage: UsageRecord;
}

export interface LlmCriticOptions {
  /** The model id; must be in the catalogue (its prices make the usage records). */
  readonly model: string;
  readonly catalogue: ModelCatalogue;
  /** The Anthropic key; without it (and without `client`) the critic is not configured. */
  readonly apiKey?: string | undefined;
  /** A ready client (tests, or one client shared by several critics). */
  readonly client?: LlmClient;
  /** Builds the client from the key when `client` is not given; default createAnthropicClient. */
  readonly clientFactory?: LlmClientFactory;
  readonly baseURL?: string;
  /** Default 2. */
  readonly maxRetries?: number;
  /** One HTTP request. Default 120 s. */
  readonly requestTimeoutMs?: number;
  /** The critic's deadline (CriticDefinition.timeoutMs). Default 300 s. */
  readonly timeoutMs?: number;
  readonly maxOutputTokens?: number;
  readonly caching?: boolean;
  readonly limits?: Partial<ReviewLimits>;
  /** Plan title/description, diff base and round for a context (the runner knows them from RoundStarted). */
  readonly resolveSubject?: (context: CriticContext) => Promise<SubjectHints>;
  /** Limits and spend so far for a context; no budget check when it returns null. */
  readonly budget?: (context: CriticContext) => Promise<BudgetState | null>;
  /** Called after every run that made a call, success or failure: publish it as UsageRecorded. */
  readonly onUsage?: (usage: UsageRecord) => void;
  /** Called after a successful run. */
  readonly onReport?: (report: LlmCriticReport) => void;
  readonly logger?: LlmLogger;
  /** One per host, shared by its critics: a round's first request warms the cache, the others wait until it is readable. */
  readonly cacheWarmup?: CacheWarmup;
}

/** A CriticDefinition whose full result (dropped findings, usage) is also available. */
export interface LlmCriticDefinition extends CriticDefinition {
  notConfiguredReason(): string | null;
  review(context: CriticContext): Promise<LlmReviewResult>;
}

export interface PromptCriticOptions extends LlmCriticOptions {
  readonly id: string;
  readonly evidence: string;
  readonly prompt: string;
  readonly triggers: readonly string[];
  readonly description?: string;
}

export const CODE_REVIEWER_ID = 'quality/code-reviewer';

/**
 * Any LLM critic: the shared machinery with a critic-specific concern. Dynamic catalogue critics
 * come from PROMPT_CRITIC_SPECS (createPromptCritics builds them all).
 */
export function createPromptCritic(options: PromptCriticOptions): LlmCriticDefinition {
  const spec = findModel(options.catalogue, options.model);
  let client: LlmClient | null = options.client ?? null;
  const limits: ReviewLimits = { ...DEFAULT_REVIEW_LIMITS, ...options.limits };

  const notConfiguredReason = (): string | null => {
    if (client === null && (options.apiKey === undefined || options.apiKey.trim() === ''))
      return 'ANTHROPIC_API_KEY is not set';
    if (spec === null)
      return `model ${JSON.stringify(options.model)} is not in the model catalogue (config/models.yaml)`;
    return null;
  };

  const clientOrThrow = (): LlmClient => {
    const reason = notConfiguredReason();
    if (reason !== null) throw new LlmNotConfiguredError(`${options.id} cannot run: ${reason}`);
    if (client === null) {
      const factoryOptions: AnthropicClientOptions = {
        apiKey: options.apiKey ?? '',
        model: options.model,
        maxRetries: options.maxRetries ?? 2,
        timeoutMs: options.requestTimeoutMs ?? 120_000,
        ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      };
      client = (options.clientFactory ?? createAnthropicClient)(factoryOptions);
    }
    return client;
  };

  const review = async (context: CriticContext): Promise<LlmReviewResult> => {
    const llm = clientOrThrow();
    const modelSpec = findModel(options.catalogue, llm.model) ?? spec;
    if (modelSpec === null)
      throw new LlmNotConfiguredError(`${options.id} cannot run: model ${llm.model} has no price in the catalogue`);
    const hints = options.resolveSubject === undefined ? {} : await options.resolveSubject(context);
    const budget = options.budget === undefined ? null : await options.budget(context);
    const subject = await gatherReviewSubject(context, hints, limits);
    // What the model is shown is what this critic covers; the rest is said, with why.
    for (const file of subject.files) context.coverage.analysed(file.path);
    for (const file of subject.omitted) {
      // A model reviews text: binary content is not of its kind, whatever the file is called.
      if (file.skip === 'binary') context.coverage.unsupported(file.path);
      else context.coverage.skipped(file.path, file.skip, file.reason);
    }
    try {
      const result = await reviewWithLlm({
        client: llm,
        spec: modelSpec,
        criticId: options.id,
        concern: options.prompt,
        subject,
        signal: context.signal,
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(options.caching === undefined ? {} : { caching: options.caching }),
        ...(budget === null ? {} : { budget }),
        ...(hints.round === undefined ? {} : { round: hints.round }),
        ...(options.cacheWarmup === undefined || options.caching === false ? {} : { warmup: options.cacheWarmup }),
      });
      options.onUsage?.(result.usage);
      options.onReport?.({
        criticId: options.id,
        commit: context.commit,
        findings: result.findings.length,
        dropped: result.dropped,
        attempts: result.attempts,
        usage: result.usage,
      });
      return result;
    } catch (error) {
      // Tokens billed before the failure are still spent: report them too.
      if (
        error instanceof LlmError &&
        error.usage !== undefined &&
        error.usage.input_tokens + error.usage.output_tokens > 0
      )
        options.onUsage?.(error.usage);
      throw error;
    }
  };

  return {
    id: options.id,
    evidence: options.evidence,
    description: options.description ?? `LLM review: ${options.id}`,
    triggers: options.triggers,
    timeoutMs: options.timeoutMs ?? 300_000,
    // Every text file; a binary one by its name (an image, an archive) is not for a language model.
    covers: (file) => !isBinaryByName(file),
    notConfiguredReason,
    review,
    run: async (context: CriticContext): Promise<readonly FindingDraft[]> => {
      const result = await review(context);
      if (result.dropped.length > 0) {
        context.note?.(
          `${result.dropped.length} finding(s) dropped for pointing at files or lines the critic was not given: ${result.dropped
            .slice(0, 5)
            .map((d) => `${d.file}:${d.line_range.start}-${d.line_range.end} (${d.reason})`)
            .join('; ')}`,
        );
      }
      return result.findings;
    },
  };
}

/** The core `quality/code-reviewer` critic (evidence `llm`). */
export function createCodeReviewerCritic(options: LlmCriticOptions): LlmCriticDefinition {
  return createPromptCritic({
    ...options,
    id: CODE_REVIEWER_ID,
    evidence: 'llm',
    prompt: CODE_REVIEWER_PROMPT,
    triggers: [],
    description: 'LLM judgement on intent, correctness and readability',
  });
}

/** Every dynamic LLM critic of PROMPT_CRITIC_SPECS, sharing one set of options (and client). */
export function createPromptCritics(options: LlmCriticOptions): LlmCriticDefinition[] {
  return PROMPT_CRITIC_SPECS.map((spec) =>
    createPromptCritic({
      ...options,
      id: spec.id,
      evidence: spec.evidence,
      prompt: spec.prompt,
      triggers: spec.triggers,
      description: spec.description,
    }),
  );
}

/**
 * The CriticFailed reason for an error out of an LLM critic: rate limits and overload are
 * `rate_limited`, bad or cut-off output and refusals `invalid_output`, a missing key, a spend
 * limit or a budget `not_runnable` (a budget error also carries what was spent, for the
 * escalation), a refused key `unauthorised`, an abort
 * `timed_out`, a lost connection `unavailable`, anything else `crashed`.
 */
export function criticFailureReasonOf(error: unknown): (typeof CRITIC_FAILURE_REASONS)[number] {
  if (error instanceof LlmRateLimitedError || error instanceof LlmOverloadedError) return 'rate_limited';
  if (
    error instanceof LlmOutputInvalidError ||
    error instanceof LlmOutputTruncatedError ||
    error instanceof LlmRefusedError
  )
    return 'invalid_output';
  if (
    error instanceof LlmNotConfiguredError ||
    error instanceof LlmBudgetExceededError ||
    error instanceof LlmSpendLimitError
  )
    return 'not_runnable';
  // A key the provider refuses stays refused: an infrastructure failure, escalated with what to set.
  if (error instanceof LlmAuthError) return 'unauthorised';
  if (error instanceof LlmAbortedError) return 'timed_out';
  if (error instanceof LlmError && error.retryable) return 'unavailable';
  return 'crashed';
}
