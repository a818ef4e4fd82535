import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type CRITIC_FAILURE_REASONS, type Finding, RloopError, describeError } from '@rloop/contracts';

/** Why a critic run produced no report (the contract's CriticFailed reasons). */
export type CriticFailureReason = (typeof CRITIC_FAILURE_REASONS)[number];
import type { CriticContext, CriticDefinition } from '../critic.js';
import { CriticCancelledError, CriticNotRunnableError, CriticOutputInvalidError, CriticTimedOutError } from '../errors.js';
import { type FileReader, finalizeFindings } from './finalize.js';

/** The outcome of one critic run: findings from a critic that ran, or why it did not. */
export type CriticRunResult =
  | {
      readonly status: 'reported';
      readonly critic_id: string;
      readonly findings: readonly Finding[];
      readonly duration_ms: number;
      readonly notes: readonly string[];
    }
  | {
      readonly status: 'failed';
      readonly critic_id: string;
      readonly reason: CriticFailureReason;
      readonly message: string;
      readonly duration_ms: number;
      readonly notes: readonly string[];
      /** The error behind the failure, for logs (absent for "not configured"). */
      readonly error?: unknown;
    };

export interface RunCriticOptions {
  /** Defaults to the critic's own timeoutMs. */
  readonly timeoutMs?: number;
  /** How flagged lines are read for location hashes; defaults to reading from context.repoDir. */
  readonly readFile?: FileReader;
}

/** The run's context minus what runCritic supplies itself (the deadline signal and the note sink). */
export type RunCriticContext = Omit<CriticContext, 'signal' | 'note'> & { readonly signal?: AbortSignal };

/** Reads repo-relative files from a checkout, null when a file cannot be read. */
export function repoFileReader(repoDir: string): FileReader {
  return (file) => {
    try {
      return readFileSync(join(repoDir, file), 'utf8');
    } catch {
      // A finding may point at a file that is gone (a deleted migration); its hash is then of no lines.
      return null;
    }
  };
}

function classify(error: unknown): { reason: CriticFailureReason; message: string } {
  if (error instanceof CriticTimedOutError) return { reason: 'timed_out', message: error.message };
  if (error instanceof CriticCancelledError) return { reason: 'unavailable', message: error.message };
  if (error instanceof CriticNotRunnableError) return { reason: 'not_runnable', message: error.message };
  if (error instanceof CriticOutputInvalidError) {
    return { reason: 'invalid_output', message: `${error.message} (${error.issues.map((i) => `${i.path}: ${i.message}`).join('; ')})` };
  }
  if (error instanceof RloopError && error.code.endsWith('RATE_LIMITED')) return { reason: 'rate_limited', message: error.message };
  if (error instanceof RloopError && error.retryable) return { reason: 'unavailable', message: error.message };
  return { reason: 'crashed', message: describeError(error) };
}

/**
 * Runs one critic with a deadline: the critic's signal is aborted when `timeoutMs` passes (or when
 * the caller's signal aborts) and the run is reported as failed at once, whatever the critic does
 * afterwards. A critic that did not run is never reported as "0 findings": not configured, not
 * runnable, crashed, timed out and invalid output are each a `failed` result with a reason.
 */
export async function runCritic(critic: CriticDefinition, context: RunCriticContext, options: RunCriticOptions = {}): Promise<CriticRunResult> {
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

  const { signal: _parentSignal, ...rest } = context;
  const runContext: CriticContext = { ...rest, signal: controller.signal, note: (message) => notes.push(message) };
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
    const findings = finalizeFindings(critic, drafts, options.readFile ?? repoFileReader(context.repoDir));
    return { status: 'reported', critic_id: critic.id, findings, duration_ms: elapsed(), notes };
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
