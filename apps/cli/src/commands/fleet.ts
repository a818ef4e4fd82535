import type { Command } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import type { JournaledEvent } from '@rloop/contracts';
import { TERMINAL_STATUSES, journalDocument, renderLetterMarkdown } from '@rloop/domain';
import { type CliBus, connectCli, resolveBusFlags } from '../bus/connect.js';
import { type Fleet, startFleet } from '../fleet/supervisor.js';
import { loadPlanFile } from '../plans/load-plan.js';
import { CliError, type CommandRegistrar } from '../program.js';
import { exitCodeFor } from '../watch/progress.js';
import { busFlagsOf, note, out, parsePositiveInt } from './options.js';
import { stopLoop } from './loop-control.js';
import { postPlan, watchRun } from './submit.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Checks NATS answers before anything is started, so a missing server is one clear line. */
async function ensureNats(flags: { natsUrl?: string; namespace?: string }): Promise<void> {
  const bus = await connectCli(flags);
  await bus.close();
}

function fleetEnv(flags: { natsUrl?: string; namespace?: string }, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { natsUrl, namespace } = resolveBusFlags(flags);
  return { ...process.env, NATS_URL: natsUrl, RLOOP_NAMESPACE: namespace, ...extra };
}

/** `rloop up`: the whole fleet on this machine, until Ctrl-C. */
export const registerUp: CommandRegistrar = (program) => {
  program
    .command('up')
    .description('start the whole fleet on this machine (journal, gate, panel, critic-runner, synthesizer, implementer)')
    .option('--replicas <n>', 'instances of each service', parsePositiveInt, 1)
    .option('-q, --quiet', "do not echo the services' log lines")
    .addHelpText(
      'after',
      '\nEnvironment: NATS_URL (default nats://127.0.0.1:4222); DATABASE_URL for a PostgreSQL journal (unset: an embedded\n' +
        'PGlite journal under $RLOOP_HOME, default .rloop/); RLOOP_NAMESPACE; ANTHROPIC_API_KEY enables the LLM critics.',
    )
    .action(async (opts: { replicas: number; quiet?: boolean }, command: Command) => {
      const flags = busFlagsOf(command);
      await ensureNats(flags);
      note(`rloop: starting the fleet (${opts.replicas} of each service)…`);
      const fleet = await startFleet({ replicas: opts.replicas, env: fleetEnv(flags), ...(opts.quiet === true ? {} : { onLine: (line) => note(line) }) });
      out('rloop: fleet ready');
      await new Promise<void>((resolveStop, rejectStop) => {
        const stop = (): void => {
          note('rloop: stopping the fleet…');
          fleet.stop().then(resolveStop, rejectStop);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        fleet.unexpectedExit.then(
          (member) => {
            note(`rloop: ${member.label} exited unexpectedly; stopping the fleet. Last lines:\n${member.tail.join('\n')}`);
            process.exitCode = 1;
            stop();
          },
          () => undefined,
        );
      });
    });
};

/** Writes the run's journal and letters next to each other, for reading after the fleet is gone. */
async function exportRun(bus: CliBus, plan: string, dir: string): Promise<{ journal: string; letters: string[]; escalation: string | null }> {
  await mkdir(join(dir, 'letters'), { recursive: true });
  const { entries } = await bus.journal.events(plan);
  const events: JournaledEvent[] = entries.map((e) => e.event);
  const journal = join(dir, 'journal.yaml');
  await writeFile(journal, toYaml(journalDocument(plan, events), { lineWidth: 0 }));
  await writeFile(join(dir, 'events.json'), `${JSON.stringify(events, null, 2)}\n`);
  const letters: string[] = [];
  let escalation: string | null = null;
  for (const event of events) {
    if (event.type === 'EscalationRaised') {
      escalation = join(dir, 'escalation.md');
      await writeFile(escalation, event.data.markdown);
    }
    if (event.type !== 'LetterWritten') continue;
    const letter = event.data.letter;
    const base = join(dir, 'letters', `round-${String(letter.round).padStart(2, '0')}-${letter.letter_id}`);
    await writeFile(`${base}.json`, `${JSON.stringify(letter, null, 2)}\n`);
    await writeFile(`${base}.md`, renderLetterMarkdown(letter));
    letters.push(`${base}.md`);
  }
  return { journal, letters, escalation };
}

/** The watch follows the bus; the export reads the journal: wait until the journal has the ending too. */
async function waitForJournal(bus: CliBus, plan: string, runId: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { state } = await bus.journal.loopState(plan);
    if (state !== null && state.run_id === runId && (state.outcome_event_id !== null || state.status === 'escalated')) return;
    if (Date.now() > deadline) throw new CliError(`the journal did not record the end of ${plan} within ${timeoutMs / 1000} s`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}

interface SampleRepoModule {
  createSampleRepo(dir: string, variant: 'fixable' | 'unfixable', options?: { force?: boolean }): Promise<{ dir: string; commit: string }>;
}

/** `rloop demo`: the fleet on a sample plan, start to finish. */
export const registerDemo: CommandRegistrar = (program) => {
  program
    .command('demo')
    .description('run the fleet on a sample repository and plan: gate, critic rounds, letters, fixes, outcome — then stop')
    .option('--variant <variant>', 'fixable (converges) | unfixable (escalates)', 'fixable')
    .option('-v, --verbose', "echo the services' log lines")
    .action(async (opts: { variant: string; verbose?: boolean }, command: Command) => {
      if (opts.variant !== 'fixable' && opts.variant !== 'unfixable') throw new CliError(`--variant must be fixable or unfixable, not ${opts.variant}`);
      const flags = busFlagsOf(command);
      await ensureNats(flags);
      const home = resolve(process.env['RLOOP_HOME'] ?? join(REPO_ROOT, '.rloop'));
      const samples = (await import(new URL('../../../../examples/sample-repo.mjs', import.meta.url).href)) as SampleRepoModule;
      const repo = await samples.createSampleRepo(join(home, 'samples', opts.variant), opts.variant, { force: true });
      note(`rloop demo: sample repository (${opts.variant}) at ${repo.dir}, commit ${repo.commit.slice(0, 12)}`);
      const planFile = join(REPO_ROOT, 'examples', 'plans', opts.variant === 'fixable' ? 'fixable-high-effort.yaml' : 'unfixable.yaml');
      const plan = { ...(await loadPlanFile(planFile)), repo: { path: repo.dir, ref: 'main' } };
      note(`rloop demo: starting the fleet (journal: ${process.env['DATABASE_URL'] === undefined ? `embedded PGlite under ${relative(process.cwd(), home) || '.'}` : 'DATABASE_URL'})…`);
      const fleet: Fleet = await startFleet({ env: fleetEnv(flags, { RLOOP_HOME: home }), ...(opts.verbose === true ? { onLine: (line) => note(line) } : {}) });
      note('rloop: fleet ready');
      const bus = await connectCli(flags);
      try {
        // The demo owns its sample plan: a run an earlier demo left waiting (escalated) is stopped first.
        const slug = String((plan as Record<string, unknown>)['slug']);
        const { state: previous } = await bus.journal.loopState(slug);
        if (previous !== null && previous.run_id !== null && !TERMINAL_STATUSES.has(previous.status)) {
          await stopLoop(bus, slug, 'rloop demo', 'a new demo run replaces this one');
          note(`rloop demo: stopped the previous ${slug} run (${previous.status})`);
        }
        const since = new Date(Date.now() - 2_000);
        const reply = await postPlan(bus, plan);
        if (reply.status === 'rejected') throw new CliError(`the sample plan was rejected: ${reply.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
        note(`rloop demo: plan ${reply.plan} accepted; following the loop…`);
        const result = await watchRun(bus, reply.plan, reply.event_id, { json: false, since, timeoutMs: 15 * 60_000 });
        await waitForJournal(bus, reply.plan, reply.event_id);
        const exported = await exportRun(bus, reply.plan, join(home, 'demo', reply.plan));
        out(`outcome: ${result.outcome} after ${result.progress.round} round(s) — ${result.progress.detail ?? ''}`);
        out(`branch:  rloop/${reply.plan} in ${repo.dir} (git -C ${repo.dir} log --oneline rloop/${reply.plan})`);
        out(`journal: ${exported.journal}`);
        out(`letters: ${exported.letters.length > 0 ? relative(process.cwd(), join(home, 'demo', reply.plan, 'letters')) : '(none)'} (${exported.letters.length} rounds)`);
        if (exported.escalation !== null) out(`escalation report: ${exported.escalation}`);
        process.exitCode = exitCodeFor(result.outcome);
      } finally {
        await bus.close();
        note('rloop demo: stopping the fleet…');
        await fleet.stop();
      }
    });
};
