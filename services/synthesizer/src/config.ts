import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import { type KnownConflict, LoopConfig } from '@rloop/domain';

export interface SynthesizerConfig extends CommonSettings {
  /** config/loop.yaml's critic_disagreement table (the shipped one when the file leaves it out), read once at start. */
  readonly knownConflicts: readonly KnownConflict[];
}

/** Parses the synthesizer's environment and config/loop.yaml once, at start; a bad file fails the start, naming it. */
export async function loadSynthesizerConfig(env: NodeJS.ProcessEnv = process.env): Promise<SynthesizerConfig> {
  const common = commonSettings(parseEnvironment(CommonEnvironment, env, 'synthesizer'), 'synthesizer');
  const knownConflicts = (await loadYamlConfig(join(common.configDir, 'loop.yaml'), LoopConfig)).critic_disagreement
    .known_conflicts;
  return Object.freeze({ ...common, knownConflicts });
}
