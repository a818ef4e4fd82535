import { CommonEnvironment, type CommonSettings, commonSettings, parseEnvironment } from '@rloop/bus';

export type SynthesizerConfig = CommonSettings;

/** Parses the synthesizer's environment once, at start. */
export function loadSynthesizerConfig(env: NodeJS.ProcessEnv = process.env): SynthesizerConfig {
  return Object.freeze(commonSettings(parseEnvironment(CommonEnvironment, env, 'synthesizer'), 'synthesizer'));
}
