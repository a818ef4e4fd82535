import { execFileSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { CODING_AGENTS } from '@rloop/contracts';
import {
  AGENT_PRESETS,
  AGENT_TASK,
  type AgentRun,
  agentCommandLine,
  describeAgentExit,
  shellQuote,
} from './presets.js';

/** The argv /bin/sh makes of a command line (printed one per line by a stand-in), without running the agent. */
function argvOf(commandLine: string): string[] {
  // The redirection stays with the shell; what precedes it is the program and its arguments.
  const words = commandLine.replace(/ < ("\$[A-Z_]+"|\/dev\/null)$/, '');
  const out = execFileSync('/bin/sh', ['-c', `set -- ${words}; for a in "$@"; do printf '%s\\0' "$a"; done`], {
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH'] ?? '',
      RLOOP_AGENT_PROMPT: '/scratch/prompt.md',
      RLOOP_LETTER_MD: '/scratch/letter.md',
    },
  });
  return out.split('\0').slice(0, -1);
}

const RUN: AgentRun = { model: 'model-x', extraArgs: ['--verbose'], files: ['src/money.ts', '-rf.ts'] };

describe('the coding-agent presets (each as its documentation describes its non-interactive mode)', () => {
  it.each([
    [
      'claude-code',
      [
        'claude',
        '-p',
        AGENT_TASK,
        '--permission-mode',
        'acceptEdits',
        '--output-format',
        'text',
        '--model',
        'model-x',
        '--verbose',
      ],
      'stdin',
    ],
    [
      'codex',
      [
        'codex',
        'exec',
        '--sandbox',
        'workspace-write',
        '--ephemeral',
        '--color',
        'never',
        '--model',
        'model-x',
        '--verbose',
        AGENT_TASK,
      ],
      'stdin',
    ],
    [
      'aider',
      [
        'aider',
        '--message-file',
        '/scratch/prompt.md',
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
        '--model',
        'model-x',
        '--verbose',
        '--file=src/money.ts',
        '--file=-rf.ts',
      ],
      'message-file',
    ],
    [
      'gemini',
      [
        'gemini',
        '--prompt',
        AGENT_TASK,
        '--approval-mode',
        'auto_edit',
        '--output-format',
        'text',
        '--model',
        'model-x',
        '--verbose',
      ],
      'stdin',
    ],
  ] as const)(
    'given %s with a model, an extra argument and two files, when its command line is built, then the shell passes exactly its documented arguments',
    (agent, argv, letter) => {
      const preset = AGENT_PRESETS[agent];
      const line = agentCommandLine(preset, RUN);
      expect(argvOf(line)).toEqual(argv);
      expect(preset.letter).toBe(letter);
      // The letter arrives on standard input, or standard input is closed so nothing waits for a person.
      expect(line.endsWith(letter === 'stdin' ? ' < "$RLOOP_LETTER_MD"' : ' < /dev/null')).toBe(true);
    },
  );

  it('given no model and no extra arguments, when a command line is built, then no --model is passed (the agent uses its default)', () => {
    for (const agent of CODING_AGENTS)
      expect(argvOf(agentCommandLine(AGENT_PRESETS[agent], { model: null, extraArgs: [], files: [] }))).not.toContain(
        '--model',
      );
  });

  it('given hostile text in a model or an argument, when quoted for the shell, then it stays one literal argument', () => {
    const hostile = ["'; touch /tmp/pwned; '", '$(id)', '`id`', '"$HOME"', 'a b\tc'];
    for (const text of hostile) expect(argvOf(shellQuote(text))).toEqual([text]);
    expect(
      argvOf(agentCommandLine(AGENT_PRESETS['claude-code'], { model: null, extraArgs: hostile, files: [] })).slice(
        -hostile.length,
      ),
    ).toEqual(hostile);
  });

  it('given each preset, then it names its program, its documentation, the variables its key is read from and a timeout', () => {
    for (const agent of CODING_AGENTS) {
      const preset = AGENT_PRESETS[agent];
      expect(preset.agent).toBe(agent);
      expect(preset.documentation).toMatch(/^https:\/\//);
      expect(preset.credentials.length).toBeGreaterThan(0);
      expect(preset.timeoutMs).toBeGreaterThanOrEqual(60_000);
    }
    expect(AGENT_PRESETS.aider.artifacts).toEqual(['.aider*']);
  });

  it.each([
    ['gemini', 53, 'Gemini CLI reached its turn limit before it finished'],
    ['gemini', 42, 'Gemini CLI refused its input (an invalid prompt or argument)'],
    ['claude-code', 127, "claude is not installed on the implementer's host (not found on its PATH)"],
    ['aider', 126, "aider is on the implementer's PATH but cannot be executed"],
    ['codex', 2, null],
  ] as const)('given %s exiting with %d, then the failed attempt says what it means', (agent, code, meaning) => {
    expect(describeAgentExit(AGENT_PRESETS[agent], code)).toBe(meaning);
  });
});
