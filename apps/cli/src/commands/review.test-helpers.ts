import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CriticDefinition } from '@rloop/critics';
import { buildProgram, outcomeOf } from '../program.js';
import type { ReviewEnvironment } from '../review/environment.js';
import type { ReviewIo } from '../review/run-review.js';
import { reviewCommandWith } from './review.js';

// Runs `rloop review` in-process the way the binary does (same program, same exit-code mapping),
// capturing stdout and stderr, for the review specs.

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** The review's environment with nothing set (no key, no colour, a fresh cache), plus `over`. */
export function reviewEnvironmentForTest(over: Partial<ReviewEnvironment> = {}): ReviewEnvironment {
  return {
    anthropicApiKey: null,
    anthropicBaseUrl: null,
    configDir: join(REPO_ROOT, 'config'),
    cacheRoot: mkdtempSync(join(tmpdir(), 'rloop-cli-cache-')),
    forceColor: undefined,
    noColor: undefined,
    githubToken: null,
    githubApiUrl: 'https://api.github.com',
    githubRepository: null,
    githubEventPath: null,
    advisories: null,
    host: process.env,
    ...over,
  };
}

export interface ReviewRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** `rloop review <args>`: its exit code, stdout, and stderr followed by the one-line error the binary would print. */
export async function runReviewCli(
  args: readonly string[],
  options: { env?: Partial<ReviewEnvironment>; extraCritics?: CriticDefinition[] } = {},
): Promise<ReviewRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: ReviewIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: reviewEnvironmentForTest(options.env),
    now: () => new Date('2026-11-30T00:00:00Z'),
    ...(options.extraCritics === undefined ? {} : { extraCritics: options.extraCritics }),
  };
  const program = buildProgram([reviewCommandWith(io)]);
  program.configureOutput({ writeErr: (t) => err.push(t), writeOut: (t) => out.push(t) });
  try {
    await program.parseAsync(['node', 'rloop', 'review', ...args]);
    return { code: 0, out: out.join(''), err: err.join('') };
  } catch (error) {
    const outcome = outcomeOf(error, 2);
    if (outcome === null) throw error;
    return { code: outcome.exitCode, out: out.join(''), err: `${err.join('')}${outcome.message}` };
  }
}
