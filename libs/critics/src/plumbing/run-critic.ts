import { performance } from 'node:perf_hooks';
import {
  type CRITIC_FAILURE_REASONS,
  type CriticCoverage,
  type Finding,
  RloopError,
  describeError,
} from '@rloop/contracts';

/** Why a critic run produced no report (the contract's CriticFailed reasons). */
export type CriticFailureReason = (typeof CRITIC_FAILURE_REASONS)[number];
import type { CriticContext, CriticDefinition } from '../critic.js';
import {
  CriticCancelledError,
  CriticNotRunnableError,
  CriticOutputInvalidError,
  CriticTimedOutError,
} from '../errors.js';
import { RepoReader } from '../repo/checkout.js';
import { FileHashIndex, listCheckoutFiles } from '../repo/files.js';
import { CoverageMarks, coverageOf, nothingAnalysedMessage, supportedCount } from './coverage.js';
import { type FileReader, finalizeFindings } from './finalize.js';

/** The outcome of one critic run: findings from a critic that ran, or why it did not. */
export type CriticRunResult =
  | {
      readonly status: 'reported';
      readonly critic_id: string;
      readonly findings: readonly Finding[];
      readonly duration_ms: number;
      readonly notes: readonly string[];
      /** What it covered of the files under review; null for a critic that does not say (no `covers`). */
      readonly coverage: CriticCoverage | null;
    }
  | {
      readonly status: 'failed';
      readonly critic_id: string;
      readonly reason: CriticFailureReason;
      readonly message: string;
      readonly duration_ms: number;
      readonly notes: readonly string[];
      /** For `no_files_analysed`: what it covered, and why it analysed nothing; null otherwise. */
      readonly coverage: CriticCoverage | null;
      /** The error behind the failure, for logs (absent for "not configured"). */
      readonly error?: unknown;
    };

export interface RunCriticOptions {
  /** Defaults to the critic's own timeoutMs. */
  readonly timeoutMs?: number;
  /** How flagged lines are read for location hashes; defaults to the run's reader (inside the checkout). */
  readonly readFile?: FileReader;
  /** The critic is core for this run: analysing none of the files it supports is then a failure, not a report. */
  readonly core?: boolean;
  /**
   * The size bound an operator chose (files larger are not read). Absent: DEFAULT_MAX_FILE_BYTES,
   * and a file of the review skipped as too large keeps the round from counting as clean.
   */
  readonly maxFileBytes?: number;
}

/**
 * The run's context minus what runCritic supplies itself (the deadline signal, the note sink, the
 * reader and the coverage recorder). `repoFiles`, when given, is the checkout's file list (listed
 * once for several critics); otherwise it is listed from the checkout when a critic asks.
 */
export type RunCriticContext = Omit<CriticContext, 'signal' | 'note' | 'reader' | 'coverage' | 'repoFiles'> & {
  readonly signal?: AbortSignal;
  readonly repoFiles?: readonly string[];
};

function classify(error: unknown): { reason: CriticFailureReason; message: string } {
  if (error instanceof CriticTimedOutError) return { reason: 'timed_out', message: error.message };
  if (error instanceof CriticCancelledError) return { reason: 'unavailable', message: error.message };
  if (error instanceof CriticNotRunnableError) return { reason: 'not_runnable', message: error.message };
  if (error instanceof CriticOutputInvalidError) {
    return {
      reason: 'invalid_output',
      message: `${error.message} (${error.issues.map((i) => `${i.path}: ${i.message}`).join('; ')})`,
    };
  }
  if (error instanceof RloopError && error.code.endsWith('RATE_LIMITED'))
    return { reason: 'rate_limited', message: error.message };
  if (error instanceof RloopError && error.retryable) return { reason: 'unavailable', message: error.message };
  return { reason: 'crashed', message: describeError(error) };
}

/** A critic's context with the parts the plumbing owns: the reader of the checkout and the coverage marks. */
export interface PreparedContext {
  readonly context: CriticContext;
  readonly reader: RepoReader;
  readonly marks: CoverageMarks;
}

/**
 * Builds the context a critic runs with (runCritic does this for every run; call it directly only
 * to run a critic's own function outside runCritic, e.g. an LLM critic's review in a test): a
 * reader bounded by the checkout and the size bound, the coverage recorder, and the checkout's
 * file list (listed from the checkout when first asked, unless given).
 */
export function createCriticContext(
  context: RunCriticContext,
  run: { readonly signal: AbortSignal; readonly note?: (message: string) => void; readonly maxFileBytes?: number },
): PreparedContext {
  const { signal: _callerSignal, repoFiles: givenFiles, ...rest } = context;
  // The shell may read the clock (for the hash index's racy-file rule); critics never do.
  const reader = new RepoReader(context.repoDir, {
    index: FileHashIndex.open(context.cacheDir, Date.now()),
    ...(run.maxFileBytes === undefined ? {} : { maxFileBytes: run.maxFileBytes }),
  });
  const marks = new CoverageMarks();
  let listing: Promise<readonly string[]> | null = givenFiles === undefined ? null : Promise.resolve(givenFiles);
  return {
    context: {
      ...rest,
      signal: run.signal,
      ...(run.note === undefined ? {} : { note: run.note }),
      repoFiles: () => (listing ??= listCheckoutFiles(context.repoDir, run.signal)),
      reader,
      coverage: marks,
    },
    reader,
    marks,
  };
}

/**
 * Runs one critic with a deadline: the critic's signal is aborted when `timeoutMs` passes (or when
 * the caller's signal aborts) and the run is reported as failed at once, whatever the critic does
 * afterwards. A critic that did not run is never reported as "0 findings": not configured, not
 * runnable, crashed, timed out and invalid output are each a `failed` result with a reason, and so
 * is a core critic that analysed none of the files under review it supports.
 *
 * The critic reads the checkout through the context's reader (inside the checkout's boundary, up
 * to the size bound); what it read and what was refused, and why, becomes its coverage report.
 */
export async function runCritic(
  critic: CriticDefinition,
  context: RunCriticContext,
  options: RunCriticOptions = {},
): Promise<CriticRunResult> {
  const started = performance.now();
  const notes: string[] = [];
  const elapsed = (): number => Math.round(performance.now() - started);
  const failed = (reason: CriticFailureReason, message: string, error?: unknown): CriticRunResult => ({
    status: 'failed',
    critic_id: critic.id,
    reason,
    message,
    duration_ms: elapsed(),
    notes,
    coverage: null,
    ...(error === undefined ? {} : { error }),
  });

  const notConfigured = critic.notConfiguredReason?.() ?? null;
  if (notConfigured !== null) return failed('not_runnable', `not configured: ${notConfigured}`);

  const timeoutMs = options.timeoutMs ?? critic.timeoutMs;
  const controller = new AbortController();
  const parent = context.signal;
  const onParentAbort = (): void => controller.abort(new CriticCancelledError(critic.id, { cause: parent?.reason }));
  if (parent?.aborted === true) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new CriticTimedOutError(critic.id, timeoutMs)), timeoutMs);
  const deadline = new Promise<never>((_resolve, reject) => {
    const rejectWithReason = (): void => {
      const reason: unknown = controller.signal.reason;
      reject(reason instanceof Error ? reason : new CriticCancelledError(critic.id, { cause: reason }));
    };
    if (controller.signal.aborted) rejectWithReason();
    else controller.signal.addEventListener('abort', rejectWithReason, { once: true });
  });
  // The deadline promise is only awaited through the race below; a rejection after the critic won is expected.
  deadline.catch(() => undefined);

  const bound = options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes };
  const {
    context: runContext,
    reader,
    marks,
  } = createCriticContext(context, { signal: controller.signal, note: (message) => notes.push(message), ...bound });
  try {
    const running = Promise.resolve().then(() => critic.run(runContext));
    // Once the deadline won, the critic's own late result or rejection (usually the abort itself)
    // has nobody to report to: the run is already reported as timed out or cancelled.
    running.catch(() => undefined);
    const drafts = await Promise.race([running, deadline]);
    if (controller.signal.aborted) {
      const late: unknown = controller.signal.reason;
      const { reason, message } = classify(late);
      return failed(reason, message, late);
    }
    // Coverage is what the run itself read; reading flagged lines for the findings comes after it.
    const covers = critic.covers === undefined ? null : (file: string): boolean => critic.covers?.(file) === true;
    const coverage =
      covers === null
        ? null
        : coverageOf({
            files: context.files,
            covers,
            reader,
            marks,
            boundConfigured: options.maxFileBytes !== undefined,
          });
    if (options.core === true && coverage !== null && supportedCount(coverage) > 0 && coverage.analysed === 0) {
      return { ...failed('no_files_analysed', nothingAnalysedMessage(coverage)), coverage };
    }
    const findings = finalizeFindings(critic, drafts, options.readFile ?? ((file) => reader.read(file)));
    reader.saveIndex();
    return { status: 'reported', critic_id: critic.id, findings, duration_ms: elapsed(), notes, coverage };
  } catch (error) {
    // A critic that throws because its signal fired reports the deadline, not the abort error.
    const cause: unknown = controller.signal.aborted ? controller.signal.reason : error;
    const { reason, message } = classify(cause);
    return failed(reason, message, cause);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  }
}
