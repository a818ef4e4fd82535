import { join } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_CONFIG_DIR, loadYamlConfig, resolveDir } from '@rloop/bus';
import { HEURISTICS, JOURNAL_QUERIES, PHASES, type JournalReply } from '@rloop/contracts';
import { type CalibrationReport, CriticCatalogue, LoopConfig, calibrate } from '@rloop/domain';
import { type CliBus, connectCli } from '../bus/connect.js';
import type { CommandRegistrar } from '../program.js';
import { busFlagsOf, out, parsePositiveInt } from './options.js';

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function show(value: number | null): string {
  return value === null ? '-' : String(value);
}

async function ask<Q extends 'calibration' | 'learnings'>(
  bus: CliBus,
  query: Q,
  body: unknown,
): Promise<JournalReply<Q>> {
  const spec = JOURNAL_QUERIES[query];
  return spec.reply.parse(
    await bus.client.request(`journal.${query}`, spec.request.parse(body), { timeoutMs: 30_000 }),
  ) as JournalReply<Q>;
}

/** The human view of a calibration report. */
export function renderCalibration(
  report: CalibrationReport,
  learnings: JournalReply<'learnings'>['learnings'],
): string {
  const lines: string[] = [];
  const outcomes = Object.entries(report.outcomes)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  lines.push(`Calibration from ${report.runs} run(s) in the journal${outcomes === '' ? '' : ` (${outcomes})`}.`, '');
  lines.push('Rounds each phase needed to come clean (config/critics.yaml soft_caps):');
  lines.push(
    `  ${pad('PHASE', 13)}${pad('RUNS', 6)}${pad('MEDIAN', 8)}${pad('P90', 6)}${pad('MAX', 6)}${pad('SOFT CAP', 10)}SUGGESTED`,
  );
  for (const phase of PHASES) {
    const p = report.phases[phase];
    lines.push(
      `  ${pad(phase, 13)}${pad(String(p.samples), 6)}${pad(show(p.median), 8)}${pad(show(p.p90), 6)}${pad(show(p.max), 6)}${pad(String(p.soft_cap.current), 10)}${show(p.soft_cap.suggested)}`,
    );
  }
  lines.push('', 'Heuristics (config/loop.yaml): how often each fired, and whether those loops converged afterwards:');
  lines.push(`  ${pad('HEURISTIC', 21)}${pad('FIRED', 7)}${pad('LOOPS', 7)}${pad('CONVERGED', 11)}NOTE`);
  for (const h of HEURISTICS) {
    const s = report.heuristics[h];
    lines.push(
      `  ${pad(h, 21)}${pad(String(s.fired), 7)}${pad(String(s.runs), 7)}${pad(String(s.converged_after), 11)}${s.note}`,
    );
  }
  lines.push('', 'Thresholds:');
  for (const [name, advice] of Object.entries(report.thresholds)) {
    lines.push(
      `  ${pad(name, 27)} now ${pad(String(advice.current), 4)} suggested ${pad(show(advice.suggested), 4)} — ${advice.basis}`,
    );
  }
  if (learnings.length > 0) {
    lines.push('', 'Learnings (patterns seen in two or more loops):');
    for (const l of learnings.slice(0, 10)) {
      lines.push(
        `  ${l.critic_id} ${l.finding_type}: ${l.loops} loops, ${l.rounds_seen} rounds, fixed ${l.fixed}×, stuck ${l.stuck}× — e.g. "${l.example_title}"`,
      );
    }
  }
  if (report.notes.length > 0) lines.push('', ...report.notes.map((n) => `Note: ${n}`));
  return lines.join('\n');
}

/** `rloop calibrate`: what the journal says the TODO(calibration) thresholds should be. */
export const registerCalibrate: CommandRegistrar = (program) => {
  program
    .command('calibrate')
    .description(
      "read the journal and print what the spec's TODO(calibration) thresholds need: rounds per phase, how often each heuristic fired and whether those loops converged afterwards, with suggested values",
    )
    .option('--since <iso-date>', 'only runs started at or after this time')
    .option('--min-runs <n>', 'finished runs needed before anything is suggested', parsePositiveInt, 5)
    .option(
      '--config-dir <dir>',
      'where critics.yaml and loop.yaml are (default: $RLOOP_CONFIG_DIR or the repository config/)',
    )
    .option('--json', 'print the report as JSON (with the learnings)')
    .action(async (opts: { since?: string; minRuns: number; configDir?: string; json?: boolean }, command: Command) => {
      const configDir = opts.configDir ?? process.env['RLOOP_CONFIG_DIR'];
      const dir = configDir === undefined ? DEFAULT_CONFIG_DIR : resolveDir(configDir);
      const [catalogue, loop] = await Promise.all([
        loadYamlConfig(join(dir, 'critics.yaml'), CriticCatalogue),
        loadYamlConfig(join(dir, 'loop.yaml'), LoopConfig),
      ]);
      const bus = await connectCli(busFlagsOf(command));
      try {
        const { runs } = await ask(bus, 'calibration', opts.since === undefined ? {} : { since: opts.since });
        const { learnings } = await ask(bus, 'learnings', { min_loops: loop.learnings.min_loops });
        const report = calibrate(runs, { softCaps: catalogue.soft_caps, loop }, opts.minRuns);
        if (opts.json === true) out(JSON.stringify({ ...report, learnings }, null, 2));
        else out(renderCalibration(report, learnings));
      } finally {
        await bus.close();
      }
    });
};
