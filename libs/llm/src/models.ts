import { readFile } from 'node:fs/promises';
import { toIssues } from '@rloop/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { BudgetLimits } from './budget.js';
import { LlmConfigError } from './errors.js';
import type { CallUsage } from './usage.js';

const UsdPerMTok = z.number().min(0).max(10_000);

const Rates = z.strictObject({
  input: UsdPerMTok,
  output: UsdPerMTok,
  cache_write_5m: UsdPerMTok,
  cache_write_1h: UsdPerMTok,
  cache_read: UsdPerMTok,
});

const ModelEntry = Rates.extend({
  long_prompt: Rates.extend({ threshold_tokens: z.int().min(1) }).optional(),
  /** Whether the model accepts tool_choice `tool`/`any` (the 5.x models answer it with a 400). */
  forced_tool_choice: z.boolean(),
  max_output_tokens: z.int().min(1),
});

const ModelId = z.string().regex(/^[a-z0-9][a-z0-9.-]*$/);
const Usd = z.number().positive().max(1_000_000);

/** Which model each LLM role dispatches to. */
const Roles = z.strictObject({ critics: ModelId, test_writer: ModelId, implementer: ModelId });

/** Spending limits in USD; null is no limit on that scope. */
const Budgets = z.strictObject({
  /** Everything the fleet spends in one UTC day, all plans together. */
  daily_usd: Usd.nullable(),
  /** Everything one plan's loop (one run) spends, all rounds together. */
  per_plan_usd: Usd.nullable(),
  /** One dispatch (a critic run, a test-writer run, an implementer run). */
  per_dispatch_usd: Usd.nullable().default(null),
});

const CatalogueFile = z
  .strictObject({
    prices_checked_on: z.iso.date(),
    roles: Roles.optional(),
    budgets: Budgets.optional(),
    models: z.record(ModelId, ModelEntry).refine((m) => Object.keys(m).length > 0, 'at least one model'),
  })
  .superRefine((file, ctx) => {
    for (const [role, model] of Object.entries(file.roles ?? {})) {
      if (!Object.hasOwn(file.models, model))
        ctx.addIssue({
          code: 'custom',
          path: ['roles', role],
          message: `model ${model} is not in the models table (its price is needed)`,
        });
    }
  });

/** USD per million tokens for each kind of token. */
export type ModelRates = z.infer<typeof Rates>;

/** One model: its id, prices and the capabilities the code branches on. */
export interface ModelSpec extends ModelRates {
  readonly id: string;
  readonly long_prompt?: ModelRates & { readonly threshold_tokens: number };
  readonly forced_tool_choice: boolean;
  readonly max_output_tokens: number;
}

/** The model of each LLM role (`roles` in models.yaml). */
export interface ModelRoles {
  readonly critics: string;
  readonly testWriter: string;
  readonly implementer: string;
}

/** The parsed `config/models.yaml`. */
export interface ModelCatalogue {
  readonly pricesCheckedOn: string;
  readonly models: Readonly<Record<string, ModelSpec>>;
  /** Null when the file names no roles (services that dispatch then refuse to start). */
  readonly roles: ModelRoles | null;
  /** The file's `budgets`; every limit null (no budget) when it has none. */
  readonly budgets: BudgetLimits;
}

/** Parses the text of a models.yaml; throws LlmConfigError naming every bad field. */
export function parseModelCatalogue(text: string): ModelCatalogue {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new LlmConfigError(
      `models.yaml is not valid YAML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const result = CatalogueFile.safeParse(raw);
  if (!result.success) {
    const issues = toIssues(result.error);
    throw new LlmConfigError(
      `models.yaml is invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  const models: Record<string, ModelSpec> = {};
  for (const [id, entry] of Object.entries(result.data.models)) models[id] = Object.freeze({ id, ...entry });
  const { roles, budgets } = result.data;
  return Object.freeze({
    pricesCheckedOn: result.data.prices_checked_on,
    models: Object.freeze(models),
    roles:
      roles === undefined
        ? null
        : Object.freeze({ critics: roles.critics, testWriter: roles.test_writer, implementer: roles.implementer }),
    budgets: Object.freeze({
      dailyUsd: budgets?.daily_usd ?? null,
      perPlanUsd: budgets?.per_plan_usd ?? null,
      perDispatchUsd: budgets?.per_dispatch_usd ?? null,
    }),
  });
}

/** Reads and parses a models.yaml (usually `config/models.yaml`). */
export async function loadModelCatalogue(path: string): Promise<ModelCatalogue> {
  return parseModelCatalogue(await readFile(path, 'utf8'));
}

/** The model's spec, or null when the catalogue does not list it. */
export function findModel(catalogue: ModelCatalogue, model: string): ModelSpec | null {
  return Object.prototype.hasOwnProperty.call(catalogue.models, model) ? (catalogue.models[model] ?? null) : null;
}

/** Like findModel; throws LlmConfigError for a model without a price (its cost could not be reported). */
export function findModelOrThrow(catalogue: ModelCatalogue, model: string): ModelSpec {
  const spec = findModel(catalogue, model);
  if (spec === null) {
    throw new LlmConfigError(
      `model ${JSON.stringify(model)} is not in the model catalogue (known: ${Object.keys(catalogue.models).join(', ')})`,
    );
  }
  return spec;
}

/** Token usage of one call, with the optional split of cache writes by TTL the API reports. */
export interface PricedUsage extends CallUsage {
  /** Part of cache_creation_input_tokens written with the 1-hour TTL (the rest is 5-minute). */
  readonly cache_creation_1h_input_tokens?: number;
}

function ratesFor(spec: ModelSpec, promptTokens: number): ModelRates {
  return spec.long_prompt !== undefined && promptTokens > spec.long_prompt.threshold_tokens ? spec.long_prompt : spec;
}

/** The cost in USD of one API call, as Anthropic bills it. Pure. */
export function costOfCall(spec: ModelSpec, usage: PricedUsage): number {
  const prompt = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
  const rates = ratesFor(spec, prompt);
  const written1h = Math.min(usage.cache_creation_1h_input_tokens ?? 0, usage.cache_creation_input_tokens);
  const written5m = usage.cache_creation_input_tokens - written1h;
  const micro =
    usage.input_tokens * rates.input +
    written5m * rates.cache_write_5m +
    written1h * rates.cache_write_1h +
    usage.cache_read_input_tokens * rates.cache_read +
    usage.output_tokens * rates.output;
  return micro / 1_000_000;
}

/**
 * An upper bound for a call before it is sent: every counted input token at the dearer of the
 * input and cache-write rates (when the request writes the cache) and max_tokens of output. Pure.
 */
export function estimateCallCostUsd(
  spec: ModelSpec,
  input: { readonly inputTokens: number; readonly maxOutputTokens: number; readonly writesCache: boolean },
): number {
  const rates = ratesFor(spec, input.inputTokens);
  const inputRate = input.writesCache ? Math.max(rates.input, rates.cache_write_5m) : rates.input;
  return (input.inputTokens * inputRate + input.maxOutputTokens * rates.output) / 1_000_000;
}

/**
 * Input tokens weighted by what they cost relative to an uncached input token (cache writes at
 * cache_write_5m/input, reads at cache_read/input): the benchmark's "billed input". Pure.
 */
export function weightedInputTokens(spec: ModelSpec, usage: CallUsage): number {
  const rates = ratesFor(spec, usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens);
  if (rates.input === 0) return usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
  return (
    usage.input_tokens +
    (usage.cache_creation_input_tokens * rates.cache_write_5m) / rates.input +
    (usage.cache_read_input_tokens * rates.cache_read) / rates.input
  );
}
