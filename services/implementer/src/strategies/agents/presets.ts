import type { CodingAgent } from '@rloop/contracts';

/** An argument of a preset's command line: literal text, or a file rloop prepared (expanded by the shell from its variable). */
export type AgentArg = string | { readonly file: 'letter' | 'prompt' };

/** What a preset is given to build one run's command line. */
export interface AgentRun {
  /** The plan's `implementer.model`; null: the agent's own default. */
  readonly model: string | null;
  /** The plan's `implementer.extra_args` (allowed by the operator), placed before the task. */
  readonly extraArgs: readonly string[];
  /** Files the letter's findings name, repository-relative, inside the worktree (aider edits only the files it is given). */
  readonly files: readonly string[];
}

/**
 * One coding agent's documented non-interactive invocation: the program, its arguments, how it
 * receives the letter, what its exit statuses mean, how long it may take, and what it leaves in
 * the worktree that is not a change (removed before rloop commits).
 */
export interface AgentPreset {
  readonly agent: CodingAgent;
  /** The program, found on the implementer's PATH. */
  readonly program: string;
  /** Where its non-interactive mode is documented. */
  readonly documentation: string;
  /** How the letter reaches it: on standard input (the task is an argument), or in the file of its message option. */
  readonly letter: 'stdin' | 'message-file';
  /** The variables it reads its API key from (the operator maps one in config/trust.yaml `agents.<agent>.env`). */
  readonly credentials: readonly string[];
  /** Longest a run may take unless the operator says otherwise (`agents.<agent>.timeout_minutes`). */
  readonly timeoutMs: number;
  /** Its arguments for one run; the program comes first. */
  args(run: AgentRun): AgentArg[];
  /** What its non-zero exit statuses mean, for the failed attempt's reason; others are "exited with code N". */
  readonly exitStatuses: Readonly<Record<number, string>>;
  /** Pathspecs (git glob syntax) of what it writes into the worktree that is not a change: removed when untracked. */
  readonly artifacts: readonly string[];
}

/**
 * The task every agent is given: the letter says what is wrong; rloop makes the commit, so the agent
 * must not (a strategy that switches branches has its work discarded), and a fix that weakens tests
 * is reverted by the next round's critics anyway.
 */
export const AGENT_TASK = [
  'You are the implementer of a refinement loop. The review letter (on standard input, or in the message file) lists findings of code critics in this repository, ranked, each with where it is, what is wrong and what a fix must make observable.',
  'Fix as many findings as you can, most important first, by editing files in the current directory only.',
  'Keep the change small and the behaviour the letter does not mention unchanged. Do not delete, skip or weaken tests; add tests where a finding asks for them.',
  'Do not commit, switch branches, push or change git configuration: the loop commits your changes and its critics review them in the next round.',
].join(' ');

// TODO(calibration): 30 minutes is the command strategy's default; settle each from FixApplied.duration_ms of real runs.
const THIRTY_MINUTES = 30 * 60_000;

/** The agents the `agent` strategy knows, each as its documentation describes its non-interactive mode. */
export const AGENT_PRESETS: Readonly<Record<CodingAgent, AgentPreset>> = {
  // Print mode: -p runs the query and exits; piped input is the context. acceptEdits lets it edit
  // files without a prompt; other tools that would ask are denied in print mode.
  'claude-code': {
    agent: 'claude-code',
    program: 'claude',
    documentation: 'https://docs.anthropic.com/en/docs/claude-code/headless',
    letter: 'stdin',
    credentials: ['ANTHROPIC_API_KEY'],
    timeoutMs: THIRTY_MINUTES,
    args: (run) => [
      '-p',
      AGENT_TASK,
      '--permission-mode',
      'acceptEdits',
      '--output-format',
      'text',
      ...modelArgs('--model', run),
      ...run.extraArgs,
    ],
    exitStatuses: {
      1: 'Claude Code stopped with an error (its output says which: a refused key, a limit, a tool failure)',
    },
    artifacts: [],
  },
  // `codex exec`: read-only unless --sandbox says otherwise; a prompt argument is the instruction
  // and piped input is appended as context; --ephemeral keeps no session files.
  codex: {
    agent: 'codex',
    program: 'codex',
    documentation: 'https://developers.openai.com/codex/noninteractive',
    letter: 'stdin',
    credentials: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
    timeoutMs: THIRTY_MINUTES,
    args: (run) => [
      'exec',
      '--sandbox',
      'workspace-write',
      '--ephemeral',
      '--color',
      'never',
      ...modelArgs('--model', run),
      ...run.extraArgs,
      AGENT_TASK,
    ],
    exitStatuses: { 1: 'Codex stopped with an error (its output says which)' },
    artifacts: [],
  },
  // Scripting aider: --message-file sends one message and exits; it edits only the files it is
  // given; rloop commits, so aider's own commits and .gitignore edits are off, and its histories
  // go nowhere (they would otherwise be committed with the fix).
  aider: {
    agent: 'aider',
    program: 'aider',
    documentation: 'https://aider.chat/docs/scripting.html',
    letter: 'message-file',
    credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'],
    timeoutMs: THIRTY_MINUTES,
    args: (run) => [
      '--message-file',
      { file: 'prompt' },
      '--yes-always',
      '--no-auto-commits',
      '--no-dirty-commits',
      '--no-gitignore',
      '--no-check-update',
      '--no-pretty',
      '--no-stream',
      '--analytics-disable',
      '--no-restore-chat-history',
      '--chat-history-file=/dev/null',
      '--input-history-file=/dev/null',
      ...modelArgs('--model', run),
      ...run.extraArgs,
      // --file=<path>: a path that starts with a dash is still a value, never an option.
      ...run.files.map((file) => `--file=${file}`),
    ],
    exitStatuses: {
      1: 'aider stopped with an error (its output says which: a model or key problem, a file it could not edit)',
    },
    artifacts: ['.aider*'],
  },
  // Headless mode: -p/--prompt runs once; piped input is the context; auto_edit approves edits,
  // and a tool that would ask is denied in non-interactive mode.
  gemini: {
    agent: 'gemini',
    program: 'gemini',
    documentation: 'https://geminicli.com/docs/cli/headless/',
    letter: 'stdin',
    credentials: ['GEMINI_API_KEY'],
    timeoutMs: THIRTY_MINUTES,
    args: (run) => [
      '--prompt',
      AGENT_TASK,
      '--approval-mode',
      'auto_edit',
      '--output-format',
      'text',
      ...modelArgs('--model', run),
      ...run.extraArgs,
    ],
    exitStatuses: {
      1: 'Gemini CLI stopped with an error or an API failure',
      42: 'Gemini CLI refused its input (an invalid prompt or argument)',
      53: 'Gemini CLI reached its turn limit before it finished',
    },
    artifacts: [],
  },
};

function modelArgs(option: string, run: AgentRun): string[] {
  return run.model === null ? [] : [option, run.model];
}

/** The shell's own statuses for a program that cannot run, whatever the agent. */
const SHELL_STATUSES: Readonly<Record<number, (program: string) => string>> = {
  126: (program) => `${program} is on the implementer's PATH but cannot be executed`,
  127: (program) => `${program} is not installed on the implementer's host (not found on its PATH)`,
};

/** Words for an agent's non-zero exit status, or null when neither the agent nor the shell documents it. */
export function describeAgentExit(preset: AgentPreset, code: number): string | null {
  return SHELL_STATUSES[code]?.(preset.program) ?? preset.exitStatuses[code] ?? null;
}

/** Quotes one argument for /bin/sh: single quotes, with embedded ones closed, escaped and reopened. */
export function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The variables through which the command strategy hands prepared files to the command line. */
export const FILE_VARIABLES = { letter: 'RLOOP_LETTER_MD', prompt: 'RLOOP_AGENT_PROMPT' } as const;

/**
 * The shell command line of one run: every literal argument quoted (a model name or an extra
 * argument is never interpreted by the shell), files by their variable, and the letter on
 * standard input for the agents that read it there.
 */
export function agentCommandLine(preset: AgentPreset, run: AgentRun): string {
  const words = [preset.program, ...preset.args(run)].map((arg) =>
    typeof arg === 'string' ? shellQuote(arg) : `"$${FILE_VARIABLES[arg.file]}"`,
  );
  return preset.letter === 'stdin'
    ? `${words.join(' ')} < "$${FILE_VARIABLES.letter}"`
    : `${words.join(' ')} < /dev/null`;
}
