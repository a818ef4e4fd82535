import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderLetterMarkdown } from '@rloop/domain';
import { git, gitText } from '@rloop/git';
import { AbortedError, StrategyFailedError } from '../errors.js';
import { changedPaths } from '../git/diff.js';
import { type ProcessLimits, runShell } from '../shell/run-shell.js';
import { type SandboxSettings, bubblewrapArgs, existingPaths } from '../shell/sandbox.js';
import type { FixContext, FixOutcome, FixStrategy } from './strategy.js';

export interface CommandStrategyOptions {
  /** The plan's `implementer.command`: any coding-agent CLI, run by /bin/sh in the worktree. */
  readonly command: string;
  readonly timeoutMs: number;
  /** Output and memory limits (config/trust.yaml `commands.limits`). */
  readonly limits?: ProcessLimits;
  /** Runs the command in a bubblewrap sandbox: it writes the worktree and nothing else, and sees no secrets. */
  readonly sandbox?: SandboxSettings | null;
  /** How much of the command's output end is kept for the log and the failure reason. Default 2000 bytes. */
  readonly tailBytes?: number;
  /** Where the letter files are written (outside the worktree, so they are never committed). Default: the OS temp dir. */
  readonly scratchRoot?: string;
  /** FixApplied.strategy. Default `command`. */
  readonly name?: string;
  /** How failures name what ran. Default `the implementer command`. */
  readonly label?: string;
  /** Variables added to this command's environment only (a coding agent's own credential). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** A task written before the letter into a prompt file, RLOOP_AGENT_PROMPT (for an agent that reads one message file). */
  readonly prompt?: string;
  /** Words for a non-zero exit status (what an agent documents it to mean); null: just the code. */
  readonly describeExit?: (code: number) => string | null;
  /** Pathspecs of what the command leaves in the worktree that is not a change (an agent's caches): removed when untracked. */
  readonly artifacts?: readonly string[];
}

/** bwrap's arguments for a run in this worktree (its git directories are found from the worktree itself). */
async function sandboxFor(settings: SandboxSettings, worktree: string, scratch: string): Promise<string[]> {
  const gitCommonDir = await gitText(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: worktree });
  const worktreeGitDir = await gitText(['rev-parse', '--absolute-git-dir'], { cwd: worktree });
  const resolved: SandboxSettings = {
    ...settings,
    hidden: existingPaths(settings.hidden),
    readOnly: existingPaths(settings.readOnly),
    writable: existingPaths(settings.writable),
  };
  return bubblewrapArgs(
    resolved,
    { worktree, gitCommonDir, worktreeGitDir, inputs: [scratch] },
    { root: process.getuid?.() === 0 },
  );
}

/**
 * Runs a coding agent (or any script) in the worktree. It finds the letter through environment
 * variables: RLOOP_LETTER_JSON and RLOOP_LETTER_MD (paths to the letter as JSON and as Markdown),
 * RLOOP_ROUND, RLOOP_PLAN (the plan's slug), RLOOP_WORKTREE and RLOOP_LETTER_ID, and with a
 * `prompt` RLOOP_AGENT_PROMPT (the task, then the letter). A non-zero exit, a timeout or output
 * past the limit is a StrategyFailedError carrying the exit code and the output's tail. With a
 * sandbox, it runs in bubblewrap (shell/sandbox.ts). The `agent` strategy is this with a preset's
 * command line (strategies/agent.ts).
 */
export function createCommandStrategy(options: CommandStrategyOptions): FixStrategy {
  const tailBytes = options.tailBytes ?? 2000;
  const label = options.label ?? 'the implementer command';
  return {
    name: options.name ?? 'command',
    async apply(context: FixContext): Promise<FixOutcome> {
      const scratch = await mkdtemp(join(options.scratchRoot ?? tmpdir(), 'rloop-letter-'));
      try {
        const letterJson = join(scratch, 'letter.json');
        const letterMd = join(scratch, 'letter.md');
        const markdown = renderLetterMarkdown(context.letter);
        await writeFile(letterJson, `${JSON.stringify(context.letter, null, 2)}\n`);
        await writeFile(letterMd, markdown);
        const prompt = join(scratch, 'prompt.md');
        if (options.prompt !== undefined) await writeFile(prompt, `${options.prompt}\n\n${markdown}`);
        const sandbox =
          options.sandbox === undefined || options.sandbox === null
            ? undefined
            : await sandboxFor(options.sandbox, context.worktreeDir, scratch);
        const run = await runShell({
          command: options.command,
          cwd: context.worktreeDir,
          env: {
            ...context.env,
            ...options.extraEnv,
            RLOOP_ROUND: String(context.round),
            RLOOP_LETTER_JSON: letterJson,
            RLOOP_LETTER_MD: letterMd,
            ...(options.prompt === undefined ? {} : { RLOOP_AGENT_PROMPT: prompt }),
            RLOOP_LETTER_ID: context.letter.letter_id,
            RLOOP_PLAN: context.letter.plan,
            RLOOP_WORKTREE: context.worktreeDir,
          },
          timeoutMs: options.timeoutMs,
          limits: options.limits,
          sandbox,
          signal: context.signal,
          tailBytes,
        });
        if (run.aborted) throw new AbortedError(label);
        if (run.timedOut) {
          throw new StrategyFailedError(`${label} timed out after ${options.timeoutMs} ms`, {
            exitCode: run.exitCode,
            outputTail: run.tail,
          });
        }
        if (run.outputLimited) {
          throw new StrategyFailedError(
            `${label} wrote more than ${options.limits?.outputBytes ?? 0} bytes of output and was stopped`,
            { exitCode: run.exitCode, outputTail: run.tail },
          );
        }
        if (run.exitCode !== 0) {
          const meaning = run.exitCode === null ? null : (options.describeExit?.(run.exitCode) ?? null);
          const how =
            run.exitCode === null
              ? `was killed by ${run.signal ?? 'a signal'}`
              : `exited with code ${run.exitCode}${meaning === null ? '' : `: ${meaning}`}`;
          throw new StrategyFailedError(`${label} ${how}`, { exitCode: run.exitCode, outputTail: run.tail });
        }
        const cleaned = await removeArtifacts(context.worktreeDir, options.artifacts ?? []);
        const log =
          cleaned.length === 0
            ? run.tail
            : `${run.tail}\n(removed what ${label} left that is not a change: ${cleaned.join(', ')})`;
        return { changedFiles: await changedPaths(context.worktreeDir), log };
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Removes untracked files matching the pathspecs (an agent's caches and histories), so they are
 * not committed with the fix; tracked files and ignored ones (never committed) are left alone.
 * git clean removes a symbolic link itself, never what it points to. Returns what was removed.
 */
async function removeArtifacts(worktree: string, pathspecs: readonly string[]): Promise<string[]> {
  if (pathspecs.length === 0) return [];
  const cleaned = await git(['clean', '-f', '-d', '--', ...pathspecs], { cwd: worktree });
  return cleaned.stdout
    .split('\n')
    .map((line) => /^Removing (.+)$/.exec(line.trim())?.[1])
    .filter((path): path is string => path !== undefined);
}
