import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import type { CodingAgent } from '@rloop/contracts';
import {
  type AgentsTrust,
  type CredentialSource,
  DEFAULT_UNSERVED_FIX_POLICY,
  TRUST_CONFIG_FILE,
  TrustConfig,
  type UnservedFixPolicy,
} from '@rloop/domain';
import {
  type BudgetLimits,
  LlmConfigError,
  type ModelCatalogue,
  type ModelSpec,
  findModelOrThrow,
  loadModelCatalogue,
  registerSecret,
} from '@rloop/llm';
import { z } from 'zod';
import { AgentCredentialError } from './errors.js';
import { commandEnvironment } from './shell/environment.js';
import type { ProcessLimits } from './shell/run-shell.js';
import type { AgentPolicy } from './strategies/agent.js';
import type { SandboxSettings } from './shell/sandbox.js';

const CommandList = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of command lines' });
      return z.NEVER;
    }
  })
  .pipe(z.array(z.string().trim().min(1).max(2000)).max(20));

const ImplementerEnvironment = CommonEnvironment.extend({
  /** Longest a plan's test command may run. */
  RLOOP_TEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(600_000),
  /** Longest a `command` strategy (a coding-agent CLI) may run per round. */
  RLOOP_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(1000).default(1_800_000),
  /** Enables the `anthropic` strategy (test writer → implementer → verifier). Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** Points the Anthropic SDK elsewhere (a proxy, or the test server). */
  ANTHROPIC_BASE_URL: z.url().optional(),
  /**
   * Linter command lines the anthropic implementer may run besides the plan's test command, as a
   * JSON array of exact command lines, e.g. `["npx --no -- eslint ."]`. Default: none.
   */
  RLOOP_LINT_COMMANDS: CommandList.optional(),
  /** Model calls the test writer and the implementer may make per letter. */
  RLOOP_TEST_WRITER_STEPS: z.coerce.number().int().min(1).max(100).default(12),
  RLOOP_IMPLEMENTER_STEPS: z.coerce.number().int().min(1).max(200).default(30),
  /** Most lines a fix may change (red tests excluded) before the verifier refuses it. */
  RLOOP_MAX_DIFF_LINES: z.coerce.number().int().min(1).default(400),
  /**
   * How long after its letter a requested fix may stay unserved (its branch held elsewhere, the
   * repository unreachable) — retried with backoff meanwhile — before the loop escalates with
   * reason implementer_failed. Default 10 minutes.
   */
  RLOOP_FIX_DEADLINE_MS: z.coerce.number().int().min(1000).default(DEFAULT_UNSERVED_FIX_POLICY.deadline_ms),
});

/** What the `anthropic` strategy needs; null without ANTHROPIC_API_KEY (the gate then rejects such plans). */
export interface AnthropicImplementerSettings {
  readonly apiKey: string;
  readonly baseURL?: string;
  readonly models: ModelCatalogue;
  readonly testWriter: ModelSpec;
  readonly implementer: ModelSpec;
  readonly budgets: BudgetLimits;
  readonly lintCommands: readonly string[];
  readonly testWriterSteps: number;
  readonly implementerSteps: number;
  readonly maxDiffLines: number;
}

/** What the operator allows plan commands (config/trust.yaml `commands`), ready to use. */
export interface CommandPolicy {
  /** Exact command lines and /regexes/ a test_cmd or a `command` implementer must match. */
  readonly allow: readonly string[];
  /** The environment every plan command starts from: allowlisted variables of this service's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly limits: ProcessLimits;
  /** The `command` implementer's sandbox; null: none. */
  readonly sandbox: SandboxSettings | null;
  /** Path of config/trust.yaml, named in refusals. */
  readonly trustFile: string;
  /** Record V8 coverage of the plan's test runs (config/trust.yaml `commands.record_coverage`). */
  readonly recordCoverage: boolean;
  /** config/trust.yaml `agents` as written: which agents, models and extra arguments plans may use. */
  readonly agents: AgentsTrust;
  /** The allowed agents with their credentials read (from the variables or files the operator named). */
  readonly agentPolicies: Partial<Record<CodingAgent, AgentPolicy>>;
}

export interface ImplementerConfig extends CommonSettings {
  readonly testTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly anthropic: AnthropicImplementerSettings | null;
  readonly commands: CommandPolicy;
  /** Whether the autofix strategy loads a repository's own ESLint config (config/trust.yaml `eslint.repository_config`). */
  readonly repositoryEslintConfig: boolean;
  /** RLOOP_FIX_DEADLINE_MS and the backoff of a fix that cannot be served. */
  readonly fixDeadline: UnservedFixPolicy;
}

const MIB = 1024 * 1024;

/** One credential of an agent: the variable or file the operator named, read once at start. */
async function readCredential(source: CredentialSource, env: NodeJS.ProcessEnv, where: string): Promise<string> {
  if ('from_env' in source) {
    const value = env[source.from_env];
    if (value === undefined || value.trim() === '')
      throw new AgentCredentialError(
        `${where} reads ${source.from_env}, which is not set in the implementer's environment`,
      );
    return value.trim();
  }
  const text = await readFile(source.from_file, 'utf8').catch((error: unknown) => {
    throw new AgentCredentialError(
      `${where} reads ${source.from_file}, which cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  });
  if (text.trim() === '') throw new AgentCredentialError(`${where} reads ${source.from_file}, which is empty`);
  return text.trim();
}

/**
 * The allowed agents with their credentials resolved. Every credential is registered with the
 * redaction (logs, errors and tool output mask it) before anything can print it; a credential the
 * operator named but that is missing stops the implementer at start, naming it.
 */
export async function agentPolicies(
  agents: AgentsTrust,
  env: NodeJS.ProcessEnv,
  trustFile: string,
): Promise<Partial<Record<CodingAgent, AgentPolicy>>> {
  const policies: Partial<Record<CodingAgent, AgentPolicy>> = {};
  for (const [agent, trust] of Object.entries(agents) as [CodingAgent, AgentsTrust[CodingAgent]][]) {
    if (trust === undefined) continue;
    const credentials: Record<string, string> = {};
    for (const [name, source] of Object.entries(trust.env)) {
      const where = `agents.${agent}.env.${name} of ${trustFile}`;
      const value = await readCredential(source, env, where);
      registerSecret(value);
      // The same value under another name would hand the fleet's own key to a process that runs a plan's code.
      if (value === env['ANTHROPIC_API_KEY']?.trim())
        throw new AgentCredentialError(
          `${where} is the fleet's own ANTHROPIC_API_KEY: give the agent a key of its own (one it can spend and lose without the fleet's)`,
        );
      credentials[name] = value;
    }
    policies[agent] = {
      env: credentials,
      timeoutMs: trust.timeout_minutes === undefined ? null : trust.timeout_minutes * 60_000,
    };
  }
  return policies;
}

/** The command policy from config/trust.yaml and the service's environment. */
export async function commandPolicy(
  trust: TrustConfig,
  env: NodeJS.ProcessEnv,
  home: string,
  trustFile: string,
): Promise<CommandPolicy> {
  const { sandbox } = trust.commands;
  return {
    allow: trust.commands.allow,
    env: commandEnvironment(env, trust.commands.env),
    limits: {
      outputBytes: trust.commands.limits.output_mb * MIB,
      memoryBytes: trust.commands.limits.memory_mb === null ? null : trust.commands.limits.memory_mb * MIB,
    },
    sandbox:
      sandbox.kind === 'none'
        ? null
        : {
            kind: sandbox.kind,
            network: sandbox.network,
            readOnly: sandbox.read_only,
            writable: sandbox.writable,
            hidden: [...new Set([env['HOME'] ?? homedir(), home, ...sandbox.hidden])],
          },
    trustFile,
    recordCoverage: trust.commands.record_coverage,
    agents: trust.agents,
    agentPolicies: await agentPolicies(trust.agents, env, trustFile),
  };
}

/** Parses the implementer's environment, config/trust.yaml (and, with a key, config/models.yaml) once, at start. */
export async function loadImplementerConfig(env: NodeJS.ProcessEnv = process.env): Promise<ImplementerConfig> {
  const parsed = parseEnvironment(ImplementerEnvironment, env, 'implementer');
  const common = commonSettings(parsed, 'implementer');
  const trustFile = join(common.configDir, TRUST_CONFIG_FILE);
  const trust = await loadYamlConfig(trustFile, TrustConfig);
  let anthropic: AnthropicImplementerSettings | null = null;
  if (parsed.ANTHROPIC_API_KEY !== undefined) {
    // Registered before anything can fail, so no error or log line below can carry it.
    registerSecret(parsed.ANTHROPIC_API_KEY);
    const path = join(common.configDir, 'models.yaml');
    const models = await loadModelCatalogue(path);
    if (models.roles === null)
      throw new LlmConfigError(
        `${path} names no roles: the anthropic strategy needs roles.test_writer and roles.implementer`,
      );
    anthropic = {
      apiKey: parsed.ANTHROPIC_API_KEY,
      ...(parsed.ANTHROPIC_BASE_URL === undefined ? {} : { baseURL: parsed.ANTHROPIC_BASE_URL }),
      models,
      testWriter: findModelOrThrow(models, models.roles.testWriter),
      implementer: findModelOrThrow(models, models.roles.implementer),
      budgets: models.budgets,
      lintCommands: parsed.RLOOP_LINT_COMMANDS ?? [],
      testWriterSteps: parsed.RLOOP_TEST_WRITER_STEPS,
      implementerSteps: parsed.RLOOP_IMPLEMENTER_STEPS,
      maxDiffLines: parsed.RLOOP_MAX_DIFF_LINES,
    };
  }
  return Object.freeze({
    ...common,
    testTimeoutMs: parsed.RLOOP_TEST_TIMEOUT_MS,
    commandTimeoutMs: parsed.RLOOP_COMMAND_TIMEOUT_MS,
    anthropic,
    commands: await commandPolicy(trust, env, common.home, trustFile),
    repositoryEslintConfig: trust.eslint.repository_config,
    fixDeadline: { ...DEFAULT_UNSERVED_FIX_POLICY, deadline_ms: parsed.RLOOP_FIX_DEADLINE_MS },
  });
}
