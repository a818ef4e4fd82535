import { type Issue, RloopError } from '@rloop/contracts';
import { redactSecrets } from './redact.js';
import type { UsageRecord } from './usage.js';

/** Stable codes of every error this library throws on purpose. */
export const LLM_ERROR_CODES = {
  rateLimited: 'LLM.RATE_LIMITED',
  overloaded: 'LLM.OVERLOADED',
  unavailable: 'LLM.UNAVAILABLE',
  timeout: 'LLM.TIMEOUT',
  aborted: 'LLM.ABORTED',
  auth: 'LLM.AUTH',
  spendLimit: 'LLM.SPEND_LIMIT',
  requestInvalid: 'LLM.REQUEST_INVALID',
  outputInvalid: 'LLM.OUTPUT_INVALID',
  outputTruncated: 'LLM.OUTPUT_TRUNCATED',
  refused: 'LLM.REFUSED',
  budgetExceeded: 'LLM.BUDGET_EXCEEDED',
  notConfigured: 'LLM.NOT_CONFIGURED',
  config: 'LLM.CONFIG_INVALID',
  pathOutsideWorktree: 'LLM.PATH_OUTSIDE_WORKTREE',
  commandNotAllowed: 'LLM.COMMAND_NOT_ALLOWED',
  git: 'LLM.GIT_FAILED',
} as const;
export type LlmErrorCode = (typeof LLM_ERROR_CODES)[keyof typeof LLM_ERROR_CODES];

export interface LlmErrorOptions {
  readonly cause?: unknown;
  readonly retryable?: boolean;
  /** What the dispatch had spent when it failed, so the caller can still record it. */
  readonly usage?: UsageRecord;
}

/**
 * The base of this library's errors. The message passes through `redactSecrets` here, so no
 * subclass or call site can forget it; `cause` is never a raw SDK error (those carry request
 * details we do not control): the client wraps them into a redacted plain Error first.
 */
export class LlmError extends RloopError {
  /** Spend of the failed dispatch up to the failure (tokens already billed), when known. */
  usage: UsageRecord | undefined;

  constructor(code: LlmErrorCode, message: string, options: LlmErrorOptions = {}) {
    super(code, redactSecrets(message), { cause: options.cause, retryable: options.retryable ?? false });
    this.usage = options.usage;
  }
}

/** What a 429 or 529 said: when to come back (if the server said) and how often it was tried. */
export interface RetryAfterDetails {
  readonly retryAfterMs: number | null;
  readonly attempts: number;
}

/** The API said "not now" (429, 529). Retryable: wait `retryAfterMs` (when the server said) and try again. */
export abstract class LlmRetryAfterError extends LlmError {
  readonly retryAfterMs: number | null;
  readonly attempts: number;

  protected constructor(
    code: typeof LLM_ERROR_CODES.rateLimited | typeof LLM_ERROR_CODES.overloaded,
    message: string,
    details: RetryAfterDetails,
    options: Omit<LlmErrorOptions, 'retryable'>,
  ) {
    super(code, message, { ...options, retryable: true });
    this.retryAfterMs = details.retryAfterMs;
    this.attempts = details.attempts;
  }
}

/** HTTP 429 from the API. */
export class LlmRateLimitedError extends LlmRetryAfterError {
  constructor(message: string, details: RetryAfterDetails, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.rateLimited, message, details, options);
  }
}

/** HTTP 529 (overloaded) from the API. */
export class LlmOverloadedError extends LlmRetryAfterError {
  constructor(message: string, details: RetryAfterDetails, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.overloaded, message, details, options);
  }
}

/** A 5xx other than 529, a lost connection or a request timeout. Retryable later. */
export class LlmUnavailableError extends LlmError {
  readonly status: number | null;
  readonly attempts: number;

  constructor(
    code: typeof LLM_ERROR_CODES.unavailable | typeof LLM_ERROR_CODES.timeout,
    message: string,
    details: { status: number | null; attempts: number },
    options: Omit<LlmErrorOptions, 'retryable'> = {},
  ) {
    super(code, message, { ...options, retryable: true });
    this.status = details.status;
    this.attempts = details.attempts;
  }
}

/** The caller aborted (deadline passed): not retried here. */
export class LlmAbortedError extends LlmError {
  constructor(message: string, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.aborted, message, { ...options, retryable: false });
  }
}

/** 401/403: the key is missing, wrong or lacks permission. Never retryable. */
export class LlmAuthError extends LlmError {
  constructor(message: string, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.auth, message, { ...options, retryable: false });
  }
}

/**
 * The account may not spend now: a spend limit (the tier's monthly cap, a 429 without retry-after;
 * one the organization or workspace set, a 400) or billing (402). Never retryable: retrying fails
 * until a person raises the limit, or the period resets — the message says which.
 */
export class LlmSpendLimitError extends LlmError {
  constructor(message: string, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.spendLimit, message, { ...options, retryable: false });
  }
}

/** 400/404/413/422: our request is wrong (a bug or an unsupported model feature). Never retryable. */
export class LlmRequestInvalidError extends LlmError {
  readonly status: number;

  constructor(message: string, status: number, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.requestInvalid, message, { ...options, retryable: false });
    this.status = status;
  }
}

/** The model's structured output failed validation twice (first reply and its one retry). */
export class LlmOutputInvalidError extends LlmError {
  readonly issues: readonly Issue[];

  constructor(message: string, issues: readonly Issue[], options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.outputInvalid, message, { ...options, retryable: false });
    this.issues = issues;
  }
}

/** The model hit max_tokens and could not finish within the allowed continuations. */
export class LlmOutputTruncatedError extends LlmError {
  constructor(message: string, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.outputTruncated, message, { ...options, retryable: false });
  }
}

/** The model declined (stop_reason `refusal`). */
export class LlmRefusedError extends LlmError {
  constructor(message: string, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.refused, message, { ...options, retryable: false });
  }
}

export const BUDGET_SCOPES = ['daily', 'plan', 'dispatch'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/** What was spent when a budget was reached; the panel turns it into an escalation (reason `budget`). */
export interface BudgetExceededDetails {
  readonly scope: BudgetScope;
  readonly limitUsd: number;
  readonly spentTodayUsd: number;
  readonly spentOnPlanUsd: number;
  readonly spentOnDispatchUsd: number;
  /** Upper-bound estimate of the call that was refused. */
  readonly estimateUsd: number;
}

/** Sending the next call could pass a budget. Not retryable: people raise the budget or stop. */
export class LlmBudgetExceededError extends LlmError {
  readonly details: BudgetExceededDetails;

  constructor(message: string, details: BudgetExceededDetails, options: Omit<LlmErrorOptions, 'retryable'> = {}) {
    super(LLM_ERROR_CODES.budgetExceeded, message, { ...options, retryable: false });
    this.details = details;
  }
}

/** The critic or strategy cannot run here (no API key, unknown model). */
export class LlmNotConfiguredError extends LlmError {
  constructor(message: string) {
    super(LLM_ERROR_CODES.notConfigured, message, { retryable: false });
  }
}

/** A configuration file or option is invalid (bad models.yaml, negative budget). */
export class LlmConfigError extends LlmError {
  readonly issues: readonly Issue[];

  constructor(message: string, issues: readonly Issue[] = []) {
    super(LLM_ERROR_CODES.config, message, { retryable: false });
    this.issues = issues;
  }
}

/** A file tool was asked for a path outside the worktree (`..`, absolute, a symlink out, `.git`). */
export class PathOutsideWorktreeError extends LlmError {
  readonly requested: string;

  constructor(requested: string, why: string) {
    super(LLM_ERROR_CODES.pathOutsideWorktree, `path ${JSON.stringify(requested.slice(0, 300))} is refused: ${why}`, {
      retryable: false,
    });
    this.requested = requested;
  }
}

/** A command that is not on the allowlist (the plan's test command and the configured linters). */
export class CommandNotAllowedError extends LlmError {
  readonly command: string;

  constructor(command: string, allowed: readonly string[]) {
    super(
      LLM_ERROR_CODES.commandNotAllowed,
      `command ${JSON.stringify(command.slice(0, 300))} is not allowed; allowed: ${allowed.map((c) => JSON.stringify(c)).join(', ') || '(none)'}`,
      { retryable: false },
    );
    this.command = command;
  }
}

/** A read-only git command failed in the worktree. */
export class GitCommandError extends LlmError {
  constructor(message: string) {
    super(LLM_ERROR_CODES.git, message, { retryable: false });
  }
}
