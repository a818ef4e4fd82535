import type { Letter } from '@rloop/contracts';
import { z } from 'zod';
import type { BudgetState } from './budget.js';
import type { LlmClient } from './client.js';
import { type CommandLimits, type CommandResult, runAllowedCommand } from './commands.js';
import { dataBlock } from './data-blocks.js';
import { Dispatcher, textBlock } from './dispatcher.js';
import type { ModelSpec } from './models.js';
import { IMPLEMENTER_SYSTEM_PROMPT } from './prompts.js';
import type { WrittenTest } from './test-writer.js';
import { defineTool, type LoopTool, runToolLoop, type ToolLoopResult } from './tool-loop.js';
import type { UsageRecord } from './usage.js';
import {
  editWorktreeFile,
  listWorktreeFiles,
  numberLines,
  readWorktreeFile,
  realWorktreeRoot,
  resolveInWorktree,
  searchWorktree,
  writeWorktreeFile,
} from './worktree.js';

export interface ImplementFixOptions {
  readonly letter: Letter;
  /** The red tests from writeFailingTests: shown to the model, and read-only for it. */
  readonly failingTests: readonly WrittenTest[];
  readonly worktreeDir: string;
  /** Model calls allowed. */
  readonly stepBudget: number;
  /** Exact command lines run_tests accepts: the plan's test command and the configured linters. */
  readonly allowedCommands: readonly string[];
  readonly client: LlmClient;
  readonly spec: ModelSpec;
  readonly budget?: BudgetState;
  /** Default 8192. */
  readonly maxOutputTokens?: number;
  readonly caching?: boolean;
  /** Timeout of one run_tests command. Default 5 minutes. */
  readonly commandTimeoutMs?: number;
  /** Environment for commands (secret-looking names are removed; nothing else is inherited). */
  readonly commandEnv?: Readonly<Record<string, string>>;
  /** The operator's output and memory limits for those commands. */
  readonly commandLimits?: CommandLimits;
  readonly signal?: AbortSignal;
}

export interface ImplementFixResult {
  readonly outcome: ToolLoopResult['outcome'];
  readonly steps: number;
  /** The model's closing summary. */
  readonly summary: string;
  /** Files the model wrote or edited (repo-relative), in first-touch order. */
  readonly filesTouched: readonly string[];
  readonly commandsRun: readonly Pick<CommandResult, 'command' | 'exitCode' | 'timedOut' | 'durationMs'>[];
  readonly toolCalls: number;
  readonly usage: UsageRecord;
}

function commandReport(result: CommandResult): string {
  const status = result.timedOut
    ? 'timed out'
    : result.exitCode === null
      ? `killed (${result.signal ?? 'signal'})`
      : `exit code ${result.exitCode}`;
  return [`$ ${result.command}`, status, result.stdout, result.stderr === '' ? '' : `stderr:\n${result.stderr}`]
    .filter((s) => s !== '')
    .join('\n');
}

/**
 * The implementer (step b of the anthropic strategy): a fresh context with the letter and the
 * failing tests, and tools confined to the worktree (read_file, list_files, search, edit_file,
 * write_file, run_tests). The failing tests cannot be edited through the tools; commands run only
 * from the allowlist, without a shell for plain command lines, with a timeout.
 */
export async function implementFix(options: ImplementFixOptions): Promise<ImplementFixResult> {
  const root = await realWorktreeRoot(options.worktreeDir);
  const caching = options.caching ?? true;
  const protectedFiles = new Set(options.failingTests.map((t) => t.file));
  const touched: string[] = [];
  const commands: Pick<CommandResult, 'command' | 'exitCode' | 'timedOut' | 'durationMs'>[] = [];
  const dispatcher = new Dispatcher({
    client: options.client,
    spec: options.spec,
    dispatch: 'implementer',
    round: options.letter.round,
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });

  const guardWrite = async (path: string): Promise<string> => {
    const target = await resolveInWorktree(root, path);
    if (protectedFiles.has(target.relative))
      throw new Error(`${target.relative} is one of the failing tests: fix the code, not the test`);
    return target.relative;
  };
  const noteTouched = (file: string): void => {
    if (!touched.includes(file)) touched.push(file);
  };

  const tools: LoopTool[] = [
    defineTool(
      'read_file',
      'Read a text file of the repository, with line numbers.',
      z.strictObject({ path: z.string().min(1).max(1024) }),
      async ({ path }) => {
        const { relative, content } = await readWorktreeFile(root, path);
        return `${relative}\n${numberLines(content)}`;
      },
    ),
    defineTool(
      'list_files',
      'List the files under a directory of the repository (default: the root), recursively.',
      z.strictObject({ dir: z.string().min(1).max(1024).optional() }),
      async ({ dir }) => {
        const { files, truncated } = await listWorktreeFiles(root, dir ?? '.', 1000);
        return `${files.join('\n')}${truncated ? '\n… (truncated)' : ''}`;
      },
    ),
    defineTool(
      'search',
      'Find lines containing a fixed string (not a regular expression) in the repository.',
      z.strictObject({
        query: z.string().min(1).max(500),
        dir: z.string().min(1).max(1024).optional(),
        ignore_case: z.boolean().optional(),
      }),
      async ({ query, dir, ignore_case }) => {
        const { matches, truncated } = await searchWorktree(root, query, {
          ...(dir === undefined ? {} : { dir }),
          ...(ignore_case === undefined ? {} : { ignoreCase: ignore_case }),
        });
        return matches.length === 0
          ? 'no matches'
          : `${matches.join('\n')}${truncated ? '\n… (more matches not shown)' : ''}`;
      },
    ),
    defineTool(
      'edit_file',
      'Replace one exact, unique occurrence of old_string with new_string in a file.',
      z.strictObject({
        path: z.string().min(1).max(1024),
        old_string: z.string().min(1).max(100_000),
        new_string: z.string().max(100_000),
      }),
      async ({ path, old_string, new_string }) => {
        const file = await guardWrite(path);
        const { line } = await editWorktreeFile(root, file, old_string, new_string);
        noteTouched(file);
        return `edited ${file} at line ${line}`;
      },
    ),
    defineTool(
      'write_file',
      'Create a file, or replace a whole file, with the given content.',
      z.strictObject({ path: z.string().min(1).max(1024), content: z.string().max(500_000) }),
      async ({ path, content }) => {
        const file = await guardWrite(path);
        await writeWorktreeFile(root, file, content);
        noteTouched(file);
        return `wrote ${file}`;
      },
    ),
  ];
  const [firstCommand, ...moreCommands] = options.allowedCommands.map((c) => c.trim()).filter((c) => c !== '');
  if (firstCommand !== undefined) {
    tools.push(
      defineTool(
        'run_tests',
        `Run one of the allowed commands in the repository root and see its output. Allowed commands: ${[firstCommand, ...moreCommands].map((c) => JSON.stringify(c)).join(', ')}.`,
        z.strictObject({ command: z.enum([firstCommand, ...moreCommands]) }),
        async ({ command }) => {
          const result = await runAllowedCommand(command, options.allowedCommands, {
            cwd: root,
            timeoutMs: options.commandTimeoutMs ?? 300_000,
            ...(options.commandEnv === undefined ? {} : { env: options.commandEnv }),
            ...(options.commandLimits === undefined ? {} : { limits: options.commandLimits }),
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          });
          commands.push({
            command: result.command,
            exitCode: result.exitCode,
            timedOut: result.timedOut,
            durationMs: result.durationMs,
          });
          return commandReport(result);
        },
      ),
    );
  }

  const letter = JSON.stringify(
    {
      letter_id: options.letter.letter_id,
      summary: options.letter.summary,
      findings: options.letter.findings.map((f) => ({
        id: f.id,
        severity: f.severity,
        title: f.title,
        file: f.file,
        line_range: f.line_range,
        current_behaviour: f.current_behaviour,
        expected_behaviour: f.expected_behaviour,
      })),
    },
    null,
    2,
  );
  const failing = options.failingTests
    .map((t) => dataBlock('test', t.content, { path: t.file, findings: t.finding_ids.join(',') }))
    .join('\n\n');

  let loop: ToolLoopResult;
  try {
    loop = await runToolLoop({
      dispatcher,
      system: IMPLEMENTER_SYSTEM_PROMPT,
      tools,
      firstMessage: [
        textBlock(
          `## The letter\n${dataBlock('letter', letter)}\n\n## The failing tests\n${failing === '' ? '(none)' : failing}`,
          caching,
        ),
        textBlock('Make the failing tests pass by fixing the code.'),
      ],
      stepBudget: options.stepBudget,
      maxOutputTokens: options.maxOutputTokens ?? 8192,
      caching,
    });
  } catch (error) {
    throw dispatcher.annotate(error);
  }
  return {
    outcome: loop.outcome,
    steps: loop.steps,
    summary: loop.finalText,
    filesTouched: touched,
    commandsRun: commands,
    toolCalls: loop.toolCalls.length,
    usage: dispatcher.record,
  };
}
