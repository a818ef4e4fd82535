import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Anthropic Messages API, for tests that drive the real SDK over HTTP.
 *
 * It speaks the wire format of POST /v1/messages (non-streaming) and POST
 * /v1/messages/count_tokens, answers from a script, validates requests the way the real API
 * does where our code could get it wrong (roles alternate, every tool_use answered by a
 * tool_result with its id, at most four cache breakpoints, an API key present, …), and reports
 * usage the way the real API does: tokens are a deterministic function of text length
 * (fakeTokens), and the prompt cache works on prefixes up to cache_control breakpoints with a TTL,
 * a 20-block lookback and a minimum cacheable length. Like the real API it answers `stream: true`
 * with server-sent events, and — with `timing` — takes time: a cache entry a request writes becomes
 * readable only when that request's response starts (after its time to first token), so requests
 * sent in parallel each pay the cache-write rate. Errors have the real kinds and bodies: a key it
 * does not know is a 401, a spend limit a 429 without retry-after whose `details.error_code` says
 * so (or a 400 for a workspace limit), rate limits and overload carry retry-after.
 */

// ── Script ──────────────────────────────────────────────────────────────────────────────────

export type FakeContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly name: string; readonly input: unknown; readonly id?: string }
  /** An (omitted-display) thinking block, as models with adaptive thinking return first. */
  | { readonly type: 'thinking'; readonly thinking?: string };

export const FAKE_STOP_REASONS = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'refusal',
  'stop_sequence',
  'pause_turn',
  'model_context_window_exceeded',
] as const;
export type FakeStopReason = (typeof FAKE_STOP_REASONS)[number];

/** A successful reply. stop_reason defaults to tool_use when a tool_use block is present, else end_turn. */
export interface FakeReply {
  readonly kind: 'reply';
  readonly content: readonly FakeContentBlock[];
  readonly stop_reason?: FakeStopReason;
  /** Overrides the computed output token count. */
  readonly output_tokens?: number;
}

/** An error response (429, 529, 500, …) with optional retry-after headers. */
export interface FakeError {
  readonly kind: 'error';
  readonly status: number;
  /** The API's error type: rate_limit_error, overloaded_error, api_error, … */
  readonly errorType: string;
  readonly message?: string;
  readonly retryAfterSeconds?: number;
  readonly retryAfterMs?: number;
  /** The error object's `details` (the Messages API puts `error_code` there, e.g. enforced_spend_limit_reached). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export type FakeTurn = FakeReply | FakeError;

/** The parsed body of a messages request, handed to script functions. */
export interface FakeMessagesRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: unknown;
  readonly messages: readonly { readonly role: string; readonly content: unknown }[];
  readonly tools?: readonly Record<string, unknown>[];
  readonly tool_choice?: { readonly type: string; readonly name?: string };
  readonly [key: string]: unknown;
}

export type FakeStep = FakeTurn | ((request: FakeMessagesRequest, index: number) => FakeTurn);
export type FakeScript = readonly FakeStep[] | ((request: FakeMessagesRequest, index: number) => FakeTurn);

/** Builders for scripted turns. */
export const fakeTurn = {
  text(text: string, stopReason: FakeStopReason = 'end_turn'): FakeReply {
    return { kind: 'reply', content: [{ type: 'text', text }], stop_reason: stopReason };
  },
  toolUse(
    name: string,
    input: unknown,
    options: { readonly text?: string; readonly thinking?: boolean } = {},
  ): FakeReply {
    return {
      kind: 'reply',
      content: [
        ...(options.thinking === true ? [{ type: 'thinking' as const }] : []),
        ...(options.text === undefined ? [] : [{ type: 'text' as const, text: options.text }]),
        { type: 'tool_use', name, input },
      ],
    };
  },
  toolUses(calls: readonly { readonly name: string; readonly input: unknown }[]): FakeReply {
    return { kind: 'reply', content: calls.map((c) => ({ type: 'tool_use' as const, name: c.name, input: c.input })) };
  },
  maxTokens(content: readonly FakeContentBlock[] | string): FakeReply {
    return {
      kind: 'reply',
      content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      stop_reason: 'max_tokens',
    };
  },
  rateLimited(retryAfterSeconds?: number): FakeError {
    return {
      kind: 'error',
      status: 429,
      errorType: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit',
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    };
  },
  overloaded(retryAfterSeconds?: number): FakeError {
    return {
      kind: 'error',
      status: 529,
      errorType: 'overloaded_error',
      message: 'Overloaded',
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    };
  },
  serverError(status = 500, message = 'Internal server error'): FakeError {
    return { kind: 'error', status, errorType: 'api_error', message };
  },
  /** The organization's tier reached its monthly spend cap: a 429 without retry-after, told apart by details.error_code. */
  spendLimit(): FakeError {
    return {
      kind: 'error',
      status: 429,
      errorType: 'rate_limit_error',
      message:
        "Your organization has reached its usage tier's monthly spend limit. API usage resumes on 2026-12-01 at 00:00 UTC.",
      details: { error_code: 'enforced_spend_limit_reached' },
    };
  },
  /** A spend limit the operator set on the organization or workspace: a 400. */
  workspaceSpendLimit(): FakeError {
    return {
      kind: 'error',
      status: 400,
      errorType: 'invalid_request_error',
      message:
        'You have reached your specified workspace API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.',
    };
  },
  billing(): FakeError {
    return {
      kind: 'error',
      status: 402,
      errorType: 'billing_error',
      message: 'Your credit balance is too low to access the Anthropic API.',
    };
  },
  permission(): FakeError {
    return {
      kind: 'error',
      status: 403,
      errorType: 'permission_error',
      message: 'Your API key does not have permission to use the specified resource.',
    };
  },
  /** A reply cut off because input and output filled the model's context window. */
  contextWindowExceeded(content: readonly FakeContentBlock[] | string): FakeReply {
    return {
      kind: 'reply',
      content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      stop_reason: 'model_context_window_exceeded',
    };
  },
  /** A turn the model paused (a long server-side loop): the client sends it back as it is to continue. */
  pauseTurn(content: readonly FakeContentBlock[] | string): FakeReply {
    return {
      kind: 'reply',
      content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      stop_reason: 'pause_turn',
    };
  },
  refusal(text = 'I cannot help with that.'): FakeReply {
    return { kind: 'reply', content: [{ type: 'text', text }], stop_reason: 'refusal' };
  },
};

// ── Server ──────────────────────────────────────────────────────────────────────────────────

export interface FakeAnthropicOptions {
  readonly script: FakeScript;
  /** Prefixes shorter than this are never cached (the real API: 1024 for Sonnet/Opus). */
  readonly minCacheableTokens?: number;
  /** Clock for cache TTLs; default Date.now. A benchmark advances it to simulate time between rounds. */
  readonly now?: () => number;
  /** When set, any other model gets a 404 not_found_error. */
  readonly knownModels?: readonly string[];
  /** Models that answer tool_choice any/tool with a 400 (Opus 5.5, Sonnet 5.5, Fable 5.1). */
  readonly rejectForcedToolChoice?: readonly string[];
  /** The keys it knows; any other gets a 401 authentication_error. Default: any non-empty key. */
  readonly apiKeys?: readonly string[];
  /**
   * How long a reply takes (real time): its response starts after `timeToFirstTokenMs` — when the
   * cache entries it wrote become readable — and ends after its output at `outputTokensPerSecond`.
   * Default: at once.
   */
  readonly timing?: FakeTiming;
}

export interface FakeTiming {
  readonly timeToFirstTokenMs: number | ((request: FakeMessagesRequest) => number);
  readonly outputTokensPerSecond?: number;
}

export interface FakeUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
}

export interface FakeRecordedRequest {
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The credential the request carried (x-api-key, or Authorization: Bearer as SDK 1.x sends it). */
  readonly apiKey: string | null;
  readonly body: unknown;
  readonly status: number;
  readonly response: unknown;
}

export interface FakeAnthropic {
  /** The origin to give the SDK as baseURL. */
  readonly url: string;
  /** Every request in arrival order, with the answer given. */
  readonly requests: readonly FakeRecordedRequest[];
  /** Requests the fake rejected as malformed (400/401/404 it produced itself, script exhaustion). */
  readonly protocolErrors: readonly string[];
  /** Only the POST /v1/messages requests that got a 200. */
  messageCalls(): readonly { readonly body: FakeMessagesRequest; readonly usage: FakeUsage }[];
  /** Script steps not yet used (0 when the script is a function). */
  remaining(): number;
  close(): Promise<void>;
}

/** The fake's token count for a piece of text: one token per four characters, rounded up. */
export function fakeTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

// Each message adds a few tokens for its role marker, like the real tokenizer's framing.
const MESSAGE_OVERHEAD_TOKENS = 3;
const MAX_BREAKPOINTS = 4;
const LOOKBACK_BLOCKS = 20;
const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

class ProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

interface LinearBlock {
  readonly key: string;
  readonly tokens: number;
  readonly ttl: keyof typeof TTL_MS | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutCacheControl(block: Record<string, unknown>): Record<string, unknown> {
  const { cache_control: _ignored, ...rest } = block;
  return rest;
}

function ttlOf(block: Record<string, unknown>): keyof typeof TTL_MS | null {
  const control = block['cache_control'];
  if (!isRecord(control)) return null;
  if (control['type'] !== 'ephemeral')
    throw new ProtocolError(400, 'invalid_request_error', 'cache_control.type: must be "ephemeral"');
  const ttl = control['ttl'] ?? '5m';
  if (ttl !== '5m' && ttl !== '1h')
    throw new ProtocolError(400, 'invalid_request_error', 'cache_control.ttl: must be "5m" or "1h"');
  return ttl;
}

function textOfToolResultContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((c) => (isRecord(c) && typeof c['text'] === 'string' ? c['text'] : '')).join('');
  return '';
}

function blockTokens(block: Record<string, unknown>): number {
  switch (block['type']) {
    case 'text':
      return fakeTokens(typeof block['text'] === 'string' ? block['text'] : '');
    case 'tool_use':
      return fakeTokens(`${String(block['name'])}${JSON.stringify(block['input'] ?? {})}`);
    case 'tool_result':
      return fakeTokens(textOfToolResultContent(block['content']));
    case 'thinking':
      return fakeTokens(typeof block['thinking'] === 'string' ? block['thinking'] : '');
    default:
      return fakeTokens(JSON.stringify(block));
  }
}

/** Validates a messages / count_tokens body and returns it as the prompt's linear block sequence. */
function linearize(
  body: Record<string, unknown>,
  signatures: ReadonlySet<string>,
  options: FakeAnthropicOptions,
  countOnly: boolean,
): { blocks: LinearBlock[]; request: FakeMessagesRequest } {
  const bad = (message: string): never => {
    throw new ProtocolError(400, 'invalid_request_error', message);
  };
  const model = body['model'];
  if (typeof model !== 'string' || model.trim() === '') bad('model: Field required');
  if (options.knownModels !== undefined && !options.knownModels.includes(model as string)) {
    throw new ProtocolError(404, 'not_found_error', `model: ${String(model)}`);
  }
  if (!countOnly) {
    const maxTokens = body['max_tokens'];
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)
      bad('max_tokens: must be a positive integer');
  }
  const blocks: LinearBlock[] = [];
  let breakpoints = 0;
  const push = (key: string, tokens: number, raw: Record<string, unknown> | null): void => {
    const ttl = raw === null ? null : ttlOf(raw);
    if (ttl !== null) breakpoints += 1;
    blocks.push({ key, tokens, ttl });
  };

  // Tools come first in the prompt, then the system prompt, then the messages.
  const tools = body['tools'];
  const toolNames = new Set<string>();
  if (tools !== undefined) {
    if (!Array.isArray(tools)) bad('tools: must be a list');
    for (const [i, tool] of (tools as unknown[]).entries()) {
      if (!isRecord(tool)) bad(`tools.${i}: must be an object`);
      const t = tool as Record<string, unknown>;
      const name = t['name'];
      if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(name))
        bad(`tools.${i}.name: must match ^[a-zA-Z0-9_-]{1,128}$`);
      if (toolNames.has(name as string)) bad(`tools: tool names must be unique (${String(name)})`);
      toolNames.add(name as string);
      const schema = t['input_schema'];
      if (!isRecord(schema) || schema['type'] !== 'object') bad(`tools.${i}.input_schema.type: must be "object"`);
      const rest = withoutCacheControl(t);
      push(`tool:${JSON.stringify(rest)}`, fakeTokens(JSON.stringify(rest)), t);
    }
  }
  const system = body['system'];
  if (typeof system === 'string') push(`system:${system}`, fakeTokens(system), null);
  else if (Array.isArray(system)) {
    for (const [i, block] of system.entries()) {
      if (!isRecord(block) || block['type'] !== 'text' || typeof block['text'] !== 'string')
        bad(`system.${i}: must be a text block`);
      const b = block as Record<string, unknown>;
      if ((b['text'] as string).length === 0) bad(`system.${i}.text: text content blocks must be non-empty`);
      push(`system:${JSON.stringify(withoutCacheControl(b))}`, blockTokens(b), b);
    }
  } else if (system !== undefined) bad('system: must be a string or a list of text blocks');

  const toolChoice = body['tool_choice'];
  if (toolChoice !== undefined) {
    if (!isRecord(toolChoice) || !['auto', 'any', 'tool', 'none'].includes(String(toolChoice['type'])))
      bad('tool_choice.type: must be auto, any, tool or none');
    const choice = toolChoice as Record<string, unknown>;
    if (choice['type'] === 'tool' && !toolNames.has(String(choice['name'])))
      bad(`tool_choice.name: no tool named ${String(choice['name'])}`);
    if (
      (choice['type'] === 'tool' || choice['type'] === 'any') &&
      (options.rejectForcedToolChoice ?? []).includes(model as string)
    ) {
      bad(`tool_choice: forced tool use is not supported for model ${String(model)}; use tool_choice auto`);
    }
  }
  // Changing tool_choice invalidates the cached message blocks (not tools or system), as in the real API.
  blocks.push({ key: `tool_choice:${JSON.stringify(toolChoice ?? null)}`, tokens: 0, ttl: null });

  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) bad('messages: at least one message is required');
  let previousRole: string | null = null;
  let pendingToolUses: string[] = [];
  for (const [i, message] of (messages as unknown[]).entries()) {
    if (!isRecord(message)) bad(`messages.${i}: must be an object`);
    const m = message as Record<string, unknown>;
    const role = m['role'];
    if (role !== 'user' && role !== 'assistant') bad(`messages.${i}.role: must be "user" or "assistant"`);
    if (i === 0 && role !== 'user') bad('messages.0.role: the first message must use the "user" role');
    if (role === previousRole) bad(`messages.${i}: roles must alternate between "user" and "assistant"`);
    previousRole = role as string;
    const content = typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : m['content'];
    if (!Array.isArray(content) || content.length === 0)
      bad(`messages.${i}.content: must be a non-empty string or list`);
    const answered = new Set<string>();
    const toolUses: string[] = [];
    for (const [j, block] of (content as unknown[]).entries()) {
      if (!isRecord(block)) bad(`messages.${i}.content.${j}: must be an object`);
      const b = block as Record<string, unknown>;
      const type = b['type'];
      if (type === 'text') {
        if (typeof b['text'] !== 'string' || b['text'].length === 0)
          bad(`messages.${i}.content.${j}.text: text content blocks must be non-empty`);
      } else if (type === 'tool_use') {
        if (role !== 'assistant')
          bad(`messages.${i}.content.${j}: tool_use blocks may only appear in assistant messages`);
        if (typeof b['id'] !== 'string' || typeof b['name'] !== 'string' || !isRecord(b['input']))
          bad(`messages.${i}.content.${j}: tool_use needs id, name and an object input`);
        toolUses.push(b['id'] as string);
      } else if (type === 'tool_result') {
        if (role !== 'user') bad(`messages.${i}.content.${j}: tool_result blocks may only appear in user messages`);
        const id = b['tool_use_id'];
        if (typeof id !== 'string' || !pendingToolUses.includes(id)) {
          bad(
            `messages.${i}.content.${j}: unexpected tool_use_id ${JSON.stringify(id)} in tool_result; each tool_result must answer a tool_use of the previous assistant message`,
          );
        }
        answered.add(id as string);
      } else if (type === 'thinking') {
        if (role !== 'assistant')
          bad(`messages.${i}.content.${j}: thinking blocks may only appear in assistant messages`);
        if (typeof b['signature'] !== 'string' || !signatures.has(b['signature']))
          bad(
            `messages.${i}.content.${j}: invalid signature in thinking block (thinking blocks must be passed back unmodified)`,
          );
      } else if (type !== 'image' && type !== 'document') {
        bad(`messages.${i}.content.${j}.type: unsupported block type ${JSON.stringify(type)}`);
      }
      const rest = withoutCacheControl(b);
      const first = j === 0;
      push(
        `${first ? `${role as string}:` : ''}${JSON.stringify(rest)}`,
        blockTokens(b) + (first ? MESSAGE_OVERHEAD_TOKENS : 0),
        b,
      );
    }
    if (role === 'user' && pendingToolUses.length > 0) {
      const missing = pendingToolUses.filter((id) => !answered.has(id));
      if (missing.length > 0)
        bad(
          `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(', ')}`,
        );
    }
    if (role === 'assistant') pendingToolUses = toolUses;
    else pendingToolUses = [];
  }
  if (previousRole === 'assistant' && pendingToolUses.length > 0)
    bad('messages: the last assistant message has tool_use blocks without tool_result blocks');

  const topLevel = body['cache_control'];
  if (topLevel !== undefined) {
    // Automatic caching: the marker applies to the last cacheable block.
    const ttl = ttlOf({ cache_control: topLevel });
    const last = blocks.length - 1;
    const lastBlock = blocks[last];
    if (lastBlock !== undefined && lastBlock.ttl === null) {
      blocks[last] = { ...lastBlock, ttl };
      breakpoints += 1;
    }
  }
  if (breakpoints > MAX_BREAKPOINTS)
    bad(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
  return { blocks, request: body as unknown as FakeMessagesRequest };
}

interface CacheEntry {
  expiresAt: number;
  readonly ttlMs: number;
  /** False until the response of the request that wrote it starts (the real API's rule). */
  readable: boolean;
}

function prefixKeys(model: string, blocks: readonly LinearBlock[]): string[] {
  const keys: string[] = [];
  const hash = createHash('sha256').update(model);
  for (const block of blocks) {
    hash.update('\u0000').update(block.key);
    keys.push(hash.copy().digest('hex'));
  }
  return keys;
}

function computeUsage(
  model: string,
  blocks: readonly LinearBlock[],
  cache: Map<string, CacheEntry>,
  now: number,
  minCacheable: number,
): { usage: Omit<FakeUsage, 'output_tokens'>; written: CacheEntry[] } {
  const cumulative: number[] = [];
  let total = 0;
  for (const block of blocks) {
    total += block.tokens;
    cumulative.push(total);
  }
  const keys = prefixKeys(model, blocks);
  const breakpoints = blocks.flatMap((block, index) => (block.ttl === null ? [] : [index]));
  let hit = -1;
  for (const b of breakpoints) {
    for (let p = b; p >= Math.max(0, b - LOOKBACK_BLOCKS + 1); p -= 1) {
      const entry = cache.get(keys[p] ?? '');
      if (entry !== undefined && entry.readable && entry.expiresAt > now && p > hit) hit = p;
    }
  }
  const readTokens = hit >= 0 ? (cumulative[hit] ?? 0) : 0;
  if (hit >= 0) {
    const entry = cache.get(keys[hit] ?? '');
    if (entry !== undefined) entry.expiresAt = now + entry.ttlMs;
  }
  let written5m = 0;
  let written1h = 0;
  let writtenUpTo = readTokens;
  const written: CacheEntry[] = [];
  for (const b of breakpoints) {
    const end = cumulative[b] ?? 0;
    const ttl = blocks[b]?.ttl ?? '5m';
    if (b <= hit || end < minCacheable) continue;
    const key = keys[b] ?? '';
    const previous = cache.get(key);
    // A write still in flight (its response not started) stays unreadable; this one becomes readable when its own response starts.
    const entry: CacheEntry = {
      expiresAt: now + TTL_MS[ttl],
      ttlMs: TTL_MS[ttl],
      readable: previous !== undefined && previous.readable && previous.expiresAt > now,
    };
    cache.set(key, entry);
    written.push(entry);
    const segment = end - writtenUpTo;
    if (ttl === '1h') written1h += segment;
    else written5m += segment;
    writtenUpTo = end;
  }
  const creation = written5m + written1h;
  return {
    usage: {
      input_tokens: total - readTokens - creation,
      cache_creation_input_tokens: creation,
      cache_read_input_tokens: readTokens,
      cache_creation: { ephemeral_5m_input_tokens: written5m, ephemeral_1h_input_tokens: written1h },
    },
    written,
  };
}

/** Server-sent events of a message, as the streaming Messages API sends them. */
function streamEvents(
  message: {
    content: readonly Record<string, unknown>[];
    stop_reason: string;
    usage: Record<string, unknown>;
  } & Record<string, unknown>,
): string[] {
  const event = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: 1 },
      },
    }),
  ];
  message.content.forEach((block, index) => {
    if (block['type'] === 'tool_use') {
      events.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      events.push(
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block['input']) },
        }),
      );
    } else if (block['type'] === 'thinking') {
      events.push(
        event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      );
      events.push(
        event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block['thinking'] } }),
      );
      events.push(
        event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block['signature'] } }),
      );
    } else {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } }));
      events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: block['text'] } }));
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null },
      usage: { output_tokens: message.usage['output_tokens'] },
    }),
  );
  events.push(event('message_stop', {}));
  return events;
}

async function delay(ms: number): Promise<void> {
  if (ms > 0) await sleep(ms);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > 32 * 1024 * 1024) throw new ProtocolError(413, 'request_too_large', 'request body too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the fake on 127.0.0.1 and a free port. Close it in afterAll. */
export async function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeAnthropic> {
  const now = options.now ?? Date.now;
  const minCacheable = options.minCacheableTokens ?? 1024;
  const requests: FakeRecordedRequest[] = [];
  const protocolErrors: string[] = [];
  const calls: { body: FakeMessagesRequest; usage: FakeUsage }[] = [];
  const cache = new Map<string, CacheEntry>();
  const signatures = new Set<string>();
  let scriptIndex = 0;
  let idCounter = 0;
  const nextId = (prefix: string): string => {
    idCounter += 1;
    return `${prefix}_fake${String(idCounter).padStart(6, '0')}`;
  };

  const nextTurn = (request: FakeMessagesRequest): FakeTurn | null => {
    const index = scriptIndex;
    if (typeof options.script === 'function') {
      scriptIndex += 1;
      return options.script(request, index);
    }
    const step = options.script[index];
    if (step === undefined) return null;
    scriptIndex += 1;
    return typeof step === 'function' ? step(request, index) : step;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : (value ?? '');
    const bearer = /^Bearer\s+(\S+)$/i.exec(headers['authorization'] ?? '');
    const apiKey =
      (headers['x-api-key'] ?? '').trim() !== '' ? (headers['x-api-key'] ?? '').trim() : (bearer?.[1] ?? null);
    let parsed: unknown = null;
    const send = (status: number, payload: unknown, extraHeaders: Record<string, string> = {}): void => {
      requests.push({ path, headers, apiKey, body: parsed, status, response: payload });
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req'), ...extraHeaders });
      res.end(JSON.stringify(payload));
    };
    const sendError = (
      status: number,
      errorType: string,
      message: string,
      extraHeaders: Record<string, string> = {},
      details?: Readonly<Record<string, unknown>>,
    ): void => {
      send(
        status,
        {
          type: 'error',
          error: { type: errorType, message, ...(details === undefined ? {} : { details }) },
          request_id: nextId('req'),
        },
        extraHeaders,
      );
    };
    try {
      const raw = await readBody(req);
      if (req.method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) {
        throw new ProtocolError(404, 'not_found_error', `no route for ${req.method ?? '?'} ${path}`);
      }
      if (apiKey === null)
        throw new ProtocolError(
          401,
          'authentication_error',
          'an API key is required (x-api-key or Authorization: Bearer)',
        );
      if (options.apiKeys !== undefined && !options.apiKeys.includes(apiKey))
        throw new ProtocolError(401, 'authentication_error', 'invalid x-api-key');
      if ((headers['anthropic-version'] ?? '').trim() === '')
        throw new ProtocolError(400, 'invalid_request_error', 'anthropic-version header is required');
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new ProtocolError(400, 'invalid_request_error', 'body is not valid JSON');
      }
      if (!isRecord(parsed)) throw new ProtocolError(400, 'invalid_request_error', 'body must be a JSON object');
      const countOnly = path === '/v1/messages/count_tokens';
      const { blocks, request } = linearize(parsed, signatures, options, countOnly);
      if (countOnly) {
        send(200, { input_tokens: blocks.reduce((sum, b) => sum + b.tokens, 0) });
        return;
      }
      const turn = nextTurn(request);
      if (turn === null) {
        protocolErrors.push(`script exhausted at request ${calls.length + 1}`);
        sendError(500, 'api_error', 'fake script exhausted: no turn left for this request', {
          'x-should-retry': 'false',
        });
        return;
      }
      if (turn.kind === 'error') {
        const extra: Record<string, string> = {};
        if (turn.retryAfterSeconds !== undefined) extra['retry-after'] = String(turn.retryAfterSeconds);
        if (turn.retryAfterMs !== undefined) extra['retry-after-ms'] = String(turn.retryAfterMs);
        sendError(turn.status, turn.errorType, turn.message ?? turn.errorType, extra, turn.details);
        return;
      }
      const content = turn.content.map((block) => {
        if (block.type === 'tool_use')
          return { type: 'tool_use', id: block.id ?? nextId('toolu'), name: block.name, input: block.input };
        if (block.type === 'thinking') {
          const signature = nextId('sig');
          signatures.add(signature);
          return { type: 'thinking', thinking: block.thinking ?? '', signature };
        }
        return { type: 'text', text: block.text, citations: null };
      });
      const stopReason = turn.stop_reason ?? (content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn');
      const computed = computeUsage(request.model, blocks, cache, now(), minCacheable);
      const usage: FakeUsage = {
        ...computed.usage,
        output_tokens: turn.output_tokens ?? fakeTokens(JSON.stringify(content)),
      };
      calls.push({ body: request, usage });
      const message = {
        id: nextId('msg'),
        type: 'message',
        role: 'assistant',
        model: request.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        stop_details: null,
        container: null,
        diagnostics: null,
        usage: {
          ...usage,
          server_tool_use: null,
          service_tier: 'standard',
          inference_geo: null,
          output_tokens_details: null,
          speed: null,
        },
      };
      const firstToken =
        options.timing === undefined
          ? 0
          : typeof options.timing.timeToFirstTokenMs === 'function'
            ? options.timing.timeToFirstTokenMs(request)
            : options.timing.timeToFirstTokenMs;
      const generation =
        options.timing?.outputTokensPerSecond === undefined
          ? 0
          : Math.round((usage.output_tokens / options.timing.outputTokensPerSecond) * 1000);
      await delay(firstToken);
      // The response starts: what this request wrote into the cache is readable from now on.
      for (const entry of computed.written) entry.readable = true;
      if (parsed['stream'] === true) {
        requests.push({ path, headers, apiKey, body: parsed, status: 200, response: message });
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          'request-id': nextId('req'),
        });
        const [start, ...rest] = streamEvents(message);
        res.write(start ?? '');
        await delay(generation);
        res.end(rest.join(''));
        return;
      }
      await delay(generation);
      send(200, message);
    } catch (error) {
      if (error instanceof ProtocolError) {
        protocolErrors.push(`${error.status} ${error.errorType}: ${error.message}`);
        sendError(error.status, error.errorType, error.message);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      protocolErrors.push(`500 fake failure: ${message}`);
      sendError(500, 'api_error', `fake failure: ${message}`, { 'x-should-retry': 'false' });
    }
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    protocolErrors,
    messageCalls: () => calls,
    remaining: () => (typeof options.script === 'function' ? 0 : options.script.length - scriptIndex),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
