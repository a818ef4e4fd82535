import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { type Issue, RepoConfig, toIssues } from '@rloop/contracts';
import { RepoConfigError } from '../errors.js';
import { RepoReader } from '../repo/checkout.js';

/** The file name rloop looks for at the root of a reviewed repository. */
export const REPO_CONFIG_FILE = '.rloop.yaml';
/** Files listed here (gitignore syntax) are never reviewed. */
export const REPO_IGNORE_FILE = '.rloopignore';

/** A repository's review configuration and where it came from. */
export interface LoadedRepoConfig {
  readonly config: RepoConfig;
  /** The file it was read from (as the user would name it), or null when there is none. */
  readonly source: string | null;
  /** The `.rloopignore` text, or null when the repository has none. */
  readonly ignoreText: string | null;
}

/** A path the user named (`--config`): theirs to choose, read as given; null when there is no such file. */
function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * A file at the repository's root, read inside its checkout like every file a critic reads: null
 * when there is none; a RepoConfigError when it cannot be read — a symbolic link leaving the
 * checkout (its target is never read), binary, unreadable or past the size bound — so a
 * repository's configuration is never taken from outside it, nor silently ignored.
 */
function readAtRoot(reader: RepoReader, file: string): string | null {
  const text = reader.read(file);
  if (text !== null) return text;
  const outcome = reader.outcome(file);
  if (outcome === undefined || outcome.ok || outcome.reason === 'missing') return null;
  throw new RepoConfigError(`${file}: not read: ${outcome.detail}`, [{ path: '', message: outcome.detail }]);
}

function keyPath(issue: Issue): string {
  return issue.path === '' ? '(top level)' : issue.path;
}

/**
 * Parses the text of a `.rloop.yaml` (pure). Errors name the file, the key and what is wrong, e.g.
 * `.rloop.yaml: rules.eslint/prefer-const: must be one of critical, medium, low, off`.
 * `knownCritics`, when given, turns a critic id nobody knows into an error as well.
 */
export function parseRepoConfig(text: string, source: string, knownCritics?: readonly string[]): RepoConfig {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    const first = document.errors[0];
    throw new RepoConfigError(
      `${source}: not valid YAML: ${first?.message.split('\n')[0] ?? 'unreadable'}`,
      document.errors.map((e) => ({ path: '', message: e.message })),
    );
  }
  const raw: unknown = document.toJS() ?? {};
  const parsed = RepoConfig.safeParse(raw);
  if (!parsed.success) {
    const issues = toIssues(parsed.error).map((issue) => ({ path: keyPath(issue), message: issue.message }));
    throw new RepoConfigError(`${source}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
  if (knownCritics !== undefined) {
    const unknown = Object.keys(parsed.data.critics ?? {}).filter((id) => !knownCritics.includes(id));
    if (unknown.length > 0) {
      const issues = unknown.map((id) => ({
        path: `critics.${id}`,
        message: `no critic has this id (known: ${knownCritics.join(', ')})`,
      }));
      throw new RepoConfigError(`${source}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
    }
  }
  return parsed.data;
}

/**
 * Reads a repository's `.rloop.yaml` and `.rloopignore` from its root, inside its checkout (or
 * the config from `configPath`, e.g. `--config`). A missing file is no configuration; an invalid
 * one, or one behind a link out of the repository, is a RepoConfigError naming it.
 */
export function loadRepoConfig(
  repoDir: string,
  options: { readonly configPath?: string; readonly knownCritics?: readonly string[] } = {},
): LoadedRepoConfig {
  const reader = new RepoReader(repoDir);
  const ignoreText = readAtRoot(reader, REPO_IGNORE_FILE);
  if (options.configPath !== undefined) {
    const text = readOrNull(options.configPath);
    if (text === null)
      throw new RepoConfigError(`${options.configPath}: no such file`, [{ path: '', message: 'no such file' }]);
    return {
      config: parseRepoConfig(text, options.configPath, options.knownCritics),
      source: options.configPath,
      ignoreText,
    };
  }
  const text = readAtRoot(reader, REPO_CONFIG_FILE);
  if (text === null) return { config: {}, source: null, ignoreText };
  return {
    config: parseRepoConfig(text, REPO_CONFIG_FILE, options.knownCritics),
    source: REPO_CONFIG_FILE,
    ignoreText,
  };
}

/** Whether the configuration switches a critic off (`false` or `off`). */
export function criticSwitchedOff(config: RepoConfig, criticId: string): boolean {
  const value = config.critics?.[criticId];
  return value === false || value === 'off';
}
