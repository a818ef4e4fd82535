import { type Command, Option } from 'commander';
import { stringify as toYaml } from 'yaml';
import type { JournaledEvent } from '@rloop/contracts';
import { journalDocument, renderStuckReportMarkdown } from '@rloop/domain';
import { REPORT_FORMATS, type ReportFormat } from '../format/report.js';
import { connectCli, followEvents } from '../bus/connect.js';
import { CliError, type CommandRegistrar } from '../program.js';
import { busFlagsOf, note, out, parsePositiveInt } from './options.js';

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** `rloop status [slug]`: where each loop stands. */
export const registerStatus: CommandRegistrar = (program) => {
  program
    .command('status')
    .description('show where each plan (or one plan) stands: status, phase, round, open findings, spend')
    .argument('[slug]', 'one plan')
    .option('--json', 'print the status records as JSON')
    .action(async (slug: string | undefined, opts: { json?: boolean }, command: Command) => {
      const bus = await connectCli(busFlagsOf(command));
      try {
        const plans = await bus.journal.status(slug);
        if (slug !== undefined && plans.length === 0) throw new CliError(`no plan ${slug} in the journal`);
        if (opts.json === true) {
          out(JSON.stringify(slug === undefined ? plans : plans[0], null, 2));
          return;
        }
        if (plans.length === 0) {
          out('no plans yet — post one with `rloop submit <plan.yaml>`');
          return;
        }
        out(
          `${pad('PLAN', 28)} ${pad('STATUS', 18)} ${pad('PHASE', 12)} ${pad('ROUND', 6)} ${pad('OPEN', 5)} ${pad('SPEND', 9)} UPDATED`,
        );
        for (const p of plans) {
          out(
            `${pad(p.plan, 28)} ${pad(p.status, 18)} ${pad(p.phase ?? '-', 12)} ${pad(String(p.round), 6)} ${pad(p.findings_open === null ? '-' : String(p.findings_open), 5)} ${pad(`$${p.spend_usd.toFixed(2)}`, 9)} ${p.updated_at ?? '-'}`,
          );
          // Scope locking: a queued plan says which loops it waits for.
          if (p.waiting_for.length > 0) out(`${pad('', 28)} waits for ${p.waiting_for.join(', ')}`);
        }
      } finally {
        await bus.close();
      }
    });
};

/** `rloop journal <slug>`: the plan's history, as events (json) or in the spec's journal.yaml shape. */
export const registerJournal: CommandRegistrar = (program) => {
  program
    .command('journal')
    .description("print a plan's journal: its events (json) or the spec's journal.yaml view (yaml)")
    .argument('<slug>', 'the plan')
    .option('--format <format>', 'json | yaml', 'yaml')
    .option('--all-runs', 'every run of the plan, not only the latest')
    .action(async (slug: string, opts: { format: string; allRuns?: boolean }, command: Command) => {
      if (opts.format !== 'json' && opts.format !== 'yaml')
        throw new CliError(`--format must be json or yaml, not ${opts.format}`);
      const bus = await connectCli(busFlagsOf(command));
      try {
        const { entries } = await bus.journal.events(slug, { scope: opts.allRuns === true ? 'all' : 'current_run' });
        if (entries.length === 0) throw new CliError(`no plan ${slug} in the journal`);
        const events: JournaledEvent[] = entries.map((e) => e.event);
        if (opts.format === 'json') out(JSON.stringify(events, null, 2));
        else out(toYaml(journalDocument(slug, events), { lineWidth: 0 }).trimEnd());
      } finally {
        await bus.close();
      }
    });
};

/** `rloop letter <id>`: one round's letter, in any of the formats `rloop review` prints. */
export const registerLetter: CommandRegistrar = (program) => {
  program
    .command('letter')
    .description(
      "print a round's letter: findings for people (stylish), Markdown, JSON (the source), SARIF, GitHub or GitLab",
    )
    .argument('<id>', 'the letter id (LetterWritten.data.letter.letter_id)')
    .addOption(new Option('--format <format>', 'output format').choices(REPORT_FORMATS).default('md'))
    .option('-o, --output <file>', 'write the letter to a file instead of stdout')
    .action(async (id: string, opts: { format: ReportFormat; output?: string }, command: Command) => {
      const bus = await connectCli(busFlagsOf(command));
      try {
        const letter = await bus.journal.findLetter(id);
        if (letter === null) throw new CliError(`no letter ${id} in the journal`);
        const { printLetter } = await import('../review/print-letter.js');
        printLetter(letter, opts.format, opts.output);
      } finally {
        await bus.close();
      }
    });
};

/** `rloop escalations`: stuck loops waiting for people; --follow keeps printing new ones. */
export const registerEscalations: CommandRegistrar = (program) => {
  program
    .command('escalations')
    .description('list escalations (stuck-issue reports); --follow prints new ones as they are raised')
    .option('--open', 'only loops still waiting for a person')
    .option('--plan <slug>', 'only this plan')
    .option('--limit <n>', 'at most this many', parsePositiveInt, 20)
    .option('-f, --follow', 'keep running and print each new escalation')
    .option('--json', 'one JSON object (the EscalationRaised event) per line')
    .addHelpText(
      'after',
      '\nA pager or chat bot can consume the same thing straight from NATS: subject rloop.v1.events.escalation_raised.<plan>, JSON shape in docs/contracts.md.',
    )
    .action(
      async (
        opts: { open?: boolean; plan?: string; limit: number; follow?: boolean; json?: boolean },
        command: Command,
      ) => {
        const bus = await connectCli(busFlagsOf(command));
        const print = (event: Record<string, unknown>, open: boolean | null): void => {
          if (opts.json === true) {
            out(JSON.stringify(event));
            return;
          }
          const data = event['data'] as
            { markdown?: string; report?: Parameters<typeof renderStuckReportMarkdown>[0] } | undefined;
          const markdown = data?.markdown ?? (data?.report === undefined ? '' : renderStuckReportMarkdown(data.report));
          const at = typeof event['occurred_at'] === 'string' ? event['occurred_at'] : '';
          out(`${open === null ? '' : open ? '[open] ' : '[handled] '}${at}\n${markdown.trimEnd()}\n`);
        };
        try {
          const listed = await bus.journal.escalations({
            open: opts.open === true,
            limit: opts.limit,
            ...(opts.plan === undefined ? {} : { plan: opts.plan }),
          });
          for (const e of [...listed].reverse()) print(e.event, e.open);
          if (listed.length === 0 && opts.follow !== true && opts.json !== true) out('no escalations');
          if (opts.follow !== true) return;
          const seen = new Set(listed.map((e) => e.event.event_id));
          const printOnce = (event: Record<string, unknown>): void => {
            const id = String(event['event_id']);
            if (seen.has(id)) return;
            seen.add(id);
            print(event, null);
          };
          const follow = await followEvents(bus, {
            filter: bus.subjects.event('EscalationRaised', opts.plan ?? '*'),
            onlyNew: true,
          });
          const stop = (): void => void follow.stop();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
          // A plain subscription misses what is raised while the connection is down (a NATS node
          // killed, a failover to another): after each reconnect the journal fills the gap.
          void (async () => {
            for await (const status of bus.connection.status()) {
              if (status.type !== 'reconnect') continue;
              try {
                const recent = await bus.journal.escalations({
                  limit: opts.limit,
                  ...(opts.plan === undefined ? {} : { plan: opts.plan }),
                });
                for (const e of [...recent].reverse()) printOnce(e.event);
              } catch (error) {
                note(
                  `escalations raised while NATS was away may be missing: the journal did not answer (${error instanceof Error ? error.message : String(error)})`,
                );
              }
            }
          })();
          for await (const event of follow.events) printOnce(event);
        } finally {
          await bus.close();
        }
      },
    );
};
