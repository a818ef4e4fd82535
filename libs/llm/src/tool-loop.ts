import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type {
  ContentBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { toIssues } from '@rloop/contracts';
import { z } from 'zod';
import { assistantTurn, type Dispatcher, textBlock, type Turn, withRollingBreakpoint } from './dispatcher.js';
import { LlmOutputInvalidError, LlmOutputTruncatedError, LlmRefusedError } from './errors.js';
import { redactSecrets } from './redact.js';

/** A tool the model may call in a loop: its definition, an input schema and what it does. */
export interface LoopTool {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType;
  /** Returns the tool result text; a thrown error becomes an is_error result the model sees. */
  run(input: unknown): Promise<string>;
}

/** Builds a loop tool with a typed run function. */
export function defineTool<S extends z.ZodType>(
  name: string,
  description: string,
  input: S,
  run: (input: z.infer<S>) => Promise<string>,
): LoopTool {
  return { name, description, input, run: (value) => run(value as z.infer<S>) };
}

export function toolDefinition(tool: LoopTool): Tool {
  const generated = z.toJSONSchema(tool.input, {
    target: 'draft-2020-12',
    io: 'input',
    metadata: z.registry(),
    unrepresentable: 'any',
  });
  return {
    name: tool.name,
    description: tool.description,
    input_schema: transformJSONSchema(generated) as Tool.InputSchema,
    strict: true,
  };
}

export interface ToolCallRecord {
  readonly name: string;
  readonly input: unknown;
  readonly ok: boolean;
  /** The (redacted, capped) result the model saw. */
  readonly result: string;
}

export interface ToolLoopOptions {
  readonly dispatcher: Dispatcher;
  readonly system: string;
  readonly tools: readonly LoopTool[];
  /** The first user message: stable context first (cache breakpoints on it), the task last. */
  readonly firstMessage: readonly ContentBlockParam[];
  /** Model calls allowed (each tool_use round trip is one). */
  readonly stepBudget: number;
  readonly maxOutputTokens: number;
  readonly caching: boolean;
  /** Consecutive max_tokens stops tolerated before giving up. Default 2. */
  readonly maxTruncations?: number;
  /** Tool results longer than this are cut (head and tail kept). Default 20 000 characters. */
  readonly maxToolResultChars?: number;
  readonly onToolCall?: (call: ToolCallRecord) => void;
}

export interface ToolLoopResult {
  readonly outcome: 'finished' | 'step_budget_exhausted';
  readonly steps: number;
  /** The model's closing text (its summary). */
  readonly finalText: string;
  readonly toolCalls: readonly ToolCallRecord[];
}

function blocksOf(turn: Turn | undefined): ContentBlockParam[] {
  if (turn === undefined) return [];
  return typeof turn.content === 'string' ? [{ type: 'text', text: turn.content }] : [...turn.content];
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 3);
  return `${text.slice(0, head)}\n… [${text.length - max} characters omitted] …\n${text.slice(text.length - (max - head))}`;
}

/**
 * The tool-use loop: send, and while the model stops for tool_use, run each call and answer with
 * tool_result blocks (every tool_use id answered, errors as is_error). end_turn finishes;
 * max_tokens continues (a cut-off tool call is answered with an error, not executed) up to
 * maxTruncations times in a row, then throws LlmOutputTruncatedError; a paused turn (pause_turn)
 * is sent back as it is and continued; refusal, a filled context window
 * (model_context_window_exceeded) and an unknown stop reason throw. The step budget bounds the
 * number of model calls.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  // TODO(calibration): two consecutive cut-offs before giving up is a guess; count max_tokens stops in real loops.
  const maxTruncations = options.maxTruncations ?? 2;
  const maxResult = options.maxToolResultChars ?? 20_000;
  const byName = new Map(options.tools.map((t) => [t.name, t]));
  const definitions = options.tools.map(toolDefinition);
  const history: Turn[] = [{ role: 'user', content: [...options.firstMessage] }];
  const calls: ToolCallRecord[] = [];
  let truncations = 0;

  const execute = async (id: string, name: string, input: unknown): Promise<ToolResultBlockParam> => {
    const tool = byName.get(name);
    let ok = false;
    let text: string;
    if (tool === undefined) text = `Error: there is no tool named ${name}`;
    else {
      const parsed = tool.input.safeParse(input);
      if (!parsed.success)
        text = `Error: invalid input: ${toIssues(parsed.error)
          .map((i) => `${i.path}: ${i.message}`)
          .join('; ')}`;
      else {
        try {
          text = await tool.run(parsed.data);
          ok = true;
        } catch (error) {
          text = `Error: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
    }
    const result = cap(redactSecrets(text), maxResult);
    const record = { name, input, ok, result };
    calls.push(record);
    options.onToolCall?.(record);
    return {
      type: 'tool_result',
      tool_use_id: id,
      content: result === '' ? '(no output)' : result,
      ...(ok ? {} : { is_error: true }),
    };
  };

  for (let step = 1; step <= options.stepBudget; step += 1) {
    const message = await options.dispatcher.send({
      system: [textBlock(options.system, options.caching)],
      tools: definitions,
      tool_choice: { type: 'auto' },
      max_tokens: options.maxOutputTokens,
      messages: withRollingBreakpoint(history, options.caching),
    });
    // A paused turn was sent back as the last message: this reply continues it, as one assistant turn.
    const paused = history[history.length - 1]?.role === 'assistant' ? history.pop() : undefined;
    const content = [...blocksOf(paused), ...blocksOf(assistantTurn(message.content) ?? undefined)];
    const assistant: Turn | null = content.length === 0 ? null : { role: 'assistant', content };
    const toolUses = content.filter((b): b is ToolUseBlockParam => b.type === 'tool_use');
    const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    switch (message.stop_reason) {
      case 'end_turn':
      case 'stop_sequence':
        if (toolUses.length === 0) return { outcome: 'finished', steps: step, finalText: text, toolCalls: calls };
        break; // tool calls with an end_turn are still answered below
      case 'tool_use':
        break;
      case 'pause_turn':
        // The API's way to continue a paused turn: send it back as it is, as the last message.
        if (assistant === null) throw new LlmOutputInvalidError('the model paused its turn without any content', []);
        if (toolUses.length > 0) break;
        history.push(assistant);
        continue;
      case 'max_tokens': {
        truncations += 1;
        if (truncations > maxTruncations)
          throw new LlmOutputTruncatedError(
            `the model's reply was cut off at max_tokens ${truncations} times in a row`,
          );
        if (assistant === null) continue;
        // A call cut off mid-input is never run: the model is told to send it again, smaller.
        const results: ContentBlockParam[] = toolUses.map((b) => ({
          type: 'tool_result',
          tool_use_id: b.id,
          is_error: true,
          content:
            'Not executed: your reply was cut off at the output token limit, so this call may be incomplete. Send it again, smaller.',
        }));
        history.push(assistant, {
          role: 'user',
          content: [
            ...results,
            textBlock(
              'Your reply was cut off at the output token limit. Continue where you stopped; keep each tool call small.',
            ),
          ],
        });
        continue;
      }
      case 'refusal':
        throw new LlmRefusedError('the model declined the task (stop_reason refusal)');
      case 'model_context_window_exceeded':
        throw new LlmOutputTruncatedError('the conversation no longer fits the model context window');
      case null:
        throw new LlmOutputInvalidError('the reply has no stop_reason', []);
      default:
        throw new LlmOutputInvalidError(
          `the reply stopped for ${String(message.stop_reason)}, which this loop does not know`,
          [],
        );
    }
    truncations = 0;
    if (assistant === null) throw new LlmOutputInvalidError('the model stopped for tool use without any content', []);
    if (toolUses.length === 0)
      throw new LlmOutputInvalidError('the model stopped for tool use without calling a tool', []);
    const results: ToolResultBlockParam[] = [];
    for (const use of toolUses) results.push(await execute(use.id, use.name, use.input));
    history.push(assistant, { role: 'user', content: results });
  }
  return { outcome: 'step_budget_exhausted', steps: options.stepBudget, finalText: '', toolCalls: calls };
}
