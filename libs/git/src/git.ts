import { spawn } from 'node:child_process';
import { GitCommandError } from './errors.js';

export interface GitOptions {
  /** Directory git runs in (`git -C`). */
  readonly cwd: string;
  /** Text written to git's standard input. */
  readonly input?: string;
  /** Extra environment variables (e.g. GIT_INDEX_FILE for a private index). */
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). */
  readonly okExitCodes?: readonly number[];
}

export interface GitResult {
  readonly stdout: string;
  readonly exitCode: number;
}

/**
 * The environment git runs with: the service's own, minus variables that would point git at some
 * other repository or index (set when the service itself runs inside a git hook), with messages in
 * English so errors read the same everywhere, and no prompts.
 */
function gitEnv(extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR', 'GIT_PREFIX'].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', ...extra };
}

/** Runs git and returns its output; a non-zero exit (not listed in okExitCodes) is a GitCommandError. */
export function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise<GitResult>((resolve, reject) => {
    const child = spawn('git', ['-C', options.cwd, ...args], { env: gitEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new GitCommandError(args, null, error.message, { cause: error })));
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0 || (code !== null && (options.okExitCodes ?? []).includes(code))) {
        resolve({ stdout, exitCode: code });
      } else {
        reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
      }
    });
    child.stdin.on('error', () => {
      // git may exit before reading its input (e.g. a bad argument); the exit code reports that.
    });
    child.stdin.end(options.input ?? '');
  });
}

/** `git …` returning trimmed stdout. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await git(args, options)).stdout.trim();
}

/** The identity and settings rloop commits with, never the user's global config (hooks, signing). */
export interface CommitIdentity {
  readonly name: string;
  readonly email: string;
}

export const DEFAULT_IDENTITY: CommitIdentity = { name: 'rloop', email: 'rloop@localhost' };

export function commitConfigArgs(identity: CommitIdentity): string[] {
  return ['-c', `user.name=${identity.name}`, '-c', `user.email=${identity.email}`, '-c', 'commit.gpgsign=false'];
}

/** Whether a commit exists in the repository (as a commit object). */
export async function commitExists(repoPath: string, commit: string): Promise<boolean> {
  const result = await git(['cat-file', '-e', `${commit}^{commit}`], { cwd: repoPath, okExitCodes: [1, 128] });
  return result.exitCode === 0;
}
