import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError, type CommandRegistrar } from '../program.js';
import { note, out } from './options.js';

/** Where `rloop up` leaves the console's address and ops token for `rloop console` (owner-only). */
export function consoleAddressFile(home: string = process.env['RLOOP_HOME'] ?? '.rloop'): string {
  return join(resolve(home), 'console.json');
}

export async function writeConsoleAddress(
  address: { readonly url: string; readonly token: string },
  file: string = consoleAddressFile(),
): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(address)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

async function readConsoleAddress(file: string): Promise<{ url: string; token: string | null }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new CliError(
      `no console address in ${file} — start the fleet with \`rloop up\` (it serves the console and writes this file), or pass --url`,
    );
  }
  const { url, token } = (raw ?? {}) as { url?: unknown; token?: unknown };
  if (typeof url !== 'string') throw new CliError(`${file} names no console url`);
  return { url, token: typeof token === 'string' ? token : null };
}

/**
 * `rloop console`: prints the console's URL and opens it in a browser (xdg-open / open) when
 * there is one. The ops token goes in the URL's fragment, which browsers never send to servers.
 */
export const registerConsole: CommandRegistrar = (program) => {
  program
    .command('console')
    .description(
      'open the console (loops, convergence charts, escalations, critics) in a browser, signed in with the ops token `rloop up` made',
    )
    .option('--url <url>', 'the console to open (default: the one `rloop up` started, from $RLOOP_HOME/console.json)')
    .option('--print', 'only print the URL')
    .action(async (opts: { url?: string; print?: boolean }, _command: Command) => {
      const address =
        opts.url === undefined ? await readConsoleAddress(consoleAddressFile()) : { url: opts.url, token: null };
      const signedIn =
        address.token === null
          ? address.url
          : `${address.url.replace(/#.*$/, '')}#token=${encodeURIComponent(address.token)}`;
      out(`console: ${address.url}`);
      if (opts.print === true) return;
      const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
      const child = spawn(opener, [signedIn], { stdio: 'ignore', detached: true });
      child.on('error', () =>
        note(
          `rloop: could not run ${opener}; open ${address.url} yourself (the ops token is in ${consoleAddressFile()})`,
        ),
      );
      child.unref();
    });
};
