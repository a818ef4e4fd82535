import { createHash } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import type { Category } from '@rloop/contracts';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding, findingTypeToken } from '../plumbing/define.js';

// The toolchain-critic family: one critic per language, each driven by a table entry (which files
// are its, which manifests mark a project, which tools run and how their output reads). The family
// does what every entry needs — pick the plan's files of the language, group them by project, run
// the entry, turn diagnostics into findings, say what was analysed — so an entry is only the
// language's own knowledge.

/** How bad a tool says a diagnostic is, in the tools' common words. */
export type ToolLevel = 'error' | 'warning' | 'info' | 'style';

/** One diagnostic of a language tool, on a repo-relative file. */
export interface ToolDiagnostic {
  /** The tool's short name: the finding type's prefix (`pyright`, `ruff`, `govet`, `clippy`, `shellcheck`…). */
  readonly tool: string;
  readonly rule: string;
  readonly file: string;
  readonly line: number;
  readonly endLine: number;
  readonly level: ToolLevel;
  readonly message: string;
  readonly fixable: boolean;
  /** The category when the tool's rule says more than its level (style rules). */
  readonly category?: Category;
}

/** Files of one project: the directory holding its manifest (`''` for the repository's root). */
export interface ToolchainProject {
  readonly root: string;
  readonly files: readonly string[];
}

/** What a language entry is given for one run. */
export interface LanguageRunInput {
  readonly context: CriticContext;
  /** The plan's files of this language that the reader accepted, grouped by project. */
  readonly projects: readonly ToolchainProject[];
  /** Every file of the checkout (for manifests, build scripts, configuration). */
  readonly repoFiles: readonly string[];
}

/** What a language entry found. */
export interface LanguageRunResult {
  readonly diagnostics: readonly ToolDiagnostic[];
  /** Files the tools could not analyse (their project did not load, a tool crashed on it), with why. */
  readonly failed: ReadonlyMap<string, string>;
}

/** A language of the table. */
export interface ToolchainLanguage {
  /** The critic's id, `toolchain/<language>`. */
  readonly id: string;
  readonly language: string;
  readonly description: string;
  /** Globs that bring the critic onto a panel (config/critics.yaml names the same). */
  readonly triggers: readonly string[];
  /** File names that mark a project's root (the nearest one above a file wins). */
  readonly manifests: readonly string[];
  readonly timeoutMs: number;
  /** Files of the language by name. */
  sourceFile(file: string): boolean;
  /** Files of the language by content, for names that do not say (a script without extension). */
  sourceText?(file: string, text: string): boolean;
  run(input: LanguageRunInput): Promise<LanguageRunResult>;
}

/**
 * Groups files by the nearest directory above them holding one of the manifests (the repository's
 * root when none does), in a stable order.
 */
export function groupByProject(
  files: readonly string[],
  repoFiles: readonly string[],
  manifests: readonly string[],
): ToolchainProject[] {
  const present = new Set(repoFiles);
  const roots = new Map<string, string[]>();
  for (const file of files) {
    let dir = posix.dirname(file);
    let root = '';
    for (;;) {
      const here = dir === '.' ? '' : dir;
      if (manifests.some((m) => present.has(here === '' ? m : `${here}/${m}`))) {
        root = here;
        break;
      }
      if (here === '') break;
      dir = posix.dirname(here);
    }
    roots.set(root, [...(roots.get(root) ?? []), file]);
  }
  return [...roots.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([root, list]) => ({ root, files: list.sort() }));
}

const LEVEL_SCORE: Readonly<
  Record<ToolLevel, { readonly severity: 'critical' | 'medium' | 'low'; readonly score: number }>
> = {
  error: { severity: 'critical', score: 8 },
  // Decision 8: a warning of the language's own compiler or linter is a defect, as for tsc and ESLint.
  warning: { severity: 'critical', score: 7 },
  info: { severity: 'medium', score: 5 },
  style: { severity: 'low', score: 2 },
};

/** A tool's diagnostic as a finding: its level sets the severity (errors and warnings are critical). */
export function toolDiagnosticDraft(d: ToolDiagnostic, label: string): FindingDraft {
  const { severity, score } = LEVEL_SCORE[d.level];
  const message = d.message.replace(/\s+/g, ' ').trim();
  return draftFinding({
    severity,
    score,
    category: d.category ?? (d.level === 'style' ? 'readability' : 'correctness'),
    finding_type: `${d.tool}/${findingTypeToken(d.rule)}`,
    file: d.file,
    line_range: { start: Math.max(1, d.line), end: Math.max(1, d.line, d.endLine) },
    tool_severity: d.level,
    title: `${d.rule}: ${message}`,
    current_behaviour: `${label} reports ${d.rule} (${d.level}) at ${d.file}:${d.line}: ${message}`,
    expected_behaviour: `${label} reports nothing at ${d.file}:${d.line}: the cause is fixed, the rule is not silenced.`,
    observable_test_conditions: [
      `${label} reports no ${d.rule} in ${d.file}`,
      'a test exercises the corrected code path',
    ],
    forbidden_in_test: [
      'a suppression comment or configuration change that silences the rule',
      'deleting or skipping the code the diagnostic points at without keeping its behaviour',
    ],
    fixable: d.fixable,
  });
}

export interface ToolchainCriticOptions {
  readonly timeoutMs?: number;
}

/** The critic of one language of the table. */
export function toolchainCritic(language: ToolchainLanguage, options: ToolchainCriticOptions = {}): CriticDefinition {
  return defineCritic({
    id: language.id,
    evidence: 'toolchain',
    description: language.description,
    triggers: language.triggers,
    timeoutMs: options.timeoutMs ?? language.timeoutMs,
    covers: (file) => language.sourceFile(file),
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const mine: string[] = [];
      for (const file of context.files) {
        const byName = language.sourceFile(file);
        // Only names without an extension can turn out to be the language by their content.
        if (!byName && (language.sourceText === undefined || posix.basename(file).includes('.'))) continue;
        // Read through the checkout's reader: a file it refuses (a link out, too large) is never handed to a tool.
        const text = context.reader.read(file);
        if (text === null) continue;
        if (byName || language.sourceText?.(file, text) === true) mine.push(file);
      }
      if (mine.length === 0) {
        context.note?.(`no ${language.language} files under review`);
        return [];
      }
      const repoFiles = await context.repoFiles();
      const projects = groupByProject(mine, repoFiles, language.manifests);
      const result = await language.run({ context, projects, repoFiles });
      for (const file of mine) {
        const why = result.failed.get(file);
        if (why === undefined) context.coverage.analysed(file);
        else context.coverage.skipped(file, 'parse_error', why);
      }
      const reviewed = new Set(mine);
      const seen = new Set<string>();
      const drafts: FindingDraft[] = [];
      for (const d of result.diagnostics) {
        if (!reviewed.has(d.file)) continue;
        const key = `${d.tool}\u0000${d.rule}\u0000${d.file}\u0000${d.line}\u0000${d.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        drafts.push(toolDiagnosticDraft(d, toolLabel(d.tool)));
      }
      return drafts;
    },
  });
}

const LABELS: Readonly<Record<string, string>> = {
  pyright: 'pyright (Python type checker)',
  ruff: 'ruff (Python linter)',
  govet: '`go vet`',
  gotype: 'the Go type checker (`go vet`)',
  staticcheck: 'staticcheck',
  'golangci-lint': 'golangci-lint',
  clippy: '`cargo clippy`',
  rustc: 'the Rust compiler (`cargo clippy`)',
  shellcheck: 'ShellCheck',
};

function toolLabel(tool: string): string {
  return LABELS[tool] ?? tool;
}

/**
 * A repo-relative path from a tool's path (absolute, or relative to the directory it ran in); null
 * outside the checkout. `roots` are the checkout's path and its real path (tools report either).
 */
export function repoRelative(roots: readonly string[], cwd: string, reported: string): string | null {
  const absolute = posix.normalize(posix.isAbsolute(reported) ? reported : posix.join(cwd, reported));
  for (const root of roots) {
    const relative = posix.relative(root, absolute);
    if (relative !== '' && !relative.startsWith('..') && !posix.isAbsolute(relative)) return relative;
  }
  return null;
}

/** The checkout's path and its real path, for repoRelative. */
export function checkoutRoots(context: CriticContext): string[] {
  return [...new Set([context.reader.boundary.root, context.reader.boundary.realRoot])];
}

/** Never mirrored: version control, installed packages, build output. */
const MIRROR_SKIP = /(^|\/)(\.git|node_modules)(\/|$)/;

/**
 * A copy of one project of the checkout holding only what the checkout's reader accepts, for tools
 * that walk directories and follow what they find (go vet reads every .go file of a package,
 * pyright follows imports, cargo the whole workspace): a committed link out of the checkout is
 * simply not there, so no tool can read through it. Files are hard-linked where the file system
 * allows (the checkout is read-only), copied otherwise. `skip` leaves more out (a tool's own
 * configuration the repository should not choose). Returns the mirror's directory.
 */
export function mirrorProject(
  context: CriticContext,
  repoFiles: readonly string[],
  root: string,
  label: string,
  skip?: RegExp,
): string {
  const base = context.cacheDir ?? join(tmpdir(), 'rloop-toolchains');
  const mirror = join(
    base,
    'mirror',
    label,
    createHash('sha256').update(`${context.repoDir}\u0000${root}`).digest('hex').slice(0, 16),
  );
  rmSync(mirror, { recursive: true, force: true });
  mkdirSync(mirror, { recursive: true });
  for (const file of repoFiles) {
    if (root !== '' && !file.startsWith(`${root}/`)) continue;
    const inside = root === '' ? file : file.slice(root.length + 1);
    if (MIRROR_SKIP.test(inside) || skip?.test(inside) === true) continue;
    const located = context.reader.boundary.locate(file, { anySize: true });
    if (!located.ok) continue;
    const target = join(mirror, inside);
    mkdirSync(dirname(target), { recursive: true });
    try {
      linkSync(located.path, target);
    } catch {
      // Another file system, or links not allowed: a copy does as well.
      copyFileSync(located.path, target);
    }
  }
  return mirror;
}

/** A path a tool reported in a project's mirror, as a repo-relative path (null outside the mirror). */
export function fromMirror(mirror: string, root: string, cwd: string, reported: string): string | null {
  const inside = repoRelative([mirror], cwd, reported);
  return inside === null ? null : root === '' ? inside : `${root}/${inside}`;
}
