import type { CodingAgent, ImplementerStrategy, PlanImplementer } from '@rloop/contracts';
import type { ProcessLimits } from '../shell/run-shell.js';
import type { SandboxSettings } from '../shell/sandbox.js';
import { type AgentPolicy, createAgentStrategy } from './agent.js';
import { createAutofixStrategy } from './autofix.js';
import { createCommandStrategy } from './command.js';
import type { FixStrategy, StrategyResolver } from './strategy.js';

export interface BuiltInStrategyOptions {
  /** Timeout of the `command` strategy's process. */
  readonly commandTimeoutMs: number;
  /** Output and memory limits of the `command` strategy's process. */
  readonly limits?: ProcessLimits;
  /** The `command` strategy's sandbox (config/trust.yaml `commands.sandbox`); null or absent: none. */
  readonly sandbox?: SandboxSettings | null;
  /** Whether autofix loads a repository's own ESLint config (it runs the repository's code). Default false. */
  readonly repositoryEslintConfig?: boolean;
  readonly commandTailBytes?: number;
  readonly scratchRoot?: string;
  /** The coding agents the operator allows, with their credentials (config/trust.yaml `agents`). */
  readonly agents?: Partial<Record<CodingAgent, AgentPolicy>>;
  /** Strategies from elsewhere (e.g. `anthropic`), keyed by the plan's `implementer.strategy`. */
  readonly extra?: Partial<Record<ImplementerStrategy, FixStrategy>>;
}

/** The resolver for the built-in strategies (autofix, command, agent) plus any `extra` ones. */
export function builtInStrategies(options: BuiltInStrategyOptions): StrategyResolver {
  const autofix = createAutofixStrategy({ repositoryEslintConfig: options.repositoryEslintConfig ?? false });
  return (implementer: PlanImplementer) => {
    const extra = options.extra?.[implementer.strategy];
    if (extra !== undefined) return extra;
    switch (implementer.strategy) {
      case 'autofix':
        return autofix;
      case 'command':
        return implementer.command === undefined
          ? null
          : createCommandStrategy({
              command: implementer.command,
              timeoutMs: options.commandTimeoutMs,
              ...(options.limits === undefined ? {} : { limits: options.limits }),
              ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
              ...(options.commandTailBytes === undefined ? {} : { tailBytes: options.commandTailBytes }),
              ...(options.scratchRoot === undefined ? {} : { scratchRoot: options.scratchRoot }),
            });
      case 'agent': {
        const policy = implementer.agent === undefined ? undefined : options.agents?.[implementer.agent];
        if (implementer.agent === undefined || policy === undefined) return null;
        return createAgentStrategy({
          agent: implementer.agent,
          model: implementer.model ?? null,
          extraArgs: implementer.extra_args ?? [],
          policy,
          ...(options.limits === undefined ? {} : { limits: options.limits }),
          ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
          ...(options.commandTailBytes === undefined ? {} : { tailBytes: options.commandTailBytes }),
          ...(options.scratchRoot === undefined ? {} : { scratchRoot: options.scratchRoot }),
        });
      }
      case 'anthropic':
        return null;
    }
  };
}
