import type { Command } from 'commander';
import { BusRequestError } from '@rloop/bus';
import { SubmitReply } from '@rloop/contracts';
import { escapeControlChars } from '@rloop/domain';
import { type CliBus, connectCli, fleetNotAnswering, followEvents, permissionViolationOf } from '../bus/connect.js';
import { loadPlanFile } from '../plans/load-plan.js';
import { CliError, type CommandRegistrar } from '../program.js';
import { type Outcome, type Progress, exitCodeFor, initialProgress, reduceProgress, renderProgress } from '../watch/progress.js';
import { busFlagsOf, note, out, parsePositiveInt } from './options.js';
import { loadLoopReport, reportDir, reportSummaryLineFor, waitForJournal, writeLoopReport } from './report.js';

export interface WatchResult {
  readonly outcome: Outcome;
  readonly progress: Progress;
}

/**
 * Follows one run's events until it reaches an outcome. `onEvent` sees every event of the run;
 * the progress line is redrawn on a terminal and printed per change otherwise.
 */
export async function watchRun(bus: CliBus, plan: string, runId: string, options: { since?: Date; json: boolean; timeoutMs?: number }): Promise<WatchResult> {
  // One filter per consumer on NATS 2.9: `events.*.<plan>` would miss a critic's answers, whose
  // subjects end `.<plan>.<critic>`, so the whole channel is followed and other runs are skipped below.
  const follow = await followEvents(bus, { filter: bus.subjects.channelFilter('events'), ...(options.since === undefined ? {} : { since: options.since }) });
  const tty = process.stderr.isTTY && !options.json;
  let progress = initialProgress(plan);
  let lastLine = '';
  const timer =
    options.timeoutMs === undefined
      ? null
      : setTimeout(() => {
          void follow.stop();
        }, options.timeoutMs);
  try {
    for await (const event of follow.events) {
      if (event.plan !== plan || event.correlation_id !== runId) continue;
      progress = reduceProgress(progress, event);
      if (options.json) {
        out(JSON.stringify(event));
      } else {
        const line = renderProgress(progress);
        if (line !== lastLine) {
          if (tty) process.stderr.write(`\r\u001b[2K${escapeControlChars(line)}`);
          else note(line);
          lastLine = line;
        }
      }
      if (progress.outcome !== null) break;
    }
  } finally {
    if (timer !== null) clearTimeout(timer);
    if (tty) process.stderr.write('\n');
    await follow.stop();
  }
  if (progress.outcome === null) throw new CliError(`stopped watching ${plan} before the loop ended (timeout); it goes on in the fleet — see \`rloop status ${plan}\``);
  return { outcome: progress.outcome, progress };
}

/** Posts a plan through the gate; returns the reply. A missing gate is one clear line. */
export async function postPlan(bus: CliBus, plan: Record<string, unknown>): Promise<SubmitReply> {
  let raw: unknown;
  try {
    raw = await bus.client.request('plans.submit', plan, { timeoutMs: 60_000 });
  } catch (error) {
    if (error instanceof BusRequestError) throw fleetNotAnswering(error);
    throw error;
  }
  return SubmitReply.parse(raw);
}

/** A finished loop's one-screen summary, with its report written under $RLOOP_HOME/reports/<slug>. */
async function finishedSummary(bus: CliBus, plan: string, runId: string): Promise<string> {
  await waitForJournal(bus, plan, runId);
  const report = await loadLoopReport(bus, plan);
  return reportSummaryLineFor(report, await writeLoopReport(report, reportDir(plan)));
}

export function summaryLine(plan: string, outcome: Outcome, rounds: number): string {
  return JSON.stringify({ plan, outcome, rounds });
}

export const registerSubmit: CommandRegistrar = (program) => {
  program
    .command('submit')
    .description('post a plan to the fleet (through the gate); with --watch, follow the loop until it ends')
    .argument('<plan>', 'plan file, YAML or JSON (a relative repo.path is resolved against the file)')
    .option('-w, --watch', 'follow the loop with a live progress line until it converges, escalates or ends')
    .option('--json', 'print one JSON object per event of the run, then a summary line {"plan","outcome","rounds"}')
    .option('--timeout <seconds>', 'stop watching after this many seconds', parsePositiveInt)
    .addHelpText(
      'after',
      '\nExit codes: 0 accepted (or converged/bypassed when watching), 2 escalated, 1 rejected, stopped or an error.\n' +
        'The same request works from any NATS client: request on rloop.v1.plans.submit with the plan as JSON (see docs/contracts.md).',
    )
    .action(async (file: string, opts: { watch?: boolean; json?: boolean; timeout?: number }, command: Command) => {
      const plan = await loadPlanFile(file);
      const bus = await connectCli(busFlagsOf(command));
      try {
        const since = new Date(Date.now() - 2_000);
        const reply = await postPlan(bus, plan);
        if (reply.status === 'rejected') {
          if (opts.json === true) {
            out(JSON.stringify(reply));
            out(summaryLine(reply.plan ?? (typeof plan['slug'] === 'string' ? plan['slug'] : ''), 'rejected', 0));
          } else {
            note(`rejected: ${reply.plan ?? 'plan'} has ${reply.errors.length} problem(s):`);
            for (const e of reply.errors) note(`  ${e.path}: ${e.message}`);
          }
          process.exitCode = 1;
          return;
        }
        if (opts.json !== true) note(`accepted: ${reply.plan} (event ${reply.event_id}${reply.duplicate ? ', already submitted before' : ''})`);
        if (opts.watch !== true && opts.json !== true) return;
        const result = await watchRun(bus, reply.plan, reply.event_id, {
          json: opts.json === true,
          ...(reply.duplicate ? {} : { since }),
          ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout * 1000 }),
        }).catch((error: unknown) => {
          // A submitter may post plans but not read the events stream: the plan runs all the same.
          if (permissionViolationOf(error) === null) throw error;
          throw new CliError(`accepted: ${reply.plan} (event ${reply.event_id}), but this NATS user may not follow its events — see \`rloop status ${reply.plan}\` as a user that may (docs/security.md#the-bus)`);
        });
        if (opts.json === true) out(summaryLine(reply.plan, result.outcome, result.progress.round));
        else note(await finishedSummary(bus, reply.plan, reply.event_id));
        process.exitCode = exitCodeFor(result.outcome);
      } finally {
        await bus.close();
      }
    });
};

