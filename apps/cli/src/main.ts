import { CliError, buildProgram } from './program.js';

const program = buildProgram([]);

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
