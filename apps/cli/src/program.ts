import { Command, CommanderError } from 'commander';

/** A CLI command module: adds itself (with its options and help) to the program. */
export type CommandRegistrar = (program: Command) => void;

export interface ProgramOptions {
  readonly version?: string;
  /** Commands not loaded this time, listed in `rloop --help` by their summary. */
  readonly listed?: readonly { readonly name: string; readonly summary: string }[];
}

/**
 * Builds the `rloop` program from its command modules. Errors are thrown (exitOverride) rather
 * than exiting, so the caller decides the exit code.
 */
export function buildProgram(registrars: readonly CommandRegistrar[], options: ProgramOptions = {}): Command {
  const program = new Command('rloop')
    .description(
      'Refinement Loop: review code where you work (rloop review), post plans, watch loops converge, read letters and journals.',
    )
    .option('--nats-url <url>', 'NATS server of the fleet (default: $NATS_URL or nats://127.0.0.1:4222)')
    .option('--namespace <ns>', 'subject namespace of the fleet (default: $RLOOP_NAMESPACE or rloop)')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (text, write) => write(text) })
    .exitOverride();
  if (options.version !== undefined) program.version(options.version, '-V, --version', 'print the rloop version');
  for (const register of registrars) register(program);
  for (const entry of options.listed ?? []) {
    // A placeholder is only ever listed: the entry point loads the real command whenever its name is on the command line.
    program.command(entry.name).description(entry.summary).allowUnknownOption().allowExcessArguments();
  }
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Thrown by a command for an expected failure: one clear line on stderr and this exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * How an error out of the program ends the process: commander's own (--help and --version exit 0;
 * a usage error has printed its line and exits `usageCode`), a CliError with its code and line,
 * or null for anything else (the caller describes it).
 */
export function outcomeOf(
  error: unknown,
  usageCode: number,
): { readonly exitCode: number; readonly message: string } | null {
  if (error instanceof CommanderError) return { exitCode: error.exitCode === 0 ? 0 : usageCode, message: '' };
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  return null;
}
