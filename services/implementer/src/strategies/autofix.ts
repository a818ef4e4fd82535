import { existsSync } from 'node:fs';
import { constants, open } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import js from '@eslint/js';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describeError, type Finding } from '@rloop/contracts';
import { CheckoutBoundary, runCodemods } from '@rloop/critics';
import { type ResolvedPath, realWorktreeRoot, resolveInWorktree } from '@rloop/llm';
import { AbortedError } from '../errors.js';
import type { FixContext, FixOutcome, FixStrategy } from './strategy.js';

/** File names ESLint 10 reads as a flat config, in its own lookup order. */
const CONFIG_FILES = [
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  'eslint.config.mts',
  'eslint.config.cts',
];

const LINTABLE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/**
 * The configuration used when the repository has none of its own, or its own is not loaded (the
 * operator has not opted in, or it cannot load because its plugins are not installed in the
 * worktree): eslint recommended plus typescript-eslint recommended, the same default the
 * compiler-linter critic reviews with.
 */
export const DEFAULT_ESLINT_CONFIG: Linter.Config[] = [
  js.configs.recommended,
  ...(tseslint.configs.recommended as Linter.Config[]),
];

export interface AutofixOptions {
  /** Load the repository's own eslint.config.* (it runs the repository's code in this process). Default false. */
  readonly repositoryEslintConfig?: boolean;
}

function repoConfigFile(dir: string): string | null {
  for (const name of CONFIG_FILES) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

async function lintAndFix(eslint: ESLint, files: readonly string[]): Promise<ESLint.LintResult[]> {
  return eslint.lintFiles([...files]);
}

function defaultEslint(cwd: string): ESLint {
  return new ESLint({
    cwd,
    fix: true,
    overrideConfigFile: true,
    overrideConfig: DEFAULT_ESLINT_CONFIG,
    errorOnUnmatchedPattern: false,
    warnIgnored: false,
  });
}

/** The named file inside the worktree with its links resolved, or null when it leads out of it (or is no regular file). */
async function insideWorktree(root: string, file: string): Promise<ResolvedPath | null> {
  try {
    return await resolveInWorktree(root, file);
  } catch {
    // Outside the worktree (a symbolic link out, `..`, `.git`): never read or written.
    return null;
  }
}

/**
 * Writes a fixed file back without following a symbolic link: the path is resolved inside the
 * worktree again (a link may have appeared since it was read) and opened with O_NOFOLLOW.
 */
async function writeInside(root: string, file: string, content: string): Promise<boolean> {
  const target = await insideWorktree(root, file);
  if (target === null) return false;
  const handle = await open(target.absolute, constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
  return true;
}

/** The letter's lintable files (repo-relative, existing), resolved inside the worktree; the ones that lead out, apart. */
async function filesOf(
  root: string,
  dir: string,
  findings: readonly Finding[],
): Promise<{ inside: string[]; outside: string[] }> {
  const named = [...new Set(findings.map((f) => f.file))]
    .filter((file) => LINTABLE.test(file) && existsSync(join(dir, file)))
    .sort();
  const inside: string[] = [];
  const outside: string[] = [];
  for (const file of named) {
    const resolved = await insideWorktree(root, file);
    if (resolved === null) outside.push(file);
    else if (!inside.includes(resolved.relative)) inside.push(resolved.relative);
  }
  return { inside, outside };
}

/** Why the autofix strategy makes no attempt: every finding of the letter says no deterministic fix exists. */
function nothingDeterministic(findings: readonly Finding[]): string | null {
  if (findings.length === 0 || findings.some((f) => f.autofix !== 'none')) return null;
  const kinds = [...new Set(findings.map((f) => f.finding_type))].slice(0, 8).join(', ');
  return `no finding of the letter has a deterministic fix (each is marked autofix: none — ${kinds}): a person, the anthropic strategy or a coding agent must decide`;
}

/**
 * The offline default strategy, deterministic fixes only: rloop's codemods for the deprecations
 * the letter marks `autofix: codemod` (rewrites proven to keep behaviour, libs/critics/src/codemods),
 * then ESLint's own fixes (`fix: true`) with the default config (the repository's own flat config
 * only when the operator opts in: loading it runs the repository's code). Conservative by
 * construction: only fixes a rule declares safe are applied (never suggestions), only in files a
 * critic pointed at, and only inside the worktree: a file that is (or lies under) a symbolic link
 * leading out of it is neither read nor written, and the log says so. A letter whose every
 * finding is marked `autofix: none` gets no attempt at all (FixOutcome.skipped).
 */
export function createAutofixStrategy(options: AutofixOptions = {}): FixStrategy {
  return {
    name: 'autofix',
    async apply(context: FixContext): Promise<FixOutcome> {
      const dir = context.worktreeDir;
      const findings = context.letter.findings;
      const skipped = nothingDeterministic(findings);
      if (skipped !== null) return { changedFiles: [], log: skipped, skipped };
      const root = await realWorktreeRoot(dir);
      const notes: string[] = [];
      const changed = new Set<string>();
      const actionable = findings.filter((f) => f.autofix !== 'none');
      const { inside: files, outside } = await filesOf(root, dir, actionable);
      if (outside.length > 0)
        notes.push(
          `skipped ${outside.join(', ')}: it leads out of the worktree (a symbolic link), so it is neither read nor written`,
        );
      if (files.length === 0)
        return { changedFiles: [], log: [...notes, "no lintable file among the letter's findings"].join('; ') };
      if (context.signal.aborted) throw new AbortedError('the autofix strategy');

      // 1. Codemods, on the program as the critic built it (type information decides what is safe).
      const codemodFiles = (
        await filesOf(
          root,
          dir,
          actionable.filter((f) => f.autofix === 'codemod'),
        )
      ).inside;
      if (codemodFiles.length > 0) {
        for (const result of runCodemods(new CheckoutBoundary(root), codemodFiles)) {
          for (const skip of result.skipped)
            notes.push(`left ${skip.name} at ${result.file}:${skip.line}: ${skip.note}`);
          if (result.after === result.before) continue;
          if (!(await writeInside(root, result.file, result.after))) {
            notes.push(`did not write ${result.file}: it leads out of the worktree`);
            continue;
          }
          changed.add(result.file);
          notes.push(
            `codemods in ${result.file}: ${result.applied.map((a) => `${a.codemod} at line ${a.line}`).join(', ')}`,
          );
        }
      }
      if (context.signal.aborted) throw new AbortedError('the autofix strategy');

      // 2. ESLint's own fixes, on the files as the codemods left them.
      const targets = files.map((file) => join(root, file));
      const configFile = options.repositoryEslintConfig === true ? repoConfigFile(root) : null;
      const ownConfig = repoConfigFile(root);
      let results: ESLint.LintResult[];
      if (configFile === null) {
        results = await lintAndFix(defaultEslint(root), targets);
        notes.push(
          ownConfig === null
            ? 'ESLint with the default config (eslint recommended + typescript-eslint recommended)'
            : `ESLint with the default config (eslint recommended + typescript-eslint recommended): the repository's ${relative(root, ownConfig)} is not loaded unless the operator trusts it`,
        );
      } else {
        try {
          // The repository's config, read directly: no lookup above the worktree, which may sit inside another project.
          results = await lintAndFix(
            new ESLint({
              cwd: root,
              fix: true,
              overrideConfigFile: configFile,
              errorOnUnmatchedPattern: false,
              warnIgnored: false,
            }),
            targets,
          );
          notes.push(`ESLint with the repository's ${relative(root, configFile)}`);
        } catch (error) {
          results = await lintAndFix(defaultEslint(root), targets);
          notes.push(
            `the repository's ${relative(root, configFile)} could not be loaded (${describeError(error).split('\n')[0] ?? ''}); used the default config`,
          );
        }
      }
      if (context.signal.aborted) throw new AbortedError('the autofix strategy');
      let eslintFixed = 0;
      for (const result of results) {
        if (result.output === undefined) continue;
        const file = relative(root, result.filePath).split(sep).join('/');
        if (await writeInside(root, file, result.output)) {
          changed.add(file);
          eslintFixed += 1;
        } else notes.push(`did not write ${file}: it leads out of the worktree`);
      }
      const remaining = results.reduce((sum, r) => sum + r.errorCount + r.warningCount, 0);
      notes.push(
        `ESLint fixed ${eslintFixed} of ${files.length} file(s); ${remaining} problem(s) left that ESLint cannot fix`,
      );
      return { changedFiles: [...changed].sort(), log: notes.join('; ') };
    },
  };
}
