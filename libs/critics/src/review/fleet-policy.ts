import type { Finding, RepoConfig, RepoConfigEffect, Suppression } from '@rloop/contracts';
import { RepoConfigError } from '../errors.js';
import { RepoReader } from '../repo/checkout.js';
import { excludeFiles } from './file-selection.js';
import { type RepoPolicy, applyRepoRules, repoCriticsOff, repoExcludes } from './policy.js';
import { REPO_CONFIG_FILE, type LoadedRepoConfig, loadRepoConfig } from './repo-config.js';
import { type SuppressionDirective, findDirectives } from './suppressions.js';

/** What one critic's report becomes once the repository's configuration is applied. */
export interface RepoAppliedReport {
  readonly findings: Finding[];
  readonly suppressed: Suppression[];
  readonly repo_config: RepoConfigEffect | undefined;
}

/** A repository's configuration read once for a round, applied to each critic's report. */
export interface RepoRoundReview {
  /** The round's files less those the repository excludes (within the policy). */
  readonly files: readonly string[];
  /** Critics the repository switched off and the policy allows: they answer "not run", never "0 findings". */
  readonly criticsOff: ReadonlySet<string>;
  /** Applies the repository's rules and rloop-ignore comments to one critic's findings. */
  apply(findings: readonly Finding[], today: string): RepoAppliedReport;
}

function load(repoDir: string): { loaded: LoadedRepoConfig; refused: string[] } {
  try {
    return { loaded: loadRepoConfig(repoDir), refused: [] };
  } catch (error) {
    if (!(error instanceof RepoConfigError)) throw error;
    // The repository's file is untrusted input: an invalid one changes nothing, and the letter says why.
    return {
      loaded: { config: {}, source: REPO_CONFIG_FILE, ignoreText: null },
      refused: [`${error.message} — the file was not applied`],
    };
  }
}

function fleetOnlyRefusals(config: RepoConfig, source: string): string[] {
  const refused: string[] = [];
  if (config.llm?.model !== undefined)
    refused.push(`${source} llm.model: the fleet's model is the operator's (config/models.yaml roles.critics)`);
  for (const [id, value] of Object.entries(config.critics ?? {})) {
    if (value === true || value === 'on')
      refused.push(`${source} critics.${id}: on — the fleet's panel decides which critics run (config/critics.yaml)`);
  }
  return refused;
}

/**
 * Reads a checkout's `.rloop.yaml`, `.rloopignore` and `rloop-ignore` comments for a fleet round
 * (the plan's pinned commit), within the operator's policy. The repository is untrusted: what it
 * changes is carried in each report (`suppressed`, `repo_config`) and so journaled and counted in
 * the letter, and what the policy does not allow is refused and listed there. Every file is read
 * inside the checkout (a link out is never followed: a configuration behind one is refused).
 */
export function prepareRepoReview(
  repoDir: string,
  files: readonly string[],
  policy: RepoPolicy,
  core: ReadonlySet<string>,
  options: { readonly maxFileBytes?: number } = {},
): RepoRoundReview {
  if (!policy.honour_repo_config) {
    return {
      files,
      criticsOff: new Set(),
      apply: (findings) => ({ findings: [...findings], suppressed: [], repo_config: undefined }),
    };
  }
  const { loaded, refused: invalid } = load(repoDir);
  const source = loaded.source ?? REPO_CONFIG_FILE;
  const excludes = repoExcludes(loaded.config, source, policy);
  // Comments are read like the critics read the files: inside the checkout, up to the operator's size bound.
  const reader = new RepoReader(
    repoDir,
    options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes },
  );
  const { kept, excluded } = excludeFiles(files, {
    globs: excludes.globs,
    ignoreText: policy.excludes ? loaded.ignoreText : null,
    ...(excludes.maxFileBytes === undefined
      ? {}
      : {
          maxFileBytes: excludes.maxFileBytes,
          maxFileBytesSource: `${source} max_file_bytes`,
          // Measured inside the checkout only: a link out is not excluded for size; the critics skip it as outside_checkout.
          sizeOf: (file: string) => reader.boundary.sizeOf(file),
        }),
  });
  const off = repoCriticsOff(loaded.config, source, policy, core, false);
  const directives: SuppressionDirective[] = kept.flatMap((file) => {
    const text = reader.read(file);
    return text === null ? [] : findDirectives(file, text);
  });
  const refused = [...invalid, ...excludes.refused, ...off.refused, ...fleetOnlyRefusals(loaded.config, source)];
  const present = loaded.source !== null || loaded.ignoreText !== null || invalid.length > 0;
  return {
    files: kept,
    criticsOff: new Set(off.off),
    apply: (findings, today) => {
      const result = applyRepoRules(findings, { config: loaded.config, source, policy, directives, today });
      const effect: RepoConfigEffect | undefined =
        present || result.suppressed.length > 0 || result.refused.length > 0
          ? {
              config: loaded.source,
              excluded_files: excluded.length,
              overrides: result.overrides.slice(0, 100),
              refused: [...refused, ...result.refused].map((r) => r.slice(0, 500)).slice(0, 100),
            }
          : undefined;
      return { findings: result.findings, suppressed: result.suppressed, repo_config: effect };
    },
  };
}
