import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import { CriticCatalogue } from '@rloop/domain';
import { z } from 'zod';

const CriticRunnerEnvironment = CommonEnvironment.extend({
  /** Enables the LLM critics (the code reviewer and the prompt critics). Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** Points the Anthropic SDK elsewhere (a proxy, or the test server). */
  ANTHROPIC_BASE_URL: z.url().optional(),
  /** Rounds run at the same time (each runs its critics in parallel). */
  RLOOP_ROUND_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
});

export interface CriticRunnerConfig extends CommonSettings {
  readonly catalogue: CriticCatalogue;
  readonly anthropic: { readonly apiKey: string; readonly baseURL?: string } | null;
  readonly roundConcurrency: number;
  /** Read-only checkouts of reviewed commits and the critics' incremental caches live here. */
  readonly workRoot: string;
}

/** Parses the critic-runner's environment and config/critics.yaml once, at start. */
export async function loadCriticRunnerConfig(env: NodeJS.ProcessEnv = process.env): Promise<CriticRunnerConfig> {
  const parsed = parseEnvironment(CriticRunnerEnvironment, env, 'critic-runner');
  const common = commonSettings(parsed);
  const catalogue = await loadYamlConfig(join(common.configDir, 'critics.yaml'), CriticCatalogue);
  const anthropic = parsed.ANTHROPIC_API_KEY === undefined ? null : { apiKey: parsed.ANTHROPIC_API_KEY, ...(parsed.ANTHROPIC_BASE_URL === undefined ? {} : { baseURL: parsed.ANTHROPIC_BASE_URL }) };
  return Object.freeze({ ...common, catalogue, anthropic, roundConcurrency: parsed.RLOOP_ROUND_CONCURRENCY, workRoot: join(common.home, 'critic-runner') });
}
