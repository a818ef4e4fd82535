import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import { CriticCatalogue } from '@rloop/domain';
import { z } from 'zod';

const PanelEnvironment = CommonEnvironment.extend({
  /** Only its presence matters: without it, critics that need an LLM are left out of the panel. Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
});

export interface PanelConfig extends CommonSettings {
  readonly catalogue: CriticCatalogue;
  readonly anthropicConfigured: boolean;
}

/** Parses the panel's environment and config/critics.yaml once, at start. */
export async function loadPanelConfig(env: NodeJS.ProcessEnv = process.env): Promise<PanelConfig> {
  const parsed = parseEnvironment(PanelEnvironment, env, 'panel');
  const common = commonSettings(parsed);
  const catalogue = await loadYamlConfig(join(common.configDir, 'critics.yaml'), CriticCatalogue);
  return Object.freeze({ ...common, catalogue, anthropicConfigured: parsed.ANTHROPIC_API_KEY !== undefined });
}
