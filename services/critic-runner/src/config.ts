import { join, resolve } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import { CriticCatalogue, TRUST_CONFIG_FILE, TrustConfig } from '@rloop/domain';
import { RepoPolicy } from '@rloop/critics';
import { type BudgetLimits, LlmConfigError, type ModelCatalogue, loadModelCatalogue, registerSecret } from '@rloop/llm';
import { z } from 'zod';
import { ValidationError } from '@rloop/contracts';

const CriticRunnerEnvironment = CommonEnvironment.extend({
  /** Enables the LLM critics (the code reviewer and the prompt critics). Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** Points the Anthropic SDK elsewhere (a proxy, or the test server). */
  ANTHROPIC_BASE_URL: z.url().optional(),
  /** Rounds run at the same time (each runs its critics in parallel). */
  RLOOP_ROUND_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Files larger than this are not read by the critics; set, it also accepts that such files go unreviewed. */
  RLOOP_MAX_FILE_BYTES: z.coerce.number().int().min(1).optional(),
  /** An OSV export (directory or all.zip) the dependency audit matches offline instead of asking the npm registry. */
  RLOOP_ADVISORIES: z.string().min(1).optional(),
});

/** What the LLM critics need; null when ANTHROPIC_API_KEY is unset (they are then not hosted). */
export interface AnthropicSettings {
  readonly apiKey: string;
  readonly baseURL?: string;
  /** config/models.yaml: prices, the critics' model, budgets. */
  readonly models: ModelCatalogue;
  /** The model the critics dispatch to (models.yaml `roles.critics`). */
  readonly model: string;
  readonly budgets: BudgetLimits;
}

export interface CriticRunnerConfig extends CommonSettings {
  readonly catalogue: CriticCatalogue;
  readonly anthropic: AnthropicSettings | null;
  readonly roundConcurrency: number;
  /**
   * The file-size bound the operator chose (RLOOP_MAX_FILE_BYTES), or null for the critics'
   * default — with which a file of the plan skipped as too large keeps a round from counting as clean.
   */
  readonly maxFileBytes: number | null;
  /** Read-only checkouts of reviewed commits and the critics' incremental caches live here. */
  readonly workRoot: string;
  /** Whether the compiler-linter loads a reviewed repository's own ESLint config (config/trust.yaml; it runs the repository's code). */
  readonly repositoryEslintConfig: boolean;
  /** What a reviewed repository's .rloop.yaml may change (config/repo-policy.yaml). */
  readonly repoPolicy: RepoPolicy;
  /** The OSV export the dependency audit reads (RLOOP_ADVISORIES, absolute), or null to ask the npm registry. */
  readonly advisories: string | null;
  /** Whether cargo may run build scripts and proc macros for the Rust toolchain critic (config/trust.yaml; it runs the repository's code). */
  readonly cargoBuildScripts: boolean;
  /** The environment the language tools take PATH, HOME and the locale from (their secrets are never passed on). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
}

/** Parses the critic-runner's environment, config/critics.yaml and (with a key) config/models.yaml once, at start. */
export async function loadCriticRunnerConfig(env: NodeJS.ProcessEnv = process.env): Promise<CriticRunnerConfig> {
  const parsed = parseEnvironment(CriticRunnerEnvironment, env, 'critic-runner');
  const common = commonSettings(parsed, 'critic-runner');
  const catalogue = await loadYamlConfig(join(common.configDir, 'critics.yaml'), CriticCatalogue);
  const trust = await loadYamlConfig(join(common.configDir, TRUST_CONFIG_FILE), TrustConfig);
  const repoPolicy = await loadYamlConfig(join(common.configDir, 'repo-policy.yaml'), RepoPolicy);
  // Core always, or core where a dynamic trigger adds it (a language's toolchain for a plan with its files).
  const everCore = new Set([...catalogue.core, ...catalogue.dynamic.filter((t) => t.core).flatMap((t) => t.critics)]);
  const core = repoPolicy.critics_off.filter((id) => everCore.has(id));
  if (core.length > 0) {
    const path = join(common.configDir, 'repo-policy.yaml');
    throw new ValidationError(
      'CONFIG.INVALID',
      `${path}: critics_off names core critic(s) ${core.join(', ')}; a core critic that does not run keeps every round incomplete — make it non-core in critics.yaml instead`,
      [{ path: 'critics_off', message: 'names a core critic' }],
    );
  }
  let anthropic: AnthropicSettings | null = null;
  if (parsed.ANTHROPIC_API_KEY !== undefined) {
    // Registered before anything can fail, so no error or log line below can carry it.
    registerSecret(parsed.ANTHROPIC_API_KEY);
    const models = await loadModelCatalogue(join(common.configDir, 'models.yaml'));
    if (models.roles === null)
      throw new LlmConfigError(
        `${join(common.configDir, 'models.yaml')} names no roles: the LLM critics need roles.critics`,
      );
    anthropic = {
      apiKey: parsed.ANTHROPIC_API_KEY,
      ...(parsed.ANTHROPIC_BASE_URL === undefined ? {} : { baseURL: parsed.ANTHROPIC_BASE_URL }),
      models,
      model: models.roles.critics,
      budgets: models.budgets,
    };
  }
  return Object.freeze({
    ...common,
    catalogue,
    anthropic,
    roundConcurrency: parsed.RLOOP_ROUND_CONCURRENCY,
    maxFileBytes: parsed.RLOOP_MAX_FILE_BYTES ?? null,
    workRoot: join(common.home, 'critic-runner'),
    repositoryEslintConfig: trust.eslint.repository_config,
    repoPolicy,
    advisories: parsed.RLOOP_ADVISORIES === undefined ? null : resolve(parsed.RLOOP_ADVISORIES),
    cargoBuildScripts: trust.toolchains.cargo_build_scripts,
    hostEnv: Object.freeze({ ...env }),
  });
}
