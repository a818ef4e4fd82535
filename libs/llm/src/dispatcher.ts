import type {
  CacheControlEphemeral,
  ContentBlock,
  ContentBlockParam,
  Message,
  TextBlockParam,
  UserMessageParam,
  AssistantMessageParam,
} from '@anthropic-ai/sdk/resources/messages';
import { type BudgetState, checkBudgetOrThrow } from './budget.js';
import type { LlmClient, LlmMessageRequest } from './client.js';
import { LlmError } from './errors.js';
import { costOfCall, estimateCallCostUsd, type ModelSpec } from './models.js';
import { addUsage, type CallUsage, emptyUsage, type UsageRecord } from './usage.js';

/** What one dispatch (a critic run, a test-writer run, an implementer run) works with. */
export interface DispatchSettings {
  readonly client: LlmClient;
  readonly spec: ModelSpec;
  /** Name for the usage record: a critic id, `test-writer`, `implementer`. */
  readonly dispatch: string;
  readonly round?: number;
  /** Limits and what was spent before this dispatch; no budget check when absent. */
  readonly budget?: BudgetState;
  readonly signal?: AbortSignal;
}

export const EPHEMERAL: CacheControlEphemeral = { type: 'ephemeral' };

/** A turn of the conversations this library holds (system prompts go in `system`, never here). */
export type Turn = UserMessageParam | AssistantMessageParam;

/**
 * Sends the calls of one dispatch: counts the tokens first (when there is a budget) and refuses
 * a call that could pass a budget; adds every call's usage and cost to one record.
 */
export class Dispatcher {
  private usage: UsageRecord;
  private calls = 0;

  constructor(private readonly settings: DispatchSettings) {
    this.usage = emptyUsage(settings.dispatch, settings.client.model, settings.round);
  }

  get record(): UsageRecord {
    return this.usage;
  }

  get callCount(): number {
    return this.calls;
  }

  /** Sends one call; `onResponseStart` is told when its response starts (see LlmCallOptions). */
  async send(request: LlmMessageRequest, onResponseStart?: () => void): Promise<Message> {
    const { client, spec, budget, signal } = this.settings;
    const callOptions = signal === undefined ? {} : { signal };
    if (budget !== undefined) {
      const inputTokens = await client.countTokens(
        {
          messages: request.messages,
          ...(request.system === undefined ? {} : { system: request.system }),
          ...(request.tools === undefined ? {} : { tools: request.tools }),
          ...(request.tool_choice === undefined ? {} : { tool_choice: request.tool_choice }),
        },
        callOptions,
      );
      const estimate = estimateCallCostUsd(spec, {
        inputTokens,
        maxOutputTokens: request.max_tokens,
        writesCache: requestWritesCache(request),
      });
      checkBudgetOrThrow({
        spentToday: budget.spentTodayUsd + this.usage.cost_usd,
        spentOnPlan: budget.spentOnPlanUsd + this.usage.cost_usd,
        spentOnDispatch: this.usage.cost_usd,
        estimate,
        limits: budget.limits,
      });
    }
    const message = await client.createMessage(
      request,
      onResponseStart === undefined ? callOptions : { ...callOptions, onResponseStart },
    );
    this.calls += 1;
    const call: CallUsage & { cache_creation_1h_input_tokens?: number } = {
      input_tokens: message.usage.input_tokens,
      output_tokens: message.usage.output_tokens,
      cache_creation_input_tokens: message.usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: message.usage.cache_read_input_tokens ?? 0,
      ...(message.usage.cache_creation === null || message.usage.cache_creation === undefined
        ? {}
        : { cache_creation_1h_input_tokens: message.usage.cache_creation.ephemeral_1h_input_tokens }),
    };
    this.usage = addUsage(this.usage, call, costOfCall(spec, call));
    return message;
  }

  /** Attaches this dispatch's spend to an LlmError before it leaves (the caller still records it). */
  annotate(error: unknown): unknown {
    if (error instanceof LlmError && error.usage === undefined) error.usage = this.usage;
    return error;
  }
}

function requestWritesCache(request: LlmMessageRequest): boolean {
  return JSON.stringify([request.system ?? null, request.messages, request.tools ?? null]).includes('"cache_control"');
}

/** Turns a response's content into the assistant turn to send back, unchanged in meaning (thinking signatures kept). */
export function assistantTurn(content: readonly ContentBlock[]): AssistantMessageParam | null {
  const blocks: ContentBlockParam[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        if (block.text !== '') blocks.push({ type: 'text', text: block.text });
        break;
      case 'thinking':
        blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        break;
      case 'redacted_thinking':
        blocks.push({ type: 'redacted_thinking', data: block.data });
        break;
      case 'tool_use':
        blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
        break;
      case 'server_tool_use':
      case 'web_search_tool_result':
      case 'web_fetch_tool_result':
      case 'code_execution_tool_result':
      case 'bash_code_execution_tool_result':
      case 'text_editor_code_execution_tool_result':
      case 'tool_search_tool_result':
      case 'container_upload':
        // Server-tool blocks never appear here: this library offers no server tools.
        break;
    }
  }
  return blocks.length === 0 ? null : { role: 'assistant', content: blocks };
}

/** A text block, optionally marked as the end of a cached prefix. */
export function textBlock(text: string, cache = false): TextBlockParam {
  return cache ? { type: 'text', text, cache_control: EPHEMERAL } : { type: 'text', text };
}

/**
 * Copies the conversation with a rolling cache breakpoint on the last block of the last message,
 * so each turn of a tool loop reads the previous turn's prefix from the cache.
 */
export function withRollingBreakpoint(messages: readonly Turn[], enabled: boolean): Turn[] {
  const copy: Turn[] = messages.map((m) => ({ ...m }));
  if (!enabled) return copy;
  const last = copy[copy.length - 1];
  if (last === undefined || typeof last.content === 'string') return copy;
  const blocks = [...last.content];
  const tail = blocks[blocks.length - 1];
  if (tail !== undefined && (tail.type === 'text' || tail.type === 'tool_result')) {
    blocks[blocks.length - 1] = { ...tail, cache_control: EPHEMERAL };
    copy[copy.length - 1] = { ...last, content: blocks };
  }
  return copy;
}
