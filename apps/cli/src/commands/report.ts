import type { Command } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { JournaledEvent } from '@rloop/contracts';
import {
  type LoopReport,
  buildLoopReport,
  renderReportHtml,
  renderReportMarkdown,
  reportSummaryLine,
} from '@rloop/domain';
import { type CliBus, connectCli } from '../bus/connect.js';
import { CliError, type CommandRegistrar } from '../program.js';
import { busFlagsOf, out } from './options.js';

export const REPORT_FORMATS = ['md', 'html', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The final report of a plan's current run, from the journal (its events and the learnings for its finding types). */
export async function loadLoopReport(bus: CliBus, slug: string): Promise<LoopReport> {
  const { entries } = await bus.journal.events(slug);
  if (entries.length === 0) throw new CliError(`no plan ${slug} in the journal`);
  const events: JournaledEvent[] = entries.map((e) => e.event);
  const types = [
    ...new Set(
      events.flatMap((e) => (e.type === 'LetterWritten' ? e.data.letter.findings.map((f) => f.finding_type) : [])),
    ),
  ];
  const learnings =
    types.length === 0 ? [] : await bus.journal.learnings({ findingTypes: types, minLoops: 2, limit: 50 });
  return buildLoopReport(events, learnings);
}

export function renderReport(report: LoopReport, format: ReportFormat): string {
  switch (format) {
    case 'md':
      return renderReportMarkdown(report);
    case 'html':
      return renderReportHtml(report);
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
  }
}

/** Writes the report in every format under `dir` (report.md, report.html, report.json); returns the Markdown's path. */
export async function writeLoopReport(report: LoopReport, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const format of REPORT_FORMATS) await writeFile(join(dir, `report.${format}`), renderReport(report, format));
  return join(dir, 'report.md');
}

/** Where `submit --watch` keeps a finished loop's report: `$RLOOP_HOME/reports/<slug>` (default `.rloop/`). */
export function reportDir(slug: string, home: string = process.env['RLOOP_HOME'] ?? '.rloop'): string {
  return join(resolve(home), 'reports', slug);
}

/** A path as the user would type it from here. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

/** The watch follows the bus; a report reads the journal: wait until the journal has the ending too. */
export async function waitForJournal(bus: CliBus, plan: string, runId: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { state } = await bus.journal.loopState(plan);
    if (state !== null && state.run_id === runId && (state.outcome_event_id !== null || state.status === 'escalated'))
      return;
    if (Date.now() > deadline)
      throw new CliError(`the journal did not record the end of ${plan} within ${timeoutMs / 1000} s`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}

/** `rloop report <slug>`: the final report of a loop — outcome and why, trend, fixes, what is open, cost and time. */
export const registerReport: CommandRegistrar = (program) => {
  program
    .command('report')
    .description(
      "a loop's final report: outcome and why, the trend, key moments, what was fixed (finding → round → commit), what is open, learnings, tests added, cost and time per round",
    )
    .argument('<slug>', 'the plan (its latest run)')
    .option('--format <format>', 'md | html (one self-contained page with the chart) | json', 'md')
    .option('-o, --output <file>', 'write it to a file instead of stdout')
    .action(async (slug: string, opts: { format: string; output?: string }, command: Command) => {
      if (!(REPORT_FORMATS as readonly string[]).includes(opts.format))
        throw new CliError(`--format must be md, html or json, not ${opts.format}`);
      const bus = await connectCli(busFlagsOf(command));
      try {
        const text = renderReport(await loadLoopReport(bus, slug), opts.format as ReportFormat);
        if (opts.output === undefined) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
        else {
          await writeFile(opts.output, text);
          out(`report: ${opts.output}`);
        }
      } finally {
        await bus.close();
      }
    });
};

/** The one-screen summary a finished loop ends with (the report's path as the user would type it). */
export function reportSummaryLineFor(report: LoopReport, path: string): string {
  return reportSummaryLine(report, shownPath(path));
}
