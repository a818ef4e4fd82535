import type { CriticDefinition } from '../critic.js';
import { type ToolchainLanguage, toolchainCritic } from './family.js';
import { goToolchain } from './go.js';
import { pythonToolchain } from './python.js';
import { rustToolchain } from './rust.js';
import { shellToolchain } from './shell.js';

/** The languages of the toolchain family (TypeScript and JavaScript are toolchain/compiler-linter's). */
export const TOOLCHAIN_CRITIC_IDS = ['toolchain/python', 'toolchain/go', 'toolchain/rust', 'toolchain/shell'] as const;
export type ToolchainCriticId = (typeof TOOLCHAIN_CRITIC_IDS)[number];

export interface ToolchainOptions {
  /** The host's environment the tools take PATH, HOME and the locale from (never its secrets). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** Let cargo run build scripts and proc macros (the repository's code): an operator's opt-in. */
  readonly allowBuildScripts?: boolean;
  readonly timeouts?: Readonly<Partial<Record<ToolchainCriticId, number>>>;
}

/** The table: one entry per language, each knowing its files, its project manifests and its tools. */
export function toolchainLanguages(options: ToolchainOptions): ToolchainLanguage[] {
  return [
    pythonToolchain(options.hostEnv),
    goToolchain(options.hostEnv),
    rustToolchain(
      options.hostEnv,
      options.allowBuildScripts === undefined ? {} : { allowBuildScripts: options.allowBuildScripts },
    ),
    shellToolchain(options.hostEnv),
  ];
}

/** One critic per language of the table. */
export function toolchainCritics(options: ToolchainOptions): CriticDefinition[] {
  return toolchainLanguages(options).map((language) => {
    const timeout = options.timeouts?.[language.id as ToolchainCriticId];
    return toolchainCritic(language, timeout === undefined ? {} : { timeoutMs: timeout });
  });
}
