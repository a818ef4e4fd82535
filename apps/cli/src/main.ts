import { letterToSarif } from '@rloop/critics';
import { registerCalibrate } from './commands/calibrate.js';
import { registerCritics } from './commands/critics.js';
import { registerDemo, registerUp } from './commands/fleet.js';
import { registerResume, registerStop } from './commands/loop-control.js';
import { registerEscalations, registerJournal, registerLetter, registerStatus } from './commands/read.js';
import { registerReview } from './commands/review.js';
import { registerSubmit } from './commands/submit.js';
import { CliError, buildProgram } from './program.js';

const program = buildProgram([registerUp, registerDemo, registerSubmit, registerStatus, registerJournal, registerLetter((letter) => JSON.stringify(letterToSarif(letter), null, 2)), registerEscalations, registerCritics, registerResume, registerStop, registerCalibrate, registerReview]);

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
