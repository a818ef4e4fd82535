import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** What `rloop review` and `rloop report-pr` read from the environment, parsed once. */
export interface ReviewEnvironment {
  /** Enables the LLM critics. Never printed. */
  readonly anthropicApiKey: string | null;
  readonly anthropicBaseUrl: string | null;
  /** config/ with models.yaml (RLOOP_CONFIG_DIR, else the one shipped with rloop). */
  readonly configDir: string;
  /** Base of the default incremental cache ($XDG_CACHE_HOME, else ~/.cache). */
  readonly cacheRoot: string;
  readonly forceColor: string | undefined;
  readonly noColor: string | undefined;
  /** GitHub: the token (GITHUB_TOKEN or GH_TOKEN), API origin, `owner/repo` and the event payload of a workflow run. */
  readonly githubToken: string | null;
  readonly githubApiUrl: string;
  readonly githubRepository: string | null;
  readonly githubEventPath: string | null;
  /** RLOOP_ADVISORIES: the OSV export the dependency audit reads offline (an empty value means unset). */
  readonly advisories: string | null;
  /** The environment the language tools take PATH, HOME and the locale from (the toolchain critics never pass its secrets on). */
  readonly host: Readonly<Record<string, string | undefined>>;
}

const Environment = z.object({
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.url().optional(),
  RLOOP_CONFIG_DIR: z.string().min(1).optional(),
  XDG_CACHE_HOME: z.string().min(1).optional(),
  FORCE_COLOR: z.string().optional(),
  NO_COLOR: z.string().optional(),
  GITHUB_TOKEN: z.string().optional(),
  GH_TOKEN: z.string().optional(),
  GITHUB_API_URL: z.url().optional(),
  GITHUB_REPOSITORY: z.string().optional(),
  GITHUB_EVENT_PATH: z.string().optional(),
  RLOOP_ADVISORIES: z.string().optional(),
});

/** The config/ directory shipped with rloop: beside the repository root in a checkout, at the package root when installed. */
function shippedConfigDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    if (existsSync(join(dir, 'config', 'models.yaml'))) return join(dir, 'config');
    dir = dirname(dir);
  }
  return resolve('config');
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}

/** Parses the variables once; a malformed URL is an error naming the variable. */
export function reviewEnvironment(env: NodeJS.ProcessEnv): ReviewEnvironment {
  const parsed = Environment.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`environment variable ${String(issue?.path[0] ?? '?')}: ${issue?.message ?? 'invalid'}`);
  }
  const e = parsed.data;
  return Object.freeze({
    anthropicApiKey: nonEmpty(e.ANTHROPIC_API_KEY),
    anthropicBaseUrl: nonEmpty(e.ANTHROPIC_BASE_URL),
    configDir: e.RLOOP_CONFIG_DIR === undefined ? shippedConfigDir() : resolve(e.RLOOP_CONFIG_DIR),
    cacheRoot: e.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    forceColor: e.FORCE_COLOR,
    noColor: e.NO_COLOR,
    githubToken: nonEmpty(e.GITHUB_TOKEN) ?? nonEmpty(e.GH_TOKEN),
    githubApiUrl: e.GITHUB_API_URL ?? 'https://api.github.com',
    githubRepository: nonEmpty(e.GITHUB_REPOSITORY),
    githubEventPath: nonEmpty(e.GITHUB_EVENT_PATH),
    advisories: nonEmpty(e.RLOOP_ADVISORIES),
    host: Object.freeze({ ...env }),
  });
}
