import { lstat } from 'node:fs/promises';
import type { CodingAgent } from '@rloop/contracts';
import { realWorktreeRoot, resolveInWorktree } from '@rloop/llm';
import type { ProcessLimits } from '../shell/run-shell.js';
import type { SandboxSettings } from '../shell/sandbox.js';
import { AGENT_PRESETS, AGENT_TASK, type AgentPreset, agentCommandLine, describeAgentExit } from './agents/presets.js';
import { createCommandStrategy } from './command.js';
import type { FixContext, FixOutcome, FixStrategy } from './strategy.js';

/** What the operator allows one agent, resolved at start (config/trust.yaml `agents.<agent>`). */
export interface AgentPolicy {
  /** The agent's own credentials, by the variable it reads them from (never the fleet's). */
  readonly env: Readonly<Record<string, string>>;
  /** The run's limit; null: the preset's. */
  readonly timeoutMs: number | null;
}

export interface AgentStrategyOptions {
  readonly agent: CodingAgent;
  /** The plan's `implementer.model` (allowed by the operator); null: the agent's default. */
  readonly model: string | null;
  /** The plan's `implementer.extra_args` (allowed by the operator). */
  readonly extraArgs: readonly string[];
  readonly policy: AgentPolicy;
  /** Output and memory limits (config/trust.yaml `commands.limits`). */
  readonly limits?: ProcessLimits;
  /** The bubblewrap sandbox (config/trust.yaml `commands.sandbox`): an agent calling its model needs `network: true`. */
  readonly sandbox?: SandboxSettings | null;
  readonly tailBytes?: number;
  readonly scratchRoot?: string;
}

/** The letter's files an agent may be handed as paths: regular files inside the worktree (no link out), repository-relative. */
async function filesInside(worktree: string, files: readonly string[]): Promise<string[]> {
  const root = await realWorktreeRoot(worktree);
  const inside: string[] = [];
  for (const file of new Set(files)) {
    const resolved = await resolveInWorktree(root, file).catch(() => null);
    const info = resolved === null ? null : await lstat(resolved.absolute).catch(() => null);
    if (resolved !== null && info?.isFile() === true && !/[\n\r]/.test(resolved.relative))
      inside.push(resolved.relative);
  }
  return [...new Set(inside)].sort();
}

/**
 * The `agent` strategy: a coding-agent CLI run through its preset (strategies/agents/presets.ts) on
 * the command strategy — the same allowlisted environment plus the agent's own credential, the same
 * limits, sandbox and letter files. Its exit status is read with the preset's meanings, and what it
 * leaves that is not a change (caches, histories) is removed before rloop commits.
 */
export function createAgentStrategy(options: AgentStrategyOptions): FixStrategy {
  const preset: AgentPreset = AGENT_PRESETS[options.agent];
  const name = `agent:${preset.agent}`;
  return {
    name,
    async apply(context: FixContext): Promise<FixOutcome> {
      const files = await filesInside(
        context.worktreeDir,
        context.letter.findings.map((f) => f.file),
      );
      const command = createCommandStrategy({
        command: agentCommandLine(preset, { model: options.model, extraArgs: options.extraArgs, files }),
        timeoutMs: options.policy.timeoutMs ?? preset.timeoutMs,
        name,
        label: `the ${preset.agent} agent (${preset.program})`,
        extraEnv: options.policy.env,
        ...(preset.letter === 'message-file' ? { prompt: AGENT_TASK } : {}),
        describeExit: (code) => describeAgentExit(preset, code),
        artifacts: preset.artifacts,
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
        ...(options.tailBytes === undefined ? {} : { tailBytes: options.tailBytes }),
        ...(options.scratchRoot === undefined ? {} : { scratchRoot: options.scratchRoot }),
      });
      return command.apply(context);
    },
  };
}
