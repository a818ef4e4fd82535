import type { Issue } from '@rloop/contracts';
import picomatch from 'picomatch';

export interface ResolvedPlanFiles {
  readonly files: string[];
  readonly issues: Issue[];
}

/** Checks a plan's file entries (paths or globs) before they touch the repository. */
export function checkPlanFilePatterns(patterns: readonly string[]): Issue[] {
  const issues: Issue[] = [];
  patterns.forEach((pattern, index) => {
    const path = `files.${index}`;
    if (pattern.startsWith('/') || /^[A-Za-z]:[\\/]/.test(pattern)) {
      issues.push({ path, message: `"${pattern}" must be relative to the repository` });
    } else if (pattern.split(/[\\/]/).includes('..')) {
      issues.push({ path, message: `"${pattern}" must stay inside the repository (no "..")` });
    } else if (pattern.includes('\\')) {
      issues.push({ path, message: `"${pattern}" must use forward slashes` });
    } else if (pattern.includes('\u0000')) {
      issues.push({ path, message: 'must not contain NUL characters' });
    } else {
      try {
        picomatch.makeRe(pattern, { strictBrackets: true });
      } catch (error) {
        issues.push({
          path,
          message: `"${pattern}" is not a valid glob: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    }
  });
  return issues;
}

/**
 * Resolves a plan's paths and globs against the files at its ref. Every entry must match at
 * least one file: a pattern that matches nothing is almost always a typo.
 */
export function resolvePlanFiles(patterns: readonly string[], repoFiles: readonly string[]): ResolvedPlanFiles {
  const issues = checkPlanFilePatterns(patterns);
  if (issues.length > 0) return { files: [], issues };
  const selected = new Set<string>();
  patterns.forEach((pattern, index) => {
    const isGlob = picomatch.scan(pattern).isGlob;
    const matcher = picomatch(pattern, { dot: true });
    const matches = isGlob
      ? repoFiles.filter((file) => matcher(file))
      : repoFiles.filter((f) => f === pattern || f.startsWith(`${pattern.replace(/\/$/, '')}/`));
    if (matches.length === 0)
      issues.push({ path: `files.${index}`, message: `"${pattern}" matches no file at the plan's ref` });
    for (const file of matches) selected.add(file);
  });
  return { files: [...selected].sort(), issues };
}
