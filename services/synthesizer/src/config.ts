import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import { type KnownConflict, LoopConfig } from '@rloop/domain';

export type SynthesizerConfig = CommonSettings;

/** Parses the synthesizer's environment once, at start. */
export function loadSynthesizerConfig(env: NodeJS.ProcessEnv = process.env): SynthesizerConfig {
  return Object.freeze(commonSettings(parseEnvironment(CommonEnvironment, env, 'synthesizer'), 'synthesizer'));
}

/** config/loop.yaml's known conflicts (the shipped table when the file leaves them out); a bad file fails the start, naming it. */
export async function loadKnownConflicts(configDir: string): Promise<readonly KnownConflict[]> {
  return (await loadYamlConfig(join(configDir, 'loop.yaml'), LoopConfig)).critic_disagreement.known_conflicts;
}
