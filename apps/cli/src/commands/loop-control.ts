import { hostname } from 'node:os';
import type { Command } from 'commander';
import { ulid } from 'ulid';
import { type EventOf, currentVersion } from '@rloop/contracts';
import { type LoopState, TERMINAL_STATUSES } from '@rloop/domain';
import { setTimeout as sleep } from 'node:timers/promises';
import { type CliBus, connectCli } from '../bus/connect.js';
import { CliError, type CommandRegistrar } from '../program.js';
import { busFlagsOf, out, parsePositiveInt } from './options.js';

/** Who a decision is recorded as: --by, else $USER@host. */
function person(by: string | undefined): string {
  return (by ?? `${process.env['USER'] ?? process.env['USERNAME'] ?? 'someone'}@${hostname()}`).slice(0, 200);
}

async function loopOf(bus: CliBus, slug: string): Promise<LoopState & { run_id: string }> {
  const { state } = await bus.journal.loopState(slug);
  if (state === null || state.run_id === null) throw new CliError(`no plan ${slug} in the journal`);
  return state as LoopState & { run_id: string };
}

const JOURNALED_TIMEOUT_MS = 15_000;

/** Waits (briefly) until the journal has folded the decision, so the command's answer is what happened. */
async function journaled(bus: CliBus, slug: string, check: (state: LoopState) => boolean, what: string): Promise<LoopState> {
  const deadline = Date.now() + JOURNALED_TIMEOUT_MS;
  for (;;) {
    const { state } = await bus.journal.loopState(slug);
    if (state !== null && check(state)) return state;
    if (Date.now() > deadline) throw new CliError(`${what}: published, but the journal has not recorded it within 15 s — is the journal running? (\`rloop status ${slug}\`)`);
    // Polling the journal's reply is the CLI's only view of what got committed.
    await sleep(100);
  }
}

function envelope<T extends 'LoopResumed' | 'LoopStopped'>(type: T, state: LoopState & { run_id: string }, causation: string | null, data: EventOf<T>['data']): EventOf<T> {
  return {
    event_id: ulid(),
    type,
    schema_version: currentVersion(type),
    plan: state.plan,
    correlation_id: state.run_id,
    causation_id: causation,
    occurred_at: new Date().toISOString(),
    producer: `cli@${hostname()}:${process.pid}`,
    data,
  } as EventOf<T>;
}

/** `rloop resume <slug>`: a person's decision to let an escalated loop go on (recorded in the journal). */
export const registerResume: CommandRegistrar = (program) => {
  program
    .command('resume')
    .description('let an escalated loop go on: records LoopResumed (with your note) and the panel starts the next round')
    .argument('<slug>', 'the plan')
    .option('--note <text>', 'why, for the journal (what you fixed by hand, what you decided)')
    .option('--raise-cap <n>', 'extra rounds for the current phase beyond its soft cap', parsePositiveInt)
    .option('--by <name>', 'who decides (default: $USER@host)')
    .option('--json', 'print the LoopResumed event')
    .action(async (slug: string, opts: { note?: string; raiseCap?: number; by?: string; json?: boolean }, command: Command) => {
      const bus = await connectCli(busFlagsOf(command));
      try {
        const state = await loopOf(bus, slug);
        if (state.status !== 'escalated' || state.escalation === null) {
          throw new CliError(`${slug} is ${state.status}, not escalated: there is nothing to resume${TERMINAL_STATUSES.has(state.status) ? ' (the loop has ended; submit the plan again for a new run)' : ''}`);
        }
        const escalationId = state.escalation.escalation_id;
        const [open] = await bus.journal.escalations({ plan: slug, open: true, limit: 1 });
        const cause = typeof open?.event['event_id'] === 'string' ? open.event['event_id'] : null;
        const event = envelope('LoopResumed', state, cause, {
          escalation_id: escalationId,
          by: person(opts.by),
          ...(opts.note === undefined ? {} : { note: opts.note.slice(0, 4000) }),
          ...(opts.raiseCap === undefined ? {} : { raise_cap: opts.raiseCap }),
        });
        await bus.client.publishEvent(event);
        const after = await journaled(bus, slug, (s) => s.run_id === state.run_id && s.status !== 'escalated', `resuming ${slug}`);
        if (opts.json === true) out(JSON.stringify(event));
        else out(`resumed ${slug} (escalation ${escalationId}${opts.raiseCap === undefined ? '' : `, ${opts.raiseCap} more round(s) for the ${state.phase} phase`}); it is ${after.status} now — follow it with \`rloop status ${slug}\``);
      } finally {
        await bus.close();
      }
    });
};

/** Records LoopStopped for a plan's loop that has not ended, and waits until the journal has it. */
export async function stopLoop(bus: CliBus, slug: string, by: string, note?: string): Promise<{ readonly event: EventOf<'LoopStopped'>; readonly was: LoopState }> {
  const state = await loopOf(bus, slug);
  if (TERMINAL_STATUSES.has(state.status)) throw new CliError(`${slug} has already ended (${state.status}): there is nothing to stop`);
  const event = envelope('LoopStopped', state, state.last_event_id, { by: by.slice(0, 200), ...(note === undefined ? {} : { note: note.slice(0, 4000) }) });
  await bus.client.publishEvent(event);
  await journaled(bus, slug, (s) => s.run_id === state.run_id && s.status === 'stopped', `stopping ${slug}`);
  return { event, was: state };
}

/** `rloop stop <slug>`: ends a running or escalated loop (recorded in the journal). */
export const registerStop: CommandRegistrar = (program) => {
  program
    .command('stop')
    .description('end a running or escalated loop: records LoopStopped; nothing more is started for it')
    .argument('<slug>', 'the plan')
    .option('--note <text>', 'why, for the journal')
    .option('--by <name>', 'who decides (default: $USER@host)')
    .option('--json', 'print the LoopStopped event')
    .action(async (slug: string, opts: { note?: string; by?: string; json?: boolean }, command: Command) => {
      const bus = await connectCli(busFlagsOf(command));
      try {
        const { event, was } = await stopLoop(bus, slug, person(opts.by), opts.note);
        if (opts.json === true) out(JSON.stringify(event));
        else out(`stopped ${slug} (it was ${was.status} in round ${was.round}, ${was.phase} phase); its branch keeps the work so far`);
      } finally {
        await bus.close();
      }
    });
};
