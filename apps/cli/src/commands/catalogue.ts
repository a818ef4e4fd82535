import type { CommandRegistrar } from '../program.js';

/**
 * Every `rloop` command: its name, the one line `rloop --help` shows, and how to load it. A
 * command's module (and what it imports: the bus, the critics, the LLM client) is loaded only when
 * that command runs, so `rloop --help` and `rloop --version` start in a fraction of a second. A
 * unit test checks each summary against the loaded command's own description.
 */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  readonly load: () => Promise<CommandRegistrar>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'up',
    summary:
      'start the whole fleet on this machine (journal, gate, panel, critic-runner, synthesizer, implementer) and the console',
    load: async () => (await import('./fleet.js')).registerUp,
  },
  {
    name: 'demo',
    summary: 'run the fleet on a sample repository and plan: gate, critic rounds, letters, fixes, outcome — then stop',
    load: async () => (await import('./fleet.js')).registerDemo,
  },
  {
    name: 'submit',
    summary: 'post a plan to the fleet (through the gate); with --watch, follow the loop until it ends',
    load: async () => (await import('./submit.js')).registerSubmit,
  },
  {
    name: 'status',
    summary: 'show where each plan (or one plan) stands: status, phase, round, open findings, spend',
    load: async () => (await import('./read.js')).registerStatus,
  },
  {
    name: 'journal',
    summary: "print a plan's journal: its events (json) or the spec's journal.yaml view (yaml)",
    load: async () => (await import('./read.js')).registerJournal,
  },
  {
    name: 'letter',
    summary:
      "print a round's letter: findings for people (stylish), Markdown, JSON (the source), SARIF, GitHub or GitLab",
    load: async () => (await import('./read.js')).registerLetter,
  },
  {
    name: 'escalations',
    summary: 'list escalations (stuck-issue reports); --follow prints new ones as they are raised',
    load: async () => (await import('./read.js')).registerEscalations,
  },
  {
    name: 'critics',
    summary: 'list registered critics: evidence type, health (alive/stale), live instances, last heartbeat',
    load: async () => (await import('./critics.js')).registerCritics,
  },
  {
    name: 'resume',
    summary: 'let an escalated loop go on: records LoopResumed (with your note) and the panel starts the next round',
    load: async () => (await import('./loop-control.js')).registerResume,
  },
  {
    name: 'stop',
    summary: 'end a running or escalated loop: records LoopStopped; nothing more is started for it',
    load: async () => (await import('./loop-control.js')).registerStop,
  },
  {
    name: 'report',
    summary:
      "a loop's final report: outcome and why, the trend, key moments, what was fixed (finding → round → commit), what is open, learnings, tests added, cost and time per round",
    load: async () => (await import('./report.js')).registerReport,
  },
  {
    name: 'console',
    summary:
      'open the console (loops, convergence charts, escalations, critics) in a browser, signed in with the ops token `rloop up` made',
    load: async () => (await import('./console.js')).registerConsole,
  },
  {
    name: 'calibrate',
    summary:
      "read the journal and print what the spec's TODO(calibration) thresholds need: rounds per phase, how often each heuristic fired and whether those loops converged afterwards, with suggested values",
    load: async () => (await import('./calibrate.js')).registerCalibrate,
  },
  {
    name: 'review',
    summary:
      'review a directory with every check and print the findings (exit 0 clean, 1 findings, 2 usage error, 3 incomplete)',
    load: async () => (await import('./review.js')).registerReview,
  },
  {
    name: 'deploy',
    summary: 'credentials and configuration for running the fleet for a team (docker-compose.yml)',
    load: async () => (await import('./deploy.js')).registerDeploy,
  },
  {
    name: 'advisories',
    summary: "the OSV export the dependency audit reads offline (RLOOP_ADVISORIES), instead of asking npm's registry",
    load: async () => (await import('./advisories.js')).registerAdvisories,
  },
  {
    name: 'report-pr',
    summary:
      "post a review's findings on a GitHub pull request: comments on changed lines and one summary, updated in place",
    load: async () => (await import('./report-pr.js')).registerReportPr,
  },
];

/**
 * The commands named anywhere in the arguments (normally one). Loading every command whose name
 * appears, rather than guessing which argument is the command, keeps an option value that happens
 * to be a command name (`--namespace review`) from hiding the real one.
 */
export function commandsIn(argv: readonly string[]): CommandEntry[] {
  const words = new Set(argv);
  return COMMANDS.filter((c) => words.has(c.name));
}
