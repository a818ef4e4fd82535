import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import js from '@eslint/js';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describeError } from '@rloop/contracts';
import { AbortedError } from '../errors.js';
import type { FixContext, FixOutcome, FixStrategy } from './strategy.js';

/** File names ESLint 10 reads as a flat config, in its own lookup order. */
const CONFIG_FILES = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];

const LINTABLE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/**
 * The configuration used when the repository has none of its own (or its own cannot be loaded,
 * typically because its plugins are not installed in the worktree): eslint recommended plus
 * typescript-eslint recommended, the same default the compiler-linter critic reviews with.
 */
export const DEFAULT_ESLINT_CONFIG: Linter.Config[] = [js.configs.recommended, ...(tseslint.configs.recommended as Linter.Config[])];

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
  return new ESLint({ cwd, fix: true, overrideConfigFile: true, overrideConfig: DEFAULT_ESLINT_CONFIG, errorOnUnmatchedPattern: false, warnIgnored: false });
}

/**
 * The offline default strategy: ESLint's own fixes (`fix: true`, outputs written) on the files the
 * letter's findings name, with the repository's flat config when it has one. Conservative by
 * construction: only fixes a rule declares safe are applied (never suggestions), only in files a
 * critic pointed at.
 */
export function createAutofixStrategy(): FixStrategy {
  return {
    name: 'autofix',
    async apply(context: FixContext): Promise<FixOutcome> {
      const dir = context.worktreeDir;
      const files = [...new Set(context.letter.findings.map((f) => f.file))].filter((file) => LINTABLE.test(file) && existsSync(join(dir, file))).sort();
      if (files.length === 0) return { changedFiles: [], log: 'no lintable file among the letter\'s findings' };
      if (context.signal.aborted) throw new AbortedError('the autofix strategy');
      const notes: string[] = [];
      const configFile = repoConfigFile(dir);
      let results: ESLint.LintResult[];
      if (configFile === null) {
        results = await lintAndFix(defaultEslint(dir), files);
        notes.push('ESLint with the default config (eslint recommended + typescript-eslint recommended)');
      } else {
        try {
          // The repository's config, read directly: no lookup above the worktree, which may sit inside another project.
          results = await lintAndFix(new ESLint({ cwd: dir, fix: true, overrideConfigFile: configFile, errorOnUnmatchedPattern: false, warnIgnored: false }), files);
          notes.push(`ESLint with the repository's ${relative(dir, configFile)}`);
        } catch (error) {
          results = await lintAndFix(defaultEslint(dir), files);
          notes.push(`the repository's ${relative(dir, configFile)} could not be loaded (${describeError(error).split('\n')[0] ?? ''}); used the default config`);
        }
      }
      if (context.signal.aborted) throw new AbortedError('the autofix strategy');
      await ESLint.outputFixes(results);
      const changed = results.filter((r) => r.output !== undefined).map((r) => relative(dir, r.filePath).split('\\').join('/'));
      const remaining = results.reduce((sum, r) => sum + r.errorCount + r.warningCount, 0);
      notes.push(`fixed ${changed.length} of ${files.length} file(s); ${remaining} problem(s) left that ESLint cannot fix`);
      return { changedFiles: changed.sort(), log: notes.join('; ') };
    },
  };
}
