/** One compiler or linter warning in a worktree, as the compiler-linter critic reports it. */
export interface LintWarning {
  /** Repository-relative path. */
  readonly file: string;
  readonly line: number;
  /** The finding type: `eslint/no-unused-vars`, `tsc/TS2322`, `deprecation/substr`. */
  readonly rule: string;
  readonly message: string;
}

/** Lists the warnings of a worktree: every file, or only the given ones (a test just written). */
export type WarningLister = (worktreeDir: string, files?: readonly string[]) => Promise<readonly LintWarning[]>;

/** Warnings per file. Pure. */
export function warningsByFile(warnings: readonly LintWarning[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const warning of warnings) counts.set(warning.file, (counts.get(warning.file) ?? 0) + 1);
  return counts;
}

/** One line per warning, for a model's tool result or a refusal's detail. Pure. */
export function describeWarnings(warnings: readonly LintWarning[], limit = 10): string {
  const shown = warnings.slice(0, limit).map((w) => `${w.file}:${w.line} ${w.rule}: ${w.message}`);
  return warnings.length > limit ? [...shown, `… and ${warnings.length - limit} more`].join('\n') : shown.join('\n');
}
