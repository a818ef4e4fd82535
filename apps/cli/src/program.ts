import { Command } from 'commander';

/** A CLI command module: adds itself (with its options and help) to the program. */
export type CommandRegistrar = (program: Command) => void;

/** Builds the `rloop` program from its command modules. */
export function buildProgram(registrars: readonly CommandRegistrar[]): Command {
  const program = new Command('rloop')
    .description('Refinement Loop: post plans, watch loops converge, read letters and journals, review code.')
    .option('--nats-url <url>', 'NATS server of the fleet (default: $NATS_URL or nats://127.0.0.1:4222)')
    .option('--namespace <ns>', 'subject namespace of the fleet (default: $RLOOP_NAMESPACE or rloop)')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (text, write) => write(text) });
  for (const register of registrars) register(program);
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
