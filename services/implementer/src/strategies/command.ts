import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderLetterMarkdown } from '@rloop/domain';
import { AbortedError, StrategyFailedError } from '../errors.js';
import { changedPaths } from '../git/diff.js';
import { runShell } from '../shell/run-shell.js';
import type { FixContext, FixOutcome, FixStrategy } from './strategy.js';

export interface CommandStrategyOptions {
  /** The plan's `implementer.command`: any coding-agent CLI, run by /bin/sh in the worktree. */
  readonly command: string;
  readonly timeoutMs: number;
  /** How much of the command's output end is kept for the log and the failure reason. Default 2000 bytes. */
  readonly tailBytes?: number;
  /** Where the letter files are written (outside the worktree, so they are never committed). Default: the OS temp dir. */
  readonly scratchRoot?: string;
}

/**
 * Runs a coding agent (or any script) in the worktree. It finds the letter through environment
 * variables: RLOOP_LETTER_JSON and RLOOP_LETTER_MD (paths to the letter as JSON and as Markdown),
 * RLOOP_ROUND, RLOOP_PLAN (the plan's slug), RLOOP_WORKTREE and RLOOP_LETTER_ID. A non-zero exit or
 * a timeout is a StrategyFailedError carrying the exit code and the output's tail.
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
          signal: context.signal,
          tailBytes,
        });
        if (run.aborted) throw new AbortedError('the implementer command');
        if (run.timedOut) {
          throw new StrategyFailedError(`the implementer command timed out after ${options.timeoutMs} ms`, { exitCode: run.exitCode, outputTail: run.tail });
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
