import { type CriticDefinition, builtInCritics } from '@rloop/critics';
import type { CriticRunnerConfig } from './config.js';
import type { LlmCriticHost } from './llm/llm-critics.js';
import type { RecordedCoverageStore } from './rounds/recorded-coverage.js';

/**
 * The critics this runner hosts: every deterministic built-in critic the catalogue names, with the
 * catalogue's timeouts, and — with an API key — the LLM critics it names (the code reviewer and
 * the prompt critics). Rounds run the LLM ones through the host, bound to the round.
 */
export function hostedCritics(
  config: CriticRunnerConfig,
  llm: LlmCriticHost | null = null,
  coverage: RecordedCoverageStore | null = null,
): CriticDefinition[] {
  const wanted = new Set(
    Object.entries(config.catalogue.critics)
      .filter(([, entry]) => entry.host === 'builtin' && entry.requires === undefined)
      .map(([id]) => id),
  );
  return [
    ...builtInCritics({
      useRepoEslintConfig: config.repositoryEslintConfig,
      allowBuildScripts: config.cargoBuildScripts,
      hostEnv: config.hostEnv,
      settings: Object.fromEntries(
        Object.entries(config.catalogue.critics).flatMap(([id, entry]) =>
          entry.settings === undefined ? [] : [[id, entry.settings]],
        ),
      ),
      ...(config.advisories === null ? {} : { advisories: config.advisories }),
      ...(coverage === null ? {} : { testCoverage: coverage.source() }),
    }).filter((critic) => wanted.has(critic.id)),
    ...(llm === null ? [] : llm.staticDefinitions()),
  ];
}
