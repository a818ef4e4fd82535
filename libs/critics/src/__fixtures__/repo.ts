import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CriticContext } from '../critic.js';
import { type RunCriticContext, createCriticContext } from '../plumbing/run-critic.js';

/** A throwaway repository of real files under the OS temp directory. */
export interface FixtureRepo {
  readonly dir: string;
  write(file: string, text: string): void;
  remove(): void;
}

export function fixtureRepo(files: Readonly<Record<string, string>>, options: { git?: boolean } = {}): FixtureRepo {
  const dir = mkdtempSync(join(tmpdir(), 'rloop-critics-'));
  const write = (file: string, text: string): void => {
    const path = join(dir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  for (const [file, text] of Object.entries(files)) write(file, text);
  if (options.git === true) {
    const git = (...args: string[]): void => {
      execFileSync(
        'git',
        ['-c', 'user.email=test@example.com', '-c', 'user.name=test', '-c', 'commit.gpgsign=false', ...args],
        { cwd: dir, stdio: 'ignore' },
      );
    };
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'initial');
  }
  return { dir, write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Commits everything in a fixture repository created with `git: true`. */
export function commitAll(dir: string, message: string): void {
  const run = (...args: string[]): void => {
    execFileSync(
      'git',
      ['-c', 'user.email=test@example.com', '-c', 'user.name=test', '-c', 'commit.gpgsign=false', ...args],
      { cwd: dir, stdio: 'ignore' },
    );
  };
  run('add', '-A');
  run('commit', '-q', '-m', message);
}

/** A run context for calling a critic's run() directly (runCritic supplies its own signal). */
export function contextFor(
  dir: string,
  files: readonly string[],
  extra: Partial<RunCriticContext> = {},
): CriticContext {
  return createCriticContext(
    { repoDir: dir, commit: '0'.repeat(40), files, phase: 'final_sweep', ...extra },
    { signal: new AbortController().signal },
  ).context;
}

/** Lines of a text (1-based) that contain a marker, e.g. `VULN`. */
export function lineOf(text: string, marker: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(marker));
  if (index < 0) throw new Error(`marker ${marker} not found`);
  return index + 1;
}
