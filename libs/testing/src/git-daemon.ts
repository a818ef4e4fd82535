// A git server of a test's own: repositories under one directory served over git's daemon protocol
// on 127.0.0.1, so that workers with separate homes reach them as another host's repositories.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort, portAccepts } from './ports.js';
import { eventually } from './wait.js';

export interface GitDaemon {
  /** git://127.0.0.1:<port> — append `/<name>` (a directory under the base path). */
  readonly baseUrl: string;
  /** The URL of the repository at `<basePath>/<name>`. */
  urlOf(name: string): string;
  /** The daemon's log (stderr, last 64 KiB). */
  output(): string;
  /** Stops the daemon (SIGTERM, then waits for it to exit). */
  stop(): Promise<void>;
}

/**
 * Starts `git daemon` serving every repository under `basePath` (read and push: receive-pack is
 * enabled, and any object may be fetched by its sha — what a hosting service serves). Resolves once
 * it accepts connections.
 */
export async function startGitDaemon(basePath: string): Promise<GitDaemon> {
  const port = await freePort();
  let log = '';
  const child: ChildProcess = spawn(
    'git',
    [
      '-c',
      'uploadpack.allowAnySHA1InWant=true',
      'daemon',
      '--export-all',
      '--enable=receive-pack',
      '--reuseaddr',
      '--informative-errors',
      `--base-path=${basePath}`,
      `--port=${port}`,
      '--listen=127.0.0.1',
      basePath,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk: Buffer) => (log = `${log}${chunk.toString()}`.slice(-65_536)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`git daemon exited (${code ?? signal}) at start: ${log}`)));
  });
  failed.catch(() => undefined);
  await Promise.race([
    eventually(async () => ((await portAccepts(port)) ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      description: `git daemon on port ${port}`,
    }),
    failed,
  ]);
  const baseUrl = `git://127.0.0.1:${port}`;
  return {
    baseUrl,
    urlOf: (name) => `${baseUrl}/${name}`,
    output: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
