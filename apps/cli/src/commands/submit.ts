import type { Command } from 'commander';
import { BUS_ERROR_CODES, BusRequestError } from '@rloop/bus';
import { type RloopEvent, SubmitReply } from '@rloop/contracts';
import { type LoopState, escapeControlChars } from '@rloop/domain';
import { type CliBus, connectCli, fleetNotAnswering, followEvents, permissionViolationOf } from '../bus/connect.js';
import { loadPlanFile } from '../plans/load-plan.js';
import { CliError, type CommandRegistrar } from '../program.js';
import {
  OUTCOMES,
  type Outcome,
  type Progress,
  exitCodeFor,
  initialProgress,
  reduceProgress,
  renderProgress,
} from '../watch/progress.js';
import { busFlagsOf, note, out, parsePositiveInt } from './options.js';
import { loadLoopReport, reportDir, reportSummaryLineFor, waitForJournal, writeLoopReport } from './report.js';

export interface WatchResult {
  readonly outcome: Outcome;
  readonly progress: Progress;
}

/** How often the watch reads the journal when no announcement came (an announcement missed during a reconnect). */
const WATCH_POLL_MS = 2_000;

/**
 * The outcome of a run as the journal's committed state says (null while it goes on). A run that
 * never became the plan's current one (another submission held the slug) ends when the journal
 * has its PlanRejected.
 */
export function outcomeOf(
  state: Pick<LoopState, 'run_id' | 'status'> | null,
  runId: string,
  runEvents: readonly RloopEvent[],
): Outcome | null {
  if (state !== null && state.run_id === runId)
    return (OUTCOMES as readonly string[]).includes(state.status) ? (state.status as Outcome) : null;
  return runEvents.some((e) => e.type === 'PlanRejected') ? 'rejected' : null;
}

/**
 * Follows one run until it reaches an outcome, from what the journal has committed only: each of
 * the journal's announcements for the plan (and a poll, in case one was missed) reads the run's
 * new committed events for the progress line, and the outcome is the run's committed loop state —
 * an event on the bus that the journal refused, or that its history does not support, never ends
 * the watch. `onEvent` sees every committed event of the run; the progress line is redrawn on a
 * terminal and printed per change otherwise.
 */
export async function watchRun(
  bus: CliBus,
  plan: string,
  runId: string,
  options: { json: boolean; timeoutMs?: number },
): Promise<WatchResult> {
  const follow = await followEvents(bus, {
    filter: bus.subjects.event('JournalCommitted', plan),
    channel: 'commits',
    onlyNew: true,
  });
  const tty = process.stderr.isTTY && !options.json;
  let progress = initialProgress(plan);
  let lastLine = '';
  let next = 1;
  let outcome: Outcome | null = null;
  const deadline = options.timeoutMs === undefined ? null : Date.now() + options.timeoutMs;
  const show = (event: RloopEvent): void => {
    progress = reduceProgress(progress, event);
    if (options.json) {
      out(JSON.stringify(event));
      return;
    }
    const line = renderProgress(progress);
    if (line === lastLine) return;
    if (tty) process.stderr.write(`\r\u001b[2K${escapeControlChars(line)}`);
    else note(line);
    lastLine = line;
  };
  const seen: RloopEvent[] = [];
  /** Reads the run's committed events since the last read, then its committed state. */
  const readJournal = async (): Promise<void> => {
    const { entries } = await bus.journal.events(plan, { runId, fromPosition: next });
    for (const entry of entries) {
      next = Math.max(next, entry.position + 1);
      seen.push(entry.event);
      show(entry.event);
    }
    outcome = outcomeOf((await bus.journal.loopState(plan)).state, runId, seen);
  };
  let lostSince: number | null = null;
  /**
   * One read, or — while the fleet's NATS node is being failed over or the journal restarts (a
   * request that times out or finds no responder) — a note and another try at the next poll, from
   * the same position: a watch outlives a node kill and ends with the loop.
   */
  const readJournalOrWait = async (): Promise<void> => {
    try {
      await readJournal();
      if (lostSince !== null && !options.json) note(`${plan}: the journal answers again; watching on`);
      lostSince = null;
    } catch (error) {
      if (!(error instanceof BusRequestError) || error.code === BUS_ERROR_CODES.requestFailed) throw error;
      if (lostSince === null && !options.json)
        note(`${plan}: the journal does not answer (${error.message}); still watching`);
      lostSince ??= Date.now();
    }
  };
  const announcements = follow.events[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<RloopEvent>> | null = null;
  try {
    await readJournal();
    while (outcome === null) {
      const left = deadline === null ? WATCH_POLL_MS : Math.min(WATCH_POLL_MS, deadline - Date.now());
      if (left <= 0) break;
      pending ??= announcements.next();
      let timer: NodeJS.Timeout | undefined;
      const woke = await Promise.race([
        pending.then((r) => (r.done === true ? 'ended' : 'announced')),
        new Promise<'poll'>((resolve) => (timer = setTimeout(() => resolve('poll'), left))),
      ]);
      clearTimeout(timer);
      if (woke !== 'poll') pending = null;
      if (woke === 'ended') break;
      await readJournalOrWait();
    }
  } finally {
    if (tty) process.stderr.write('\n');
    await follow.stop();
  }
  if (outcome === null)
    throw new CliError(
      `stopped watching ${plan} before the loop ended (timeout); it goes on in the fleet — see \`rloop status ${plan}\``,
    );
  return { outcome, progress: { ...progress, outcome } };
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
        if (opts.json !== true)
          note(
            `accepted: ${reply.plan} (event ${reply.event_id}${reply.duplicate ? ', already submitted before' : ''})`,
          );
        if (opts.watch !== true && opts.json !== true) return;
        const result = await watchRun(bus, reply.plan, reply.event_id, {
          json: opts.json === true,
          ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout * 1000 }),
        }).catch((error: unknown) => {
          // A submitter may post plans but not follow the journal: the plan runs all the same.
          if (permissionViolationOf(error) === null) throw error;
          throw new CliError(
            `accepted: ${reply.plan} (event ${reply.event_id}), but this NATS user may not follow what the journal commits — see \`rloop status ${reply.plan}\` as a user that may (docs/security.md#the-bus)`,
          );
        });
        if (opts.json === true) out(summaryLine(reply.plan, result.outcome, result.progress.round));
        else note(await finishedSummary(bus, reply.plan, reply.event_id));
        process.exitCode = exitCodeFor(result.outcome);
      } finally {
        await bus.close();
      }
    });
};
