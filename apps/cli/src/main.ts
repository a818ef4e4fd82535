import { COMMANDS, commandsIn } from './commands/catalogue.js';
import { buildProgram, outcomeOf } from './program.js';
import { cliVersion } from './version.js';

// Only the commands named on the command line are loaded; the others are listed for --help by
// their one-line summary. `rloop --help` and `rloop --version` load no command at all.
const args = process.argv.slice(2);
const wanted = commandsIn(args);
const registrars = await Promise.all(wanted.map((c) => c.load()));
const program = buildProgram(registrars, {
  version: cliVersion(),
  listed: COMMANDS.filter((c) => !wanted.includes(c)),
});

/** Commands whose usage errors exit 2 (ESLint's and Semgrep's convention); the others keep 1, since `submit --watch` uses 2 for "escalated". */
const USAGE_EXIT_2 = new Set(['review', 'report-pr', 'advisories']);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const usageCode = wanted.length === 0 || wanted.some((c) => USAGE_EXIT_2.has(c.name)) ? 2 : 1;
  const outcome = outcomeOf(error, usageCode) ?? (await import('./bus/connect.js')).asCliError(error);
  // Messages quote files, critics and the journal: note() shows control characters escaped. It is
  // loaded only here, so `rloop --help` stays fast.
  if (outcome.message !== '') (await import('./commands/options.js')).note(`rloop: ${outcome.message}`);
  process.exitCode = outcome.exitCode;
}
