import { hostname } from 'node:os';
import type { Command } from 'commander';
import { type EventOf } from '@rloop/contracts';
import { type LoopState } from '@rloop/domain';
import { type LoopControlPorts, resumeLoop, stopLoop as recordStop } from '@rloop/journal-client';
import { type CliBus, connectCli } from '../bus/connect.js';
import type { CommandRegistrar } from '../program.js';
import { busFlagsOf, out, parsePositiveInt } from './options.js';

/** Who a decision is recorded as: --by, else $USER@host. */
function person(by: string | undefined): string {
  return (by ?? `${process.env['USER'] ?? process.env['USERNAME'] ?? 'someone'}@${hostname()}`).slice(0, 200);
}

/** The CLI's side of the shared decision path (the console records decisions through the same functions). */
function ports(bus: CliBus): LoopControlPorts {
  return {
    journal: bus.journal,
    publish: (event) => bus.client.publishEvent(event),
    producer: `cli@${hostname()}:${process.pid}`,
  };
}

/** `rloop resume <slug>`: a person's decision to let an escalated loop go on (recorded in the journal). */
export const registerResume: CommandRegistrar = (program) => {
  program
    .command('resume')
    .description(
      'let an escalated loop go on: records LoopResumed (with your note) and the panel starts the next round',
    )
    .argument('<slug>', 'the plan')
    .option('--note <text>', 'why, for the journal (what you fixed by hand, what you decided)')
    .option('--raise-cap <n>', 'extra rounds for the current phase beyond its soft cap', parsePositiveInt)
    .option('--by <name>', 'who decides (default: $USER@host)')
    .option('--json', 'print the LoopResumed event')
    .action(
      async (
        slug: string,
        opts: { note?: string; raiseCap?: number; by?: string; json?: boolean },
        command: Command,
      ) => {
        const bus = await connectCli(busFlagsOf(command));
        try {
          const { event, was, now } = await resumeLoop(ports(bus), slug, {
            by: person(opts.by),
            ...(opts.note === undefined ? {} : { note: opts.note }),
            ...(opts.raiseCap === undefined ? {} : { raiseCap: opts.raiseCap }),
          });
          if (opts.json === true) out(JSON.stringify(event));
          else
            out(
              `resumed ${slug} (escalation ${event.data.escalation_id}${opts.raiseCap === undefined ? '' : `, ${opts.raiseCap} more round(s) for the ${was.phase} phase`}); it is ${now.status} now — follow it with \`rloop status ${slug}\``,
            );
        } finally {
          await bus.close();
        }
      },
    );
};

/** Records LoopStopped for a plan's loop that has not ended, and waits until the journal has it. */
export async function stopLoop(
  bus: CliBus,
  slug: string,
  by: string,
  note?: string,
): Promise<{ readonly event: EventOf<'LoopStopped'>; readonly was: LoopState }> {
  return recordStop(ports(bus), slug, { by, ...(note === undefined ? {} : { note }) });
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
        else
          out(
            `stopped ${slug} (it was ${was.status} in round ${was.round}, ${was.phase} phase); its branch keeps the work so far`,
          );
      } finally {
        await bus.close();
      }
    });
};
