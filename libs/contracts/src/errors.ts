import type { z } from 'zod';
/** A problem with one field of some input: where (a JSON-ish path) and what is wrong. */
export interface Issue {
  readonly path: string;
  readonly message: string;
}

export interface RloopErrorOptions {
  readonly cause?: unknown;
  /** True when repeating the same call later may succeed (a version conflict, a 429, a lost connection). */
  readonly retryable?: boolean;
}

/**
 * The base of every error the project throws on purpose. `code` is stable and namespaced
 * (`'JOURNAL.VERSION_CONFLICT'`), so callers branch on it rather than on messages.
 */
export class RloopError extends Error {
  readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message: string, options: RloopErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** Input that does not satisfy a contract. Never retryable: the same input fails the same way. */
export class ValidationError extends RloopError {
  readonly issues: readonly Issue[];

  constructor(
    code: string,
    message: string,
    issues: readonly Issue[],
    options: Omit<RloopErrorOptions, 'retryable'> = {},
  ) {
    super(code, message, { ...options, retryable: false });
    this.issues = issues;
  }
}

/** A write lost a race or contradicts what is already recorded. */
export class ConflictError extends RloopError {}

/** Something that was asked for by id does not exist. */
export class NotFoundError extends RloopError {}

/** The operation is not allowed in the current state (a loop that already ended, a bad transition). */
export class IllegalStateError extends RloopError {}

/** A dependency failed in a way that is worth trying again (network, rate limit, timeout). */
export class TransientError extends RloopError {
  constructor(code: string, message: string, options: Omit<RloopErrorOptions, 'retryable'> = {}) {
    super(code, message, { ...options, retryable: true });
  }
}

/** Narrows an unknown thrown value to a message that is safe to log. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    // JSON.stringify returns undefined for undefined, functions and symbols.
    return JSON.stringify(error) ?? String(error);
  } catch {
    // BigInts and circular structures cannot be serialised; say what we can.
    return typeof error === 'object' && error !== null ? Object.prototype.toString.call(error) : String(error);
  }
}

/** Converts zod's issues into our path/message pairs. */
export function toIssues(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
}
