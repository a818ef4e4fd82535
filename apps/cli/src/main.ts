import { registerDemo, registerUp } from './commands/fleet.js';
import { registerEscalations, registerJournal, registerLetter, registerStatus } from './commands/read.js';
import { registerSubmit } from './commands/submit.js';
import { CliError, buildProgram } from './program.js';

const program = buildProgram([registerUp, registerDemo, registerSubmit, registerStatus, registerJournal, registerLetter(null), registerEscalations]);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`rloop: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`rloop: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
