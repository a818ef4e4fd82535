import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderLetterMarkdown } from '@rloop/domain';
import { gitText } from '@rloop/git';
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
}

/** bwrap's arguments for a run in this worktree (its git directories are found from the worktree itself). */
async function sandboxFor(settings: SandboxSettings, worktree: string, scratch: string): Promise<string[]> {
  const gitCommonDir = await gitText(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: worktree });
  const worktreeGitDir = await gitText(['rev-parse', '--absolute-git-dir'], { cwd: worktree });
  const resolved: SandboxSettings = { ...settings, hidden: existingPaths(settings.hidden), readOnly: existingPaths(settings.readOnly), writable: existingPaths(settings.writable) };
  return bubblewrapArgs(resolved, { worktree, gitCommonDir, worktreeGitDir, inputs: [scratch] }, { root: process.getuid?.() === 0 });
}

/**
 * Runs a coding agent (or any script) in the worktree. It finds the letter through environment
 * variables: RLOOP_LETTER_JSON and RLOOP_LETTER_MD (paths to the letter as JSON and as Markdown),
 * RLOOP_ROUND, RLOOP_PLAN (the plan's slug), RLOOP_WORKTREE and RLOOP_LETTER_ID. A non-zero exit,
 * a timeout or output past the limit is a StrategyFailedError carrying the exit code and the
 * output's tail. With a sandbox, it runs in bubblewrap (shell/sandbox.ts).
 */
export function createCommandStrategy(options: CommandStrategyOptions): FixStrategy {
  const tailBytes = options.tailBytes ?? 2000;
  return {
    name: 'command',
    async apply(context: FixContext): Promise<FixOutcome> {
      const scratch = await mkdtemp(join(options.scratchRoot ?? tmpdir(), 'rloop-letter-'));
      try {
        const letterJson = join(scratch, 'letter.json');
        const letterMd = join(scratch, 'letter.md');
        await writeFile(letterJson, `${JSON.stringify(context.letter, null, 2)}\n`);
        await writeFile(letterMd, renderLetterMarkdown(context.letter));
        const sandbox = options.sandbox === undefined || options.sandbox === null ? undefined : await sandboxFor(options.sandbox, context.worktreeDir, scratch);
        const run = await runShell({
          command: options.command,
          cwd: context.worktreeDir,
          env: {
            ...context.env,
            RLOOP_ROUND: String(context.round),
            RLOOP_LETTER_JSON: letterJson,
            RLOOP_LETTER_MD: letterMd,
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
        if (run.aborted) throw new AbortedError('the implementer command');
        if (run.timedOut) {
          throw new StrategyFailedError(`the implementer command timed out after ${options.timeoutMs} ms`, { exitCode: run.exitCode, outputTail: run.tail });
        }
        if (run.outputLimited) {
          throw new StrategyFailedError(`the implementer command wrote more than ${options.limits?.outputBytes ?? 0} bytes of output and was stopped`, { exitCode: run.exitCode, outputTail: run.tail });
        }
        if (run.exitCode !== 0) {
          const how = run.exitCode === null ? `was killed by ${run.signal ?? 'a signal'}` : `exited with code ${run.exitCode}`;
          throw new StrategyFailedError(`the implementer command ${how}`, { exitCode: run.exitCode, outputTail: run.tail });
        }
        return { changedFiles: await changedPaths(context.worktreeDir), log: run.tail };
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  };
}
