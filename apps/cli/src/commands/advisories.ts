import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  AdvisoriesDownloadError,
  ECOSYSTEMS,
  type Ecosystem,
  OSV_EXPORT_BASE_URL,
  ecosystemNamed,
  updateAdvisories,
} from '@rloop/critics';
import { CliError, type CommandRegistrar } from '../program.js';
import { note, out } from './options.js';

/**
 * Where `rloop advisories update` writes: --dir, else RLOOP_ADVISORIES (what the critics read),
 * else $RLOOP_HOME/advisories. RLOOP_ADVISORIES naming a single zip cannot take several ecosystems.
 */
export function advisoriesDir(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (given !== undefined) return resolve(given);
  const configured = env['RLOOP_ADVISORIES'];
  if (configured !== undefined && configured !== '') {
    let file = false;
    try {
      file = statSync(configured).isFile();
    } catch {
      // Not there yet: the update creates it as a directory.
    }
    if (file)
      throw new CliError(
        `RLOOP_ADVISORIES names a file (${configured}); pass --dir <directory> to download into, and point RLOOP_ADVISORIES at it`,
        2,
      );
    return resolve(configured);
  }
  return resolve(env['RLOOP_HOME'] ?? '.rloop', 'advisories');
}

function ecosystemsOf(names: readonly string[]): Ecosystem[] {
  return names.map((name) => {
    const ecosystem = ecosystemNamed(name);
    if (ecosystem === null)
      throw new CliError(`unknown ecosystem "${name}"; the audit reads ${ECOSYSTEMS.join(', ')}`, 2);
    return ecosystem;
  });
}

/** `rloop advisories update [--ecosystem npm …] [--dir <dir>] [--url <mirror>]`. */
export const registerAdvisories: CommandRegistrar = (program) => {
  const advisories = program
    .command('advisories')
    .description(
      "the OSV export the dependency audit reads offline (RLOOP_ADVISORIES), instead of asking npm's registry",
    );
  advisories
    .command('update')
    .description(
      "download osv.dev's export of each ecosystem (<dir>/<ecosystem>/all.zip) for offline dependency audits",
    )
    .option('--ecosystem <name...>', `ecosystems to download (${ECOSYSTEMS.join(', ')})`, ['npm'])
    .option('--dir <dir>', 'the export directory (default: $RLOOP_ADVISORIES, else $RLOOP_HOME/advisories)')
    .option('--url <base>', "a mirror of osv.dev's export bucket", OSV_EXPORT_BASE_URL)
    .addHelpText(
      'after',
      '\nThe critic-runner and `rloop review` read the export when RLOOP_ADVISORIES names it (or `rloop review --advisories <path>`).\n' +
        'Without network access to osv.dev, download <url>/<ecosystem>/all.zip elsewhere and copy it to <dir>/<ecosystem>/all.zip.',
    )
    .action(async (opts: { ecosystem: string[]; dir?: string; url: string }) => {
      const dir = advisoriesDir(opts.dir);
      for (const ecosystem of ecosystemsOf(opts.ecosystem)) {
        note(`rloop: downloading ${opts.url.replace(/\/+$/, '')}/${ecosystem}/all.zip …`);
        try {
          const result = await updateAdvisories({ ecosystem, dir, baseUrl: opts.url });
          out(
            `${ecosystem}: ${result.records} records, newest modified ${result.newestModified ?? 'unknown'}, ${(result.bytes / 1_048_576).toFixed(1)} MiB → ${result.file}`,
          );
        } catch (error) {
          if (error instanceof AdvisoriesDownloadError) throw new CliError(error.message, 1);
          throw error;
        }
      }
      out(`Use it: RLOOP_ADVISORIES=${dir} (the critic-runner, \`rloop up\`, \`rloop review\`)`);
    });
  advisories
    .command('path')
    .description('print the export directory `rloop advisories update` writes to')
    .option('--dir <dir>', 'the export directory')
    .action((opts: { dir?: string }) => {
      out(advisoriesDir(opts.dir));
    });
};
