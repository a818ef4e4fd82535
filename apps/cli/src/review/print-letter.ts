import { writeFileSync } from 'node:fs';
import type { Letter } from '@rloop/contracts';
import { maskSecretsDeep } from '@rloop/domain';
import { renderReport } from '../format/render.js';
import type { ReportFormat } from '../format/report.js';
import { colourWanted, palette } from '../format/terminal.js';
import { cliVersion } from '../version.js';
import { reviewEnvironment } from './environment.js';

/** Prints (or writes) a letter from the journal in one of the report formats. */
export function printLetter(letter: Letter, format: ReportFormat, output: string | undefined): void {
  const env = reviewEnvironment(process.env);
  const colour =
    output === undefined && colourWanted({ FORCE_COLOR: env.forceColor, NO_COLOR: env.noColor }, process.stdout.isTTY);
  const text = renderReport(
    format,
    { letter: maskSecretsDeep(letter), failOn: 'critical', notes: [], verbose: false, toolVersion: cliVersion() },
    palette(colour),
  );
  if (output === undefined) process.stdout.write(text);
  else writeFileSync(output, text);
}
