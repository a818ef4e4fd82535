import type { CriticCatalogue } from '@rloop/domain';
import {
  type BudgetState,
  type LlmClient,
  type LlmCriticDefinition,
  type LlmCriticOptions,
  type LlmCriticReport,
  type LlmLogger,
  type SubjectHints,
  type UsageRecord,
  type CacheWarmup,
  createAnthropicClient,
  createCacheWarmup,
  createCodeReviewerCritic,
  createPromptCritics,
} from '@rloop/llm';
import type { AnthropicSettings } from '../config.js';

/** What one round tells its LLM critics, and where they report back. */
export interface LlmRoundHooks {
  /** Plan title and description, the diff base and the round. */
  readonly subject: SubjectHints;
  /** Limits and what the journal says was spent before the round; null: no budget check. */
  readonly budget: BudgetState | null;
  /** Every dispatch that made a call, success or failure (publish it as UsageRecorded). */
  readonly onUsage: (usage: UsageRecord) => void;
  /** A successful review (dropped findings are counted here). */
  readonly onReport: (report: LlmCriticReport) => void;
}

// TODO(calibration): 2 retries and 120 s per request are the SDK's defaults; check the 429/529 rate in the logs.
const MAX_RETRIES = 2;
const REQUEST_TIMEOUT_MS = 120_000;

/**
 * The LLM critics this runner hosts (the code reviewer and the dynamic prompt critics the
 * catalogue names), sharing one client. Each round gets its own definitions, bound to the round's
 * plan, budget and usage sink, so nothing of one round can leak into another running beside it.
 */
export class LlmCriticHost {
  private readonly client: LlmClient;
  private readonly wanted: ReadonlySet<string>;
  /** Shared by every critic and round of this host: a round's critics write their common prefix to the cache once. */
  private readonly warmup: CacheWarmup = createCacheWarmup();

  constructor(
    private readonly settings: AnthropicSettings,
    catalogue: CriticCatalogue,
    logger: LlmLogger,
  ) {
    this.client = createAnthropicClient({
      apiKey: settings.apiKey,
      model: settings.model,
      maxRetries: MAX_RETRIES,
      timeoutMs: REQUEST_TIMEOUT_MS,
      logger,
      ...(settings.baseURL === undefined ? {} : { baseURL: settings.baseURL }),
    });
    const known = new Set(this.build(null).map((c) => c.id));
    const named = Object.entries(catalogue.critics)
      .filter(([, entry]) => entry.requires === 'anthropic' && entry.host === 'builtin')
      .map(([id]) => id);
    const unknown = named.filter((id) => !known.has(id));
    // A catalogue entry without a prompt would be dispatched and never answered here: say so at start.
    if (unknown.length > 0)
      logger.warn(
        `critics.yaml names LLM critics this runner has no prompt for (left to other hosts): ${unknown.join(', ')}`,
      );
    this.wanted = new Set(named.filter((id) => known.has(id)));
  }

  /** The ids this host runs. */
  get ids(): ReadonlySet<string> {
    return this.wanted;
  }

  /** Definitions without round hooks: for listing what is hosted (id, evidence, triggers). */
  staticDefinitions(): LlmCriticDefinition[] {
    return this.definitions(null);
  }

  /** The round's definitions, bound to its hooks. */
  forRound(hooks: LlmRoundHooks): ReadonlyMap<string, LlmCriticDefinition> {
    return new Map(this.definitions(hooks).map((c) => [c.id, c]));
  }

  private definitions(hooks: LlmRoundHooks | null): LlmCriticDefinition[] {
    return this.build(hooks).filter((c) => this.wanted.has(c.id));
  }

  private build(hooks: LlmRoundHooks | null): LlmCriticDefinition[] {
    const options: LlmCriticOptions = {
      model: this.settings.model,
      catalogue: this.settings.models,
      client: this.client,
      cacheWarmup: this.warmup,
      ...(hooks === null
        ? {}
        : {
            resolveSubject: () => Promise.resolve(hooks.subject),
            budget: () => Promise.resolve(hooks.budget),
            onUsage: hooks.onUsage,
            onReport: hooks.onReport,
          }),
    };
    return [createCodeReviewerCritic(options), ...createPromptCritics(options)];
  }
}
