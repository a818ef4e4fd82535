import { CODING_AGENTS, type CodingAgent, type Issue } from '@rloop/contracts';
import { z } from 'zod';
import { oneLine } from '../text/escape.js';
import { SCOPE_LOCK_MODES } from '../scope/scope-lock.js';

// config/trust.yaml: what the operator of a fleet allows. Plans, repositories and model output are
// untrusted input (docs/security.md); this file is the only place that widens what they may do.

/** An exact command line, or `/a regular expression/` that must match the whole command line. */
const CommandPattern = z
  .string()
  .trim()
  .min(1)
  .max(2000)
  .superRefine((pattern, ctx) => {
    if (!isRegexPattern(pattern)) return;
    try {
      new RegExp(pattern.slice(1, -1), 'u');
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `${pattern} is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  });

/**
 * Variables of the services that never reach a plan's command, whatever the operator lists: the
 * API key, the journal's database, the bus's credentials and rloop's own settings.
 */
export function isServiceSecretName(name: string): boolean {
  return /^(ANTHROPIC_|NATS_|RLOOP_|PG)/.test(name) || name === 'DATABASE_URL' || name === 'TEST_POSTGRES_ADMIN_URL';
}

const EnvName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name')
  .refine((name) => !isServiceSecretName(name), {
    error: (issue) =>
      `${String(issue.input)} belongs to the service (API key, database, bus or rloop settings): plan commands never get it`,
  });

/**
 * Variables a coding agent's credential may be given as: its own key's name (ANTHROPIC_API_KEY for
 * Claude Code is the point), but never one that steers rloop, the bus, the database, the shell's
 * lookup of programs or the dynamic linker.
 */
function agentTargetProblem(name: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `${name} must be a variable name`;
  if (
    /^(RLOOP_|NATS_|PG|LD_)/.test(name) ||
    ['DATABASE_URL', 'TEST_POSTGRES_ADMIN_URL', 'PATH', 'HOME', 'SHELL', 'USER', 'LOGNAME', 'TMPDIR'].includes(name)
  ) {
    return `${name} cannot be set for an agent: it belongs to rloop, the bus, the database or the process itself`;
  }
  return null;
}

/** Where a coding agent's credential comes from: a variable of the implementer's environment (never the fleet's own), or a file. */
const CredentialSource = z.union([
  z.strictObject({ from_env: EnvName }),
  z.strictObject({ from_file: z.string().startsWith('/', 'must be an absolute path') }),
]);
export type CredentialSource = z.infer<typeof CredentialSource>;

/** What the operator allows one coding agent (config/trust.yaml `agents.<agent>`). */
const AgentTrust = z.strictObject({
  /** Variables the agent gets besides the base environment: its own credentials, each from a variable or a file. */
  env: z
    .record(z.string(), CredentialSource)
    .superRefine((env, ctx) => {
      for (const name of Object.keys(env)) {
        const problem = agentTargetProblem(name);
        if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, path: [name] });
      }
    })
    .default({}),
  /** Models a plan may name (`implementer.model`), exact or /regex/; empty: plans may not choose (the agent's default). */
  models: z.array(CommandPattern).max(100).default([]),
  /** Arguments a plan may add (`implementer.extra_args`), each matched alone, exact or /regex/; empty: none. */
  extra_args: z.array(CommandPattern).max(100).default([]),
  /** Longest run, in minutes; default the preset's. */
  timeout_minutes: z
    .int()
    .min(1)
    .max(24 * 60)
    .optional(),
});
export type AgentTrust = z.infer<typeof AgentTrust>;

/** The coding agents the operator allows, by preset name; an agent not listed here is refused. */
export const AgentsTrust = z.partialRecord(z.enum(CODING_AGENTS), AgentTrust);
export type AgentsTrust = z.infer<typeof AgentsTrust>;

const SANDBOX_KINDS = ['none', 'bubblewrap'] as const;
export const URL_SCHEMES = ['https', 'ssh', 'http', 'git', 'file'] as const;
export type UrlScheme = (typeof URL_SCHEMES)[number];

/** `github.com`, or `*.example.com` for every subdomain. */
const HostPattern = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$|^[0-9.]+$/,
    'must be a host name, *.domain, or an IP address',
  );

export const TrustConfig = z.strictObject({
  commands: z
    .strictObject({
      /** Commands a plan's `test_cmd` and a `command` implementer may be. Empty: plans can run nothing. */
      allow: z.array(CommandPattern).max(500).default([]),
      /** Variables plan commands get from the service's environment, besides PATH, HOME, the locale, TZ, TERM and TMPDIR. */
      env: z.array(EnvName).max(200).default([]),
      limits: z
        .strictObject({
          /** Output a command may write before it is stopped (the end is kept for the report). */
          output_mb: z.int().min(1).max(4096).default(64),
          /** Data segment of each process it starts (RLIMIT_DATA); null: no limit. */
          memory_mb: z.int().min(64).max(1_048_576).nullable().default(4096),
        })
        .default({ output_mb: 64, memory_mb: 4096 }),
      /** A sandbox for the `command` implementer (a coding agent or script). */
      sandbox: z
        .strictObject({
          kind: z.enum(SANDBOX_KINDS).default('none'),
          /** Whether the sandboxed command may use the network (a coding agent calling its model needs it). */
          network: z.boolean().default(false),
          /** Absolute paths the command may read besides the system (/usr, /etc, …) — e.g. an agent's own configuration. */
          read_only: z.array(z.string().startsWith('/')).max(50).default([]),
          /** Absolute paths it may write besides the worktree (an agent's cache). */
          writable: z.array(z.string().startsWith('/')).max(50).default([]),
          /** Absolute paths it must not see, besides $HOME, $RLOOP_HOME and /tmp (the bus's credentials files, wherever they are). */
          hidden: z.array(z.string().startsWith('/')).max(50).default([]),
        })
        .default({ kind: 'none', network: false, read_only: [], writable: [], hidden: [] }),
      /**
       * Record what the plan's tests execute: the test command's Node.js processes write V8
       * coverage (NODE_V8_COVERAGE, a directory of rloop's), which the implementer journals with
       * the run for the quality/test-coverage critic. Off: no coverage, and that critic says so.
       */
      record_coverage: z.boolean().default(true),
    })
    .default({
      allow: [],
      env: [],
      limits: { output_mb: 64, memory_mb: 4096 },
      sandbox: { kind: 'none', network: false, read_only: [], writable: [], hidden: [] },
      record_coverage: true,
    }),
  repositories: z
    .strictObject({
      /**
       * Directories a plan's `repo.path` may be in (the directory itself or below it, symbolic links
       * resolved): absolute, `~/…`, or relative to $RLOOP_HOME.
       */
      local_roots: z.array(z.string().trim().min(1)).max(100).default([]),
      url: z
        .strictObject({
          /** What a `repo.url` may use (also git's GIT_ALLOW_PROTOCOL for the clone). */
          schemes: z.array(z.enum(URL_SCHEMES)).default(['https', 'ssh']),
          /** Hosts a `repo.url` may name. Empty: no repository by URL. */
          hosts: z.array(HostPattern).max(200).default([]),
          /** Allow hosts on loopback, link-local (cloud metadata) or unspecified addresses. */
          local_addresses: z.boolean().default(false),
        })
        .default({ schemes: ['https', 'ssh'], hosts: [], local_addresses: false }),
    })
    .default({ local_roots: [], url: { schemes: ['https', 'ssh'], hosts: [], local_addresses: false } }),
  /** Coding agents plans may use with `implementer: { strategy: agent }` (docs/security.md#coding-agents). */
  agents: AgentsTrust.default({}),
  eslint: z
    .strictObject({
      /**
       * Load a repository's own eslint.config.* in the compiler-linter critic and the autofix
       * implementer. It is code, run inside those services: off unless the repositories are trusted.
       */
      repository_config: z.boolean().default(false),
    })
    .default({ repository_config: false }),
  toolchains: z
    .strictObject({
      /**
       * Let the Rust toolchain critic compile crates whose build runs code: build scripts
       * (build.rs) and procedural macros, the repository's and its dependencies'. It is code, run
       * inside the critic-runner (offline, with no repository cargo configuration): off unless the
       * repositories are trusted. Without it such crates are not runnable, never silently passed.
       */
      cargo_build_scripts: z.boolean().default(false),
    })
    .default({ cargo_build_scripts: false }),
  scope_lock: z
    .strictObject({
      /**
       * A plan whose files overlap (at their refs) those of a loop still running on the same
       * repository: `queue` waits until that loop ends, `reject` refuses it (scope locking).
       */
      on_overlap: z.enum(SCOPE_LOCK_MODES).default('queue'),
    })
    .default({ on_overlap: 'queue' }),
});
export type TrustConfig = z.infer<typeof TrustConfig>;

/** The file's name under the configuration directory. */
export const TRUST_CONFIG_FILE = 'trust.yaml';

function isRegexPattern(pattern: string): boolean {
  return pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/');
}

/** Whether a command line is allowed: equal to an exact entry (both trimmed) or matched whole by a `/regex/` entry. */
export function isCommandAllowed(command: string, allow: readonly string[]): boolean {
  return matchesEntry(command.trim(), allow);
}

/** Whether a value (an agent's model or one argument, taken as it is) equals an exact entry or is matched whole by a `/regex/` entry. */
function matchesEntry(wanted: string, allow: readonly string[]): boolean {
  if (wanted === '') return false;
  return allow.some((pattern) =>
    isRegexPattern(pattern) ? new RegExp(`^(?:${pattern.slice(1, -1)})$`, 'u').test(wanted) : pattern.trim() === wanted,
  );
}

/** What a plan asks to run: its test command and, for the `command` strategy, the implementer's command. */
export interface PlanCommands {
  readonly test_cmd: string;
  readonly implementer: PlanAgentChoice & { readonly strategy: string; readonly command?: string | undefined };
}

/** What an `agent` implementer asks for. */
export interface PlanAgentChoice {
  readonly strategy: string;
  readonly agent?: CodingAgent | undefined;
  readonly model?: string | undefined;
  readonly extra_args?: readonly string[] | undefined;
}

/**
 * The issues of a plan whose commands the operator has not allowed (none when every one is).
 * Each says where the allowlist is: the rejection is the first thing an operator reads about it.
 */
export function commandIssues(
  plan: PlanCommands,
  allow: readonly string[],
  configFile = `config/${TRUST_CONFIG_FILE}`,
): Issue[] {
  const asked: [string, string][] = [['test_cmd', plan.test_cmd]];
  if (plan.implementer.strategy === 'command' && plan.implementer.command !== undefined)
    asked.push(['implementer.command', plan.implementer.command]);
  return asked
    .filter(([, command]) => !isCommandAllowed(command, allow))
    .map(([path, command]) => ({ path, message: notAllowedMessage(command, configFile) }));
}

/** The one sentence the gate and the implementer say about a command that is not allowed. */
export function notAllowedMessage(command: string, configFile = `config/${TRUST_CONFIG_FILE}`): string {
  return (
    `the command "${oneLine(command.trim()).slice(0, 300)}" is not allowed on this fleet: a plan's commands run on the implementer's host, ` +
    `so the operator lists the ones plans may run in commands.allow of ${configFile} (exact command lines or /regular expressions/)`
  );
}

/**
 * The issues of a plan whose coding agent the operator has not allowed: the agent itself (listed
 * under `agents`), the model it names (`agents.<agent>.models`) and each extra argument
 * (`agents.<agent>.extra_args`). None for other strategies. Pure.
 */
export function agentIssues(
  implementer: PlanAgentChoice,
  agents: AgentsTrust,
  configFile = `config/${TRUST_CONFIG_FILE}`,
): Issue[] {
  if (implementer.strategy !== 'agent' || implementer.agent === undefined) return [];
  const agent = implementer.agent;
  const trust = agents[agent];
  if (trust === undefined) {
    return [
      {
        path: 'implementer.agent',
        message: `the coding agent ${agent} is not allowed on this fleet: an agent runs on the implementer's host with a credential of its own, so the operator lists the agents plans may use under agents of ${configFile}`,
      },
    ];
  }
  const issues: Issue[] = [];
  if (implementer.model !== undefined && !matchesEntry(implementer.model, trust.models)) {
    issues.push({
      path: 'implementer.model',
      message:
        trust.models.length === 0
          ? `plans may not choose ${agent}'s model on this fleet (agents.${agent}.models of ${configFile} is empty): leave implementer.model out`
          : `the model ${oneLine(implementer.model).slice(0, 128)} is not allowed for ${agent}: agents.${agent}.models of ${configFile} lists the ones plans may name`,
    });
  }
  (implementer.extra_args ?? []).forEach((arg, index) => {
    if (!matchesEntry(arg, trust.extra_args)) {
      issues.push({
        path: `implementer.extra_args.${index}`,
        message: `the argument "${oneLine(arg).slice(0, 200)}" is not allowed for ${agent}: agents.${agent}.extra_args of ${configFile} lists the arguments plans may add (exact or /regular expressions/, each argument alone)`,
      });
    }
  });
  return issues;
}
