import { letterToSarif, renderLetterMarkdownForPeople } from './heavy.js';
import { renderGithubAnnotations } from './github-annotations.js';
import { renderGitlabCodeQuality } from './gitlab.js';
import type { ReportFormat, ReviewReport } from './report.js';
import { renderStylish } from './stylish.js';
import type { Palette } from './terminal.js';

/** The report in one of the formats; stylish is the only one that carries its summary and colour. */
export function renderReport(format: ReportFormat, report: ReviewReport, p: Palette): string {
  switch (format) {
    case 'stylish':
      return renderStylish(report, p);
    case 'json':
      return `${JSON.stringify(report.letter, null, 2)}\n`;
    case 'sarif': {
      const readLine =
        report.readLines === undefined
          ? undefined
          : (file: string, line: number): string | null => report.readLines?.(file)?.[line - 1] ?? null;
      return `${JSON.stringify(letterToSarif(report.letter, { toolVersion: report.toolVersion, ...(readLine === undefined ? {} : { readLine }) }), null, 2)}\n`;
    }
    case 'md':
      return renderLetterMarkdownForPeople(report.letter);
    case 'github':
      return renderGithubAnnotations(report);
    case 'gitlab':
      return renderGitlabCodeQuality(report);
  }
}
