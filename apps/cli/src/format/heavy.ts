// The formats that need the critics library (SARIF) or the domain (the letter's Markdown). Only
// the modules that render reports import this, so `rloop --help` never loads them.
import type { Letter } from '@rloop/contracts';
import { renderLetterMarkdown } from '@rloop/domain';
export { letterToSarif } from '@rloop/critics';

const GLOSSARY =
  '\n---\n\n_How to read this: a *letter* is one review’s report. Findings are ranked by *tier* — critical, medium, low; ' +
  'tool warnings rank as critical, because a review is clean only at zero warnings. *Core* checks must all finish ' +
  'for the review to count as complete; *K* is how many findings per check are kept (∞: all)._\n';

/** The letter's Markdown (the format agents read), ending with one glossary line for the terms it uses. */
export function renderLetterMarkdownForPeople(letter: Letter): string {
  return `${renderLetterMarkdown(letter).trimEnd()}\n${GLOSSARY}`;
}
