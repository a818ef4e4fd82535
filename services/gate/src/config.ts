import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import { RefinementTriggers } from '@rloop/domain';
import { z } from 'zod';

const GateEnvironment = CommonEnvironment.extend({
  /** Only its presence matters here: a plan asking for the anthropic implementer needs it. Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
});

export interface GateConfig extends CommonSettings {
  readonly triggers: RefinementTriggers;
  /** Where repositories given by URL are cloned. */
  readonly repoCacheDir: string;
  readonly anthropicConfigured: boolean;
}

/** Parses the gate's environment and config/refinement-triggers.yaml once, at start. */
export async function loadGateConfig(env: NodeJS.ProcessEnv = process.env): Promise<GateConfig> {
  const parsed = parseEnvironment(GateEnvironment, env, 'gate');
  const common = commonSettings(parsed);
  const triggers = await loadYamlConfig(join(common.configDir, 'refinement-triggers.yaml'), RefinementTriggers);
  return Object.freeze({ ...common, triggers, repoCacheDir: join(common.home, 'repos'), anthropicConfigured: parsed.ANTHROPIC_API_KEY !== undefined });
}
