import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { isServiceSecretName } from '@rloop/domain';
import { CriticNotRunnableError } from '../errors.js';

/** What a tool printed and how it ended. Tools exit non-zero when they find something: not a failure by itself. */
export interface ToolOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

/** Variables a tool gets from the host: where programs are, who runs, the locale (never the fleet's secrets). */
const BASE_VARIABLES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'RUSTUP_HOME',
  'CARGO_HOME',
  'GOROOT',
] as const;

/**
 * The environment a language tool runs with: the host's base variables (PATH, HOME, the locale,
 * where rustup and cargo keep toolchains) and the critic's own settings for the tool — never the
 * service's secrets (API keys, the journal's database, the bus's credentials), whatever is passed.
 */
export function toolEnvironment(
  host: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BASE_VARIABLES) {
    const value = host[name];
    if (value !== undefined && !isServiceSecretName(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(host))
    if (name.startsWith('LC_') && value !== undefined) env[name] = value;
  env['PATH'] ??= '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
  return { ...env, ...extra };
}

/** The first of `names` found on PATH (an absolute path), or null. */
export function findExecutable(names: readonly string[], path: string | undefined): string | null {
  for (const name of names) {
    if (isAbsolute(name)) {
      if (isExecutable(name)) return name;
      continue;
    }
    for (const dir of (path ?? '').split(delimiter)) {
      if (dir === '') continue;
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    // Missing or not executable: not this one.
    return false;
  }
}

/** A required tool is not installed: fail the critic, saying which tool and how to get it. */
export function toolMissing(language: string, tool: string, install: string): CriticNotRunnableError {
  return new CriticNotRunnableError(
    `${language}: ${tool} is not installed on this host, so the plan's ${language} files cannot be checked (install it: ${install})`,
  );
}

export interface RunToolOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly signal: AbortSignal;
  /** Output past this many bytes stops the tool (default 64 MiB). */
  readonly maxBuffer?: number;
}

/**
 * Runs a tool (no shell) and returns its output whatever its exit code; a tool that cannot be
 * started is not runnable, an abort (the critic's deadline) rejects with the signal's reason.
 */
export function runTool(command: string, args: readonly string[], options: RunToolOptions): Promise<ToolOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...args],
      {
        cwd: options.cwd,
        env: options.env,
        signal: options.signal,
        maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error !== null && (error.name === 'AbortError' || options.signal.aborted)) {
          reject(options.signal.reason instanceof Error ? options.signal.reason : error);
          return;
        }
        if (error !== null && typeof error.code === 'string') {
          reject(
            new CriticNotRunnableError(`${command} could not be started (${error.code}): ${error.message}`, {
              cause: error,
            }),
          );
          return;
        }
        resolve({ stdout, stderr, code: error === null ? 0 : typeof error.code === 'number' ? error.code : null });
      },
    );
  });
}
