import { Logger, type Provider } from '@nestjs/common';
import { type LlmClient, createAnthropicClient } from '@rloop/llm';
import type { AnthropicImplementerSettings, ImplementerConfig } from '../config.js';
import { IMPLEMENTER_CONFIG } from '../tokens.js';

// TODO(calibration): 2 retries and 120 s per request are the SDK's defaults; check the 429/529 rate in the logs.
const LLM_MAX_RETRIES = 2;
const LLM_REQUEST_TIMEOUT_MS = 120_000;

/** The anthropic strategy's clients, one per model, shared by every fix. */
export interface AnthropicClients {
  readonly settings: AnthropicImplementerSettings;
  readonly testWriter: LlmClient;
  readonly implementer: LlmClient;
}

/** Injection token of the implementer's AnthropicClients, null without ANTHROPIC_API_KEY. */
export const ANTHROPIC_CLIENTS = Symbol.for('rloop.implementer.anthropic-clients');

/** Builds the clients once from the config: one per model (the test writer's is reused when both name the same model). */
export function anthropicClients(
  settings: AnthropicImplementerSettings | null,
  log: Logger = new Logger('Implementer'),
): AnthropicClients | null {
  if (settings === null) return null;
  const logger = { warn: (m: string) => log.warn(m), info: (m: string) => log.log(m) };
  const client = (model: string): LlmClient =>
    createAnthropicClient({
      apiKey: settings.apiKey,
      model,
      maxRetries: LLM_MAX_RETRIES,
      timeoutMs: LLM_REQUEST_TIMEOUT_MS,
      logger,
      ...(settings.baseURL === undefined ? {} : { baseURL: settings.baseURL }),
    });
  const testWriter = client(settings.testWriter.id);
  return {
    settings,
    testWriter,
    implementer: settings.implementer.id === settings.testWriter.id ? testWriter : client(settings.implementer.id),
  };
}

/** The provider of ANTHROPIC_CLIENTS (a handler spec overrides it with a fake that behaves like the API). */
export const anthropicClientsProvider: Provider = {
  provide: ANTHROPIC_CLIENTS,
  inject: [IMPLEMENTER_CONFIG],
  useFactory: (config: ImplementerConfig) => anthropicClients(config.anthropic),
};
