import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { SandboxUnavailableError } from '../errors.js';

/** How the `command` implementer is sandboxed (config/trust.yaml `commands.sandbox`, with paths resolved). */
export interface SandboxSettings {
  readonly kind: 'bubblewrap';
  /** Whether the command may use the network (its own network namespace otherwise: nothing outside is reachable). */
  readonly network: boolean;
  /** Extra paths it may read (the rest of the system is read-only anyway, except what is hidden). */
  readonly readOnly: readonly string[];
  /** Extra paths it may write besides the worktree. */
  readonly writable: readonly string[];
  /** Paths it must not see: the service's home and $RLOOP_HOME (the journal, other plans' worktrees), credential files. */
  readonly hidden: readonly string[];
}

/** What one sandboxed run may touch. */
export interface SandboxMounts {
  /** The plan's worktree: the only place it writes by default. */
  readonly worktree: string;
  /** The repository's git directory (objects, refs): readable, so git works in the worktree. */
  readonly gitCommonDir: string;
  /** The worktree's own git directory (index, HEAD): writable, so `git status` and `git diff` work. */
  readonly worktreeGitDir: string;
  /** Files rloop prepared for it (the letter), read-only. */
  readonly inputs: readonly string[];
}

/**
 * bwrap's arguments for one run: the whole file system read-only, /tmp and the hidden paths
 * replaced by empty tmpfs, then the git directories, the worktree and the inputs mounted back;
 * its own PID, IPC, UTS and cgroup namespaces (no other process is visible or signalled), no
 * network unless allowed, no capabilities, and it dies with the implementer. Order matters: a
 * later mount shows through an earlier tmpfs. Pure (the caller checks the paths exist).
 */
export function bubblewrapArgs(
  settings: SandboxSettings,
  mounts: SandboxMounts,
  options: { readonly root: boolean },
): string[] {
  const args = [
    'bwrap',
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
  if (!settings.network) args.push('--unshare-net');
  // Capabilities can only be dropped by a privileged bwrap; an unprivileged one has none to drop.
  if (options.root) args.push('--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const path of settings.hidden) args.push('--tmpfs', path);
  for (const path of settings.readOnly) args.push('--ro-bind', path, path);
  args.push(
    '--ro-bind',
    mounts.gitCommonDir,
    mounts.gitCommonDir,
    '--bind',
    mounts.worktreeGitDir,
    mounts.worktreeGitDir,
  );
  for (const path of settings.writable) args.push('--bind', path, path);
  args.push('--bind', mounts.worktree, mounts.worktree);
  for (const path of mounts.inputs) args.push('--ro-bind', path, path);
  args.push('--chdir', mounts.worktree, '--');
  return args;
}

/** The paths of a sandbox that exist (a tmpfs or bind over a missing path would fail the whole run). */
export function existingPaths(paths: readonly string[]): string[] {
  return paths.filter((path) => existsSync(path));
}

/**
 * Checks at start that bubblewrap is installed and can create its namespaces here (a container
 * without user namespaces cannot): a sandbox the operator asked for is never silently skipped.
 */
export async function checkBubblewrap(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    execFile(
      'bwrap',
      ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--', '/bin/true'],
      { timeout: 10_000 },
      (error, _stdout, stderr) => {
        if (error === null) {
          resolve();
          return;
        }
        const why =
          (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'bwrap is not installed (apt-get install bubblewrap)'
            : `bwrap cannot run here: ${stderr.trim() || error.message}`;
        reject(new SandboxUnavailableError(`config/trust.yaml asks for the bubblewrap sandbox, but ${why}`));
      },
    );
  });
}
