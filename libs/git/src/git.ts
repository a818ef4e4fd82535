import { spawn } from 'node:child_process';
import { GitCommandError, GitOutputTooLargeError, UnsafeRepositoryError } from './errors.js';

export interface GitOptions {
  /** Directory git runs in (`git -C`). */
  readonly cwd: string;
  /** Text written to git's standard input. */
  readonly input?: string;
  /** Extra environment variables (e.g. GIT_INDEX_FILE for a private index, GIT_ALLOW_PROTOCOL for a clone). */
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). */
  readonly okExitCodes?: readonly number[];
  /** Stops git (SIGTERM) and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Paths printed as they are (`core.quotepath=off`) rather than C-quoted, for callers that parse non-`-z` output. */
  readonly literalPaths?: boolean;
  /** Most bytes of standard output (and of standard error) kept; more stops git with a GitOutputTooLargeError. Default MAX_GIT_OUTPUT_BYTES. */
  readonly maxOutputBytes?: number;
}

/**
 * The default bound on what one git command may print: far above any diff or listing rloop reads
 * (a large monorepo's `ls-files -z` is a few MiB), low enough that a hostile repository (a huge
 * blob shown by `git show`) cannot exhaust the service's memory.
 */
export const MAX_GIT_OUTPUT_BYTES = 256 * 1024 * 1024;

export interface GitResult {
  readonly stdout: string;
  readonly exitCode: number;
}

// Repositories are untrusted input: a checkout under review, a plan's repository, files a model
// wrote. Whoever controls a repository's .git/config can name programs for git to run (an
// fsmonitor hook, hooks, filters, diff drivers, an ssh command); this runner never runs them.

/** Settings given on every call: the programs a repository could choose are switched off. */
const HARDENING: readonly string[] = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'submodule.recurse=false',
];

/** Keys of the repository's own config that name a program (section and key lower-cased, as `git config --list` prints them). */
const PROGRAM_KEYS: readonly RegExp[] = [
  /^filter\..+\.(clean|smudge|process)$/,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^merge\..+\.driver$/,
  /^core\.(sshcommand|askpass|gitproxy|alternaterefscommand|editor)$/,
  /^sequence\.editor$/,
  /^credential\.(.+\.)?helper$/,
  /^gpg\.(.+\.)?program$/,
  /^remote\..+\.(uploadpack|receivepack)$/,
];

/**
 * The service's variables git may see: where to find programs and the operator's own git setup
 * (global config, ssh agent, proxies, CA certificates). Everything else — the API key, the
 * database URL, and GIT_DIR / GIT_CONFIG_* injections from a parent git process — stays out.
 */
const INHERITED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TZ',
  'XDG_CONFIG_HOME',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_NOSYSTEM',
  'SSH_AUTH_SOCK',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
]);

/**
 * The environment git runs with. Reading process.env here is deliberate (the git runner is the one
 * place that knows which of the service's variables git needs), and only the INHERITED ones pass.
 */
function gitEnv(extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (INHERITED.has(key)) env[key] = value;
  return {
    ...env,
    // Messages in English so errors read the same everywhere; no prompts; replace refs never
    // substitute the objects a pinned commit names; protocols only git's own known ones.
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_PROTOCOL_FROM_USER: '0',
    ...extra,
  };
}

function run(
  args: readonly string[],
  options: GitOptions,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const limit = options.maxOutputBytes ?? MAX_GIT_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', options.cwd, ...args], {
      env: gitEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let overflow: GitOutputTooLargeError | null = null;
    const stop = (): void => {
      overflow = new GitOutputTooLargeError(args, limit);
      child.kill('SIGTERM');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > limit) {
        if (overflow === null) stop();
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errBytes += chunk.length;
      // Standard error only explains a failure: past the bound it is cut, not fatal.
      if (errBytes <= limit) err.push(chunk);
    });
    child.on('error', (error) => {
      const reason: unknown = options.signal?.aborted === true ? options.signal.reason : undefined;
      reject(reason instanceof Error ? reason : new GitCommandError(args, null, error.message, { cause: error }));
    });
    child.on('close', (code) => {
      if (overflow !== null) reject(overflow);
      else resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code });
    });
    child.stdin.on('error', () => {
      // git may exit before reading its input (e.g. a bad argument); the exit code reports that.
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * `-c` overrides for every program the repository's own configuration (local and worktree scope,
 * includes followed) names, so git runs none of them. A repository that moves its
 * work tree elsewhere (core.worktree) is refused: what git would read and write is then not
 * the directory we were given.
 */
async function neutralizeRepositoryConfig(options: GitOptions): Promise<string[]> {
  const listed = await run([...HARDENING, 'config', '--list', '-z', '--show-scope', '--includes'], {
    cwd: options.cwd,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  // Outside a repository, or one git refuses (another owner): no repository config is read, and
  // the command itself reports what is wrong.
  if (listed.code !== 0) return [];
  const overrides = new Set<string>();
  const fields = listed.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i] ?? '';
    const entry = fields[i + 1] ?? '';
    if (scope !== 'local' && scope !== 'worktree') continue;
    const newline = entry.indexOf('\n');
    const key = newline < 0 ? entry : entry.slice(0, newline);
    if (key.toLowerCase() === 'core.worktree')
      throw new UnsafeRepositoryError(
        options.cwd,
        'its configuration sets core.worktree (a work tree somewhere else); rloop only works in the directory it was given',
      );
    const [section = '', ...rest] = key.split('.');
    const normalized = [section.toLowerCase(), ...rest.slice(0, -1), (rest[rest.length - 1] ?? '').toLowerCase()].join(
      '.',
    );
    if (!PROGRAM_KEYS.some((pattern) => pattern.test(normalized))) continue;
    // A textconv of `cat` shows the blob as it is; any other program setting, left empty, fails loudly if git ever needs it.
    overrides.add(/^diff\..+\.textconv$/.test(normalized) ? `${key}=cat` : `${key}=`);
    if (/^filter\..+\.(clean|smudge|process)$/.test(normalized))
      overrides.add(`${key.slice(0, key.lastIndexOf('.'))}.required=false`);
  }
  return [...overrides].flatMap((setting) => ['-c', setting]);
}

/**
 * Runs git hardened against the repository it works on: no fsmonitor, no hooks, no pager, no
 * external diff, no filter or driver programs from the repository's config, no replace objects,
 * a filtered environment, bounded output (GitOutputTooLargeError past maxOutputBytes). Every
 * library and service runs git through this function and nothing else. A non-zero exit (not listed in okExitCodes) is a GitCommandError; a
 * repository git refuses because another user owns it is an UnsafeRepositoryError (rloop never
 * sets safe.directory: the operator decides that in the service user's git config).
 */
export async function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const overrides = await neutralizeRepositoryConfig(options);
  const full = [
    ...HARDENING,
    ...overrides,
    ...(options.literalPaths === true ? ['-c', 'core.quotepath=off'] : []),
    ...args,
  ];
  const { stdout, stderr, code } = await run(full, options);
  if (code === 0) return { stdout, exitCode: code };
  if (/detected dubious ownership/.test(stderr)) {
    throw new UnsafeRepositoryError(
      options.cwd,
      "it is owned by another user, so git refuses it (safe.directory); run the fleet as its owner, or mark it safe in the service user's git configuration",
    );
  }
  if (code !== null && (options.okExitCodes ?? []).includes(code)) return { stdout, exitCode: code };
  throw new GitCommandError(args, code, stderr);
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
