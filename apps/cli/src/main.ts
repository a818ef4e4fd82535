import { letterToSarif } from '@rloop/critics';
import { escapeControlChars } from '@rloop/domain';
import { asCliError } from './bus/connect.js';
import { registerAdvisories } from './commands/advisories.js';
import { registerCalibrate } from './commands/calibrate.js';
import { registerConsole } from './commands/console.js';
import { registerCritics } from './commands/critics.js';
import { registerDeploy } from './commands/deploy.js';
import { registerDemo, registerUp } from './commands/fleet.js';
import { registerResume, registerStop } from './commands/loop-control.js';
import { registerEscalations, registerJournal, registerLetter, registerStatus } from './commands/read.js';
import { registerReport } from './commands/report.js';
import { registerReview } from './commands/review.js';
import { registerSubmit } from './commands/submit.js';
import { buildProgram } from './program.js';

const program = buildProgram([registerUp, registerDemo, registerSubmit, registerStatus, registerJournal, registerLetter((letter) => JSON.stringify(letterToSarif(letter), null, 2)), registerEscalations, registerCritics, registerResume, registerStop, registerReport, registerConsole, registerCalibrate, registerReview, registerDeploy, registerAdvisories]);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const failure = asCliError(error);
  process.stderr.write(`rloop: ${escapeControlChars(failure.message)}\n`);
  process.exitCode = failure.exitCode;
}
