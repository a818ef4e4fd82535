import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import type { JournaledEvent } from '@rloop/contracts';
import { TERMINAL_STATUSES, journalDocument, renderLetterMarkdown } from '@rloop/domain';
import { type CliBus, connectCli, resolveBusFlags } from '../bus/connect.js';
import { ALL_SERVICES, FLEET_SERVICES, type Fleet, type FleetMember, startFleet } from '../fleet/supervisor.js';
import { loadPlanFile } from '../plans/load-plan.js';
import { CliError, type CommandRegistrar } from '../program.js';
import { exitCodeFor } from '../watch/progress.js';
import { writeConsoleAddress } from './console.js';
import { busFlagsOf, note, out, parsePort, parsePositiveInt } from './options.js';
import { loadLoopReport, reportSummaryLineFor, waitForJournal, writeLoopReport } from './report.js';
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

/** Where each member's endpoints are, for the lines `rloop up` prints. */
function endpointLines(members: readonly FleetMember[], host: string): string[] {
  return members
    .filter((m) => m.httpPort !== null && m.service !== 'console')
    .map((m) => `  ${m.label.padEnd(16)} http://${host}:${m.httpPort}/metrics  (/healthz, /readyz)`);
}

/** `rloop up`: the whole fleet on this machine, until Ctrl-C. */
export const registerUp: CommandRegistrar = (program) => {
  program
    .command('up')
    .description(
      'start the whole fleet on this machine (journal, gate, panel, critic-runner, synthesizer, implementer) and the console',
    )
    .option('--replicas <n>', 'instances of each service', parsePositiveInt, 1)
    .option(
      '--port <n>',
      'the console listens here, each service (/healthz, /readyz, /metrics) on the next ports; 0: no HTTP endpoints',
      parsePort,
      9460,
    )
    .option('-q, --quiet', "do not echo the services' log lines")
    .addHelpText(
      'after',
      '\nEnvironment: NATS_URL (default nats://127.0.0.1:4222); DATABASE_URL for a PostgreSQL journal (unset: an embedded\n' +
        'PGlite journal under $RLOOP_HOME, default .rloop/); RLOOP_NAMESPACE; ANTHROPIC_API_KEY enables the LLM critics;\n' +
        'RLOOP_CONSOLE_TOKEN: the ops token the console asks for before resume and stop (unset: one is made up and kept,\n' +
        'with the URL, in $RLOOP_HOME/console.json for `rloop console`).',
    )
    .action(async (opts: { replicas: number; port: number; quiet?: boolean }, command: Command) => {
      const flags = busFlagsOf(command);
      await ensureNats(flags);
      note(`rloop: starting the fleet (${opts.replicas} of each service)…`);
      const given = process.env['RLOOP_CONSOLE_TOKEN'];
      const madeUp = given === undefined || given === '';
      const token = madeUp ? randomBytes(18).toString('base64url') : given;
      const fleet = await startFleet({
        replicas: opts.replicas,
        // The console needs a port: without HTTP endpoints it is left out.
        services: opts.port === 0 ? FLEET_SERVICES : ALL_SERVICES,
        env: fleetEnv(flags, { RLOOP_CONSOLE_TOKEN: token }),
        ...(opts.port === 0 ? {} : { httpPortBase: opts.port }),
        ...(opts.quiet === true ? {} : { onLine: (line) => note(line) }),
      });
      out('rloop: fleet ready');
      if (opts.port !== 0) {
        const url = `http://127.0.0.1:${opts.port}/`;
        const saved = await writeConsoleAddress({ url, token });
        out(
          `console: ${url}  (\`rloop console\` opens it signed in; ops token in ${saved}${madeUp ? ', made up for this run' : ''})`,
        );
        for (const line of endpointLines(fleet.members, '127.0.0.1')) out(line);
      }
      await new Promise<void>((resolveStop, rejectStop) => {
        const stop = (): void => {
          note('rloop: stopping the fleet…');
          fleet.stop().then(resolveStop, rejectStop);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        fleet.unexpectedExit.then(
          (member) => {
            note(
              `rloop: ${member.label} exited unexpectedly; stopping the fleet. Last lines:\n${member.tail.join('\n')}`,
            );
            process.exitCode = 1;
            stop();
          },
          () => undefined,
        );
      });
    });
};

/** Writes the run's journal and letters next to each other, for reading after the fleet is gone. */
async function exportRun(
  bus: CliBus,
  plan: string,
  dir: string,
): Promise<{ journal: string; letters: string[]; escalation: string | null }> {
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

/** The demo's first metrics port (the journal's); the others follow in start order. */
const DEMO_METRICS_PORT = 9461;

/** Saves each member's /metrics as `<service>.prom` under `dir`; returns the directory. */
async function scrapeMetrics(fleet: Fleet, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const member of fleet.members) {
    if (member.httpPort === null) continue;
    const response = await fetch(`http://127.0.0.1:${member.httpPort}/metrics`);
    if (!response.ok) throw new CliError(`${member.label}'s /metrics answered ${response.status}`);
    await writeFile(
      join(dir, `${member.service}${member.index === 1 ? '' : `-${member.index}`}.prom`),
      await response.text(),
    );
  }
  return relative(process.cwd(), dir) || dir;
}

interface SampleRepoModule {
  createSampleRepo(
    dir: string,
    variant: 'fixable' | 'unfixable',
    options?: { force?: boolean },
  ): Promise<{ dir: string; commit: string }>;
}

/** `rloop demo`: the fleet on a sample plan, start to finish. */
export const registerDemo: CommandRegistrar = (program) => {
  program
    .command('demo')
    .description(
      'run the fleet on a sample repository and plan: gate, critic rounds, letters, fixes, outcome — then stop',
    )
    .option('--variant <variant>', 'fixable (converges) | unfixable (escalates)', 'fixable')
    .option('-v, --verbose', "echo the services' log lines")
    .option(
      '--metrics',
      "serve every service's /metrics during the run (ports from 9461) and save a scrape of each next to the journal before the fleet stops",
    )
    .action(async (opts: { variant: string; verbose?: boolean; metrics?: boolean }, command: Command) => {
      if (opts.variant !== 'fixable' && opts.variant !== 'unfixable')
        throw new CliError(`--variant must be fixable or unfixable, not ${opts.variant}`);
      const flags = busFlagsOf(command);
      await ensureNats(flags);
      const home = resolve(process.env['RLOOP_HOME'] ?? join(REPO_ROOT, '.rloop'));
      const samples = (await import(
        new URL('../../../../examples/sample-repo.mjs', import.meta.url).href
      )) as SampleRepoModule;
      const repo = await samples.createSampleRepo(join(home, 'samples', opts.variant), opts.variant, { force: true });
      note(`rloop demo: sample repository (${opts.variant}) at ${repo.dir}, commit ${repo.commit.slice(0, 12)}`);
      const planFile = join(
        REPO_ROOT,
        'examples',
        'plans',
        opts.variant === 'fixable' ? 'fixable-high-effort.yaml' : 'unfixable.yaml',
      );
      const plan = { ...(await loadPlanFile(planFile)), repo: { path: repo.dir, ref: 'main' } };
      note(
        `rloop demo: starting the fleet (journal: ${process.env['DATABASE_URL'] === undefined ? `embedded PGlite under ${relative(process.cwd(), home) || '.'}` : 'DATABASE_URL'})…`,
      );
      const fleet: Fleet = await startFleet({
        env: fleetEnv(flags, { RLOOP_HOME: home }),
        ...(opts.metrics === true ? { httpPortBase: DEMO_METRICS_PORT - 1 } : {}),
        ...(opts.verbose === true ? { onLine: (line) => note(line) } : {}),
      });
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
        const reply = await postPlan(bus, plan);
        if (reply.status === 'rejected')
          throw new CliError(
            `the sample plan was rejected: ${reply.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
          );
        note(`rloop demo: plan ${reply.plan} accepted; following the loop…`);
        const result = await watchRun(bus, reply.plan, reply.event_id, { json: false, timeoutMs: 15 * 60_000 });
        await waitForJournal(bus, reply.plan, reply.event_id);
        const dir = join(home, 'demo', reply.plan);
        const exported = await exportRun(bus, reply.plan, dir);
        const report = await loadLoopReport(bus, reply.plan);
        const reportPath = await writeLoopReport(report, dir);
        out(reportSummaryLineFor(report, reportPath));
        out(`branch:  rloop/${reply.plan} in ${repo.dir} (git -C ${repo.dir} log --oneline rloop/${reply.plan})`);
        out(`journal: ${exported.journal}`);
        out(
          `letters: ${exported.letters.length > 0 ? relative(process.cwd(), join(home, 'demo', reply.plan, 'letters')) : '(none)'} (${exported.letters.length} rounds)`,
        );
        if (exported.escalation !== null) out(`escalation report: ${exported.escalation}`);
        if (opts.metrics === true) out(`metrics: ${await scrapeMetrics(fleet, join(dir, 'metrics'))}`);
        process.exitCode = exitCodeFor(result.outcome);
      } finally {
        await bus.close();
        note('rloop demo: stopping the fleet…');
        await fleet.stop();
      }
    });
};
