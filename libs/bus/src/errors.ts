import { type Issue, RloopError, TransientError, ValidationError } from '@rloop/contracts';

/** Stable codes of the errors this library raises or writes into dead letters and error replies. */
export const BUS_ERROR_CODES = {
  connectFailed: 'BUS.CONNECT_FAILED',
  authFailed: 'BUS.AUTH_FAILED',
  permissionDenied: 'BUS.PERMISSION_DENIED',
  invalidOptions: 'BUS.INVALID_OPTIONS',
  invalidHandler: 'BUS.INVALID_HANDLER',
  provisionFailed: 'BUS.PROVISION_FAILED',
  notConnected: 'BUS.NOT_CONNECTED',
  publishFailed: 'BUS.PUBLISH_FAILED',
  patternMismatch: 'BUS.PATTERN_MISMATCH',
  requestTimeout: 'BUS.REQUEST_TIMEOUT',
  noResponders: 'BUS.NO_RESPONDERS',
  requestFailed: 'BUS.REQUEST_FAILED',
  invalidReply: 'BUS.INVALID_REPLY',
  notUtf8: 'BUS.NOT_UTF8',
  notJson: 'BUS.NOT_JSON',
  bodyTooLarge: 'BUS.BODY_TOO_LARGE',
  subjectMismatch: 'BUS.SUBJECT_MISMATCH',
  maxDeliver: 'BUS.MAX_DELIVER',
  handlerCrashed: 'BUS.HANDLER_CRASHED',
  unserializableReply: 'BUS.UNSERIALIZABLE_REPLY',
  replyTooLarge: 'BUS.REPLY_TOO_LARGE',
  retryLater: 'BUS.RETRY_LATER',
} as const;
export type BusErrorCode = (typeof BUS_ERROR_CODES)[keyof typeof BUS_ERROR_CODES];

/**
 * Thrown by a handler that cannot act yet and wants the same message back after `delayMs`
 * (a durable timer: the message is nak'd with exactly that delay). Not a failure: it is logged
 * at debug level, does not hold back the message's plan, and is not counted towards maxDeliver
 * by the process that parked it.
 */
export class RetryLaterError extends RloopError {
  readonly delayMs: number;
  readonly reason: string;

  constructor(delayMs: number, reason: string) {
    super(BUS_ERROR_CODES.retryLater, `retry in ${Math.round(delayMs)} ms: ${reason}`, { retryable: true });
    if (!Number.isFinite(delayMs) || delayMs < 0)
      throw new RangeError(`RetryLaterError delay must be a finite number of ms >= 0, got ${delayMs}`);
    this.delayMs = Math.round(delayMs);
    this.reason = reason;
  }
}

/** NATS could not be reached within the start bound. The service should exit non-zero. */
export class BusConnectionError extends TransientError {
  readonly servers: readonly string[];
  readonly attempts: number;

  constructor(
    servers: readonly string[],
    attempts: number,
    elapsedMs: number,
    options: { readonly cause?: unknown } = {},
  ) {
    super(
      BUS_ERROR_CODES.connectFailed,
      `could not connect to NATS at ${servers.join(', ')} after ${attempts} attempt(s) in ${Math.round(elapsedMs)} ms`,
      options,
    );
    this.servers = servers;
    this.attempts = attempts;
  }
}

/**
 * NATS refused who the client says it is (Authorization Violation, an expired user JWT), or the
 * TLS handshake failed (an unknown CA, a missing or rejected client certificate). Trying again with
 * the same settings cannot help, so a service exits at once, naming the credentials it used.
 */
export class BusAuthError extends RloopError {
  readonly servers: readonly string[];

  constructor(servers: readonly string[], message: string, options: { readonly cause?: unknown } = {}) {
    super(BUS_ERROR_CODES.authFailed, message, { ...options, retryable: false });
    this.servers = servers;
  }
}

/**
 * NATS refused a publish or request because this client's user may not publish to the subject
 * (its permissions, docs/security.md). Never retryable: the same user is refused again.
 */
export class BusPermissionError extends RloopError {
  readonly subject: string;

  constructor(subject: string, options: { readonly cause?: unknown } = {}) {
    super(BUS_ERROR_CODES.permissionDenied, `NATS refused: this client's user may not publish to ${subject}`, {
      ...options,
      retryable: false,
    });
    this.subject = subject;
  }
}

/** A publish reached no stream, timed out or was refused by the server. Retrying may help. */
export class BusPublishError extends TransientError {
  readonly subject: string;

  constructor(subject: string, message: string, options: { readonly cause?: unknown } = {}) {
    super(BUS_ERROR_CODES.publishFailed, `publish to ${subject} failed: ${message}`, options);
    this.subject = subject;
  }
}

/** A core request got no reply in time, or nobody listens on its subject. */
export class BusRequestError extends TransientError {
  readonly subject: string;

  constructor(
    code:
      | typeof BUS_ERROR_CODES.requestTimeout
      | typeof BUS_ERROR_CODES.noResponders
      | typeof BUS_ERROR_CODES.requestFailed,
    subject: string,
    message: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.subject = subject;
  }
}

/**
 * The responder answered with an error reply (`{status:'error', code, message}`). `code` is the
 * responder's code (e.g. `JOURNAL.NOT_FOUND`), so callers branch on it as if it were local.
 */
export class RemoteError extends RloopError {
  readonly subject: string;
  readonly issues: readonly Issue[];

  constructor(subject: string, code: string, message: string, retryable: boolean, issues: readonly Issue[]) {
    super(code, message, { retryable });
    this.subject = subject;
    this.issues = issues;
  }
}

/** The responder's dependency is down (it failed with a TransientError): the caller's outage too. */
export class RemoteTransientError extends TransientError {
  readonly subject: string;

  constructor(subject: string, code: string, message: string) {
    super(code, message);
    this.subject = subject;
  }
}

/** Bad options or a badly declared handler: a programming error found at start. */
export class BusConfigError extends ValidationError {}
