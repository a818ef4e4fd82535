import { setTimeout as delay } from 'node:timers/promises';
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import type {
  Message,
  MessageCountTokensParams,
  MessageCreateParamsNonStreaming,
} from '@anthropic-ai/sdk/resources/messages';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmConfigError,
  type LlmError,
  LlmOverloadedError,
  LlmRateLimitedError,
  LlmRequestInvalidError,
  LlmSpendLimitError,
  LlmUnavailableError,
  LLM_ERROR_CODES,
} from './errors.js';
import { redactSecrets, registerSecret } from './redact.js';
import {
  classifyStatus,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type FailureKind,
  parseRetryAfterMs,
  type RetryPolicy,
} from './retry.js';

/** A request to the Messages API without the model (the client is bound to one). */
export type LlmMessageRequest = Omit<MessageCreateParamsNonStreaming, 'model' | 'stream'>;
export type LlmCountRequest = Omit<MessageCountTokensParams, 'model'>;

export interface LlmCallOptions {
  /** Aborts the request and any retry wait (a critic's deadline). */
  readonly signal?: AbortSignal;
  /**
   * Called once, when the response starts (the request is then sent streaming): from that moment
   * the prompt-cache entries it writes are readable by other requests (see cache-warmup.ts).
   */
  readonly onResponseStart?: () => void;
}

/**
 * The narrow port every LLM feature here depends on: one model, two calls. Tests and services get
 * one from createAnthropicClient; nothing else in the library touches the SDK.
 */
export interface LlmClient {
  readonly model: string;
  /** POST /v1/messages (non-streaming), with bounded retries on 429/529/5xx. */
  createMessage(request: LlmMessageRequest, options?: LlmCallOptions): Promise<Message>;
  /** POST /v1/messages/count_tokens: the input tokens the request would bill. */
  countTokens(request: LlmCountRequest, options?: LlmCallOptions): Promise<number>;
}

/** Where log lines go. Every line passes through redactSecrets first. */
export interface LlmLogger {
  warn(message: string): void;
  info?(message: string): void;
}

export interface AnthropicClientOptions {
  readonly apiKey: string;
  /** The API's origin; tests point it at the fake server. Default https://api.anthropic.com. */
  readonly baseURL?: string;
  readonly model: string;
  /** Retries after the first request for 429, 529, 5xx, timeouts and lost connections. */
  readonly maxRetries: number;
  /** Timeout of one HTTP request. */
  readonly timeoutMs: number;
  /** A retry-after longer than this ends the call (retryable error) instead of waiting. Default 60 s. */
  readonly maxRetryAfterMs?: number;
  /** Injected for tests; default a real timer that honours the abort signal. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1); default Math.random. */
  readonly random?: () => number;
  /** Clock for HTTP-date retry-after headers; default Date.now. */
  readonly now?: () => number;
  readonly logger?: LlmLogger;
}

/** The public shape of a factory, so callers can inject their own (or a recording one) into critics. */
export type LlmClientFactory = (options: AnthropicClientOptions) => LlmClient;

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, signal === undefined ? undefined : { signal });
}

interface Failure {
  readonly kind: FailureKind;
  readonly status: number | null;
  readonly retryAfterMs: number | null;
  readonly message: string;
  /** The error body's type (`authentication_error`, `rate_limit_error`, …), for what to tell a person. */
  readonly errorType: string | null;
}

function describeFailure(error: unknown, nowMs: number, signal: AbortSignal | undefined): Failure {
  if (error instanceof APIUserAbortError || signal?.aborted === true) {
    return { kind: 'aborted', status: null, retryAfterMs: null, message: 'the request was aborted', errorType: null };
  }
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: 'timeout', status: null, retryAfterMs: null, message: 'the request timed out', errorType: null };
  }
  if (error instanceof APIConnectionError) {
    return {
      kind: 'unavailable',
      status: null,
      retryAfterMs: null,
      message: `connection failed: ${error.message}`,
      errorType: null,
    };
  }
  if (error instanceof APIError) {
    const status: unknown = error.status;
    // instanceof narrows APIError's type parameters to any; the response headers are a Headers or absent.
    const headers = error.headers as Headers | undefined;
    const retryAfterMs = headers === undefined ? null : parseRetryAfterMs((name) => headers.get(name), nowMs);
    const requestId = error.requestID === null || error.requestID === undefined ? '' : ` (request ${error.requestID})`;
    const code = typeof status === 'number' ? status : null;
    const body = { type: error.type, message: error.apiMessage, errorCode: error.errorCode };
    return {
      kind: classifyStatus(code, body),
      status: code,
      retryAfterMs,
      message: `${error.message}${requestId}`,
      errorType: error.type,
    };
  }
  return {
    kind: 'invalid',
    status: null,
    retryAfterMs: null,
    message: error instanceof Error ? error.message : String(error),
    errorType: null,
  };
}

/** What a person does about an error no retry fixes, in one sentence (the errors page of the API's docs). */
function remedy(failure: Failure): string {
  if (failure.status === 401)
    return 'the Anthropic API refused the key: set ANTHROPIC_API_KEY to a valid key (it may be mistyped, revoked or expired) and restart the service';
  if (failure.status === 403)
    return "the key may not use this model or resource: check the workspace's access in the Claude Console, or choose another model in config/models.yaml";
  if (failure.status === 402 || failure.errorType === 'billing_error')
    return 'the account has a billing problem: check the payment details or the credit balance in the Claude Console';
  if (failure.status === 429)
    return "the organization reached its usage tier's monthly spend limit: move to a higher tier in the Claude Console, or wait until it resets (retrying fails until then)";
  return 'a spend limit set on the organization or workspace is reached: raise it in the Claude Console, or wait until it resets (retrying fails until then)';
}

function toLlmError(failure: Failure, attempts: number, what: string): LlmError {
  // The SDK error is not passed as cause (it carries request details); a redacted summary is.
  const message = `${what} failed after ${attempts} attempt(s): ${redactSecrets(failure.message).slice(0, 1000)}`;
  const cause = new Error(message);
  switch (failure.kind) {
    case 'rate_limited':
      return new LlmRateLimitedError(message, { retryAfterMs: failure.retryAfterMs, attempts }, { cause });
    case 'overloaded':
      return new LlmOverloadedError(message, { retryAfterMs: failure.retryAfterMs, attempts }, { cause });
    case 'unavailable':
      return new LlmUnavailableError(
        LLM_ERROR_CODES.unavailable,
        message,
        { status: failure.status, attempts },
        { cause },
      );
    case 'timeout':
      return new LlmUnavailableError(LLM_ERROR_CODES.timeout, message, { status: failure.status, attempts }, { cause });
    case 'aborted':
      return new LlmAbortedError(message, { cause });
    case 'auth':
      return new LlmAuthError(`${message} — ${remedy(failure)}`, { cause });
    case 'spend_limit':
      return new LlmSpendLimitError(`${message} — ${remedy(failure)}`, { cause });
    case 'invalid':
      return new LlmRequestInvalidError(message, failure.status ?? 0, { cause });
  }
}

/**
 * Builds an LlmClient on the real Anthropic SDK. The SDK's own retries are off (maxRetries 0):
 * this client retries 429, 529, 5xx and timeouts itself, honouring retry-after up to a bound, so
 * the behaviour is the same whatever the SDK version does and a long retry-after never holds a
 * worker. The key is registered with redactSecrets and never leaves the closure.
 */
export function createAnthropicClient(options: AnthropicClientOptions): LlmClient {
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')
    throw new LlmConfigError('an Anthropic API key is required');
  if (!Number.isInteger(options.maxRetries) || options.maxRetries < 0 || options.maxRetries > 10) {
    throw new LlmConfigError(`maxRetries must be an integer from 0 to 10, got ${options.maxRetries}`);
  }
  if (!Number.isInteger(options.timeoutMs) || options.timeoutMs < 1)
    throw new LlmConfigError(`timeoutMs must be a positive integer, got ${options.timeoutMs}`);
  registerSecret(options.apiKey);
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    maxRetries: options.maxRetries,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
  };
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const log = options.logger;
  const logLine = (message: string): void => log?.warn(redactSecrets(message));

  const sdk = new Anthropic({
    apiKey: options.apiKey,
    // Explicit values, so the SDK does not fall back to ANTHROPIC_BASE_URL & co. (libraries never read the environment).
    baseURL: options.baseURL ?? 'https://api.anthropic.com',
    authToken: null,
    webhookKey: null,
    maxRetries: 0,
    timeout: options.timeoutMs,
    openTelemetry: false,
    logLevel: log === undefined ? 'off' : 'warn',
    logger: {
      error: (message: string) => logLine(message),
      warn: (message: string) => logLine(message),
      info: (message: string) => log?.info?.(redactSecrets(message)),
      debug: () => undefined,
    },
  });

  async function withRetries<T>(what: string, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await run();
      } catch (error) {
        const failure = describeFailure(error, now(), signal);
        if (failure.kind === 'aborted') throw toLlmError(failure, attempt, what);
        const decision = decideRetry({
          kind: failure.kind,
          attempt,
          retryAfterMs: failure.retryAfterMs,
          policy,
          random: random(),
        });
        if (!decision.retry) throw toLlmError(failure, attempt, what);
        logLine(
          `${what}: ${failure.kind} (status ${failure.status ?? 'none'}), retrying in ${decision.delayMs} ms (attempt ${attempt + 1} of ${policy.maxRetries + 1})`,
        );
        try {
          await sleep(decision.delayMs, signal);
        } catch (sleepError) {
          if (signal?.aborted === true) throw new LlmAbortedError(`${what} was aborted while waiting to retry`);
          throw sleepError;
        }
      }
    }
  }

  /** One request, streaming when the caller wants to know when the response starts. */
  async function send(
    request: LlmMessageRequest,
    callOptions: LlmCallOptions,
    started: { value: boolean },
  ): Promise<Message> {
    const requestOptions = callOptions.signal === undefined ? undefined : { signal: callOptions.signal };
    if (callOptions.onResponseStart === undefined)
      return sdk.messages.create({ ...request, model: options.model, stream: false }, requestOptions);
    const stream = sdk.messages.stream({ ...request, model: options.model }, requestOptions);
    stream.on('streamEvent', (event) => {
      if (event.type !== 'message_start' || started.value) return;
      started.value = true;
      callOptions.onResponseStart?.();
    });
    return await stream.finalMessage();
  }

  return Object.freeze({
    model: options.model,
    createMessage: (request: LlmMessageRequest, callOptions: LlmCallOptions = {}) => {
      const started = { value: false };
      return withRetries('messages.create', callOptions.signal, () => send(request, callOptions, started));
    },
    countTokens: async (request: LlmCountRequest, callOptions: LlmCallOptions = {}) => {
      const counted = await withRetries('messages.countTokens', callOptions.signal, () =>
        sdk.messages.countTokens(
          { ...request, model: options.model },
          callOptions.signal === undefined ? undefined : { signal: callOptions.signal },
        ),
      );
      return counted.input_tokens;
    },
  });
}
