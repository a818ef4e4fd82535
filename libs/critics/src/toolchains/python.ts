import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { describeError } from '@rloop/contracts';
import type { CriticContext } from '../critic.js';
import {
  type LanguageRunInput,
  type LanguageRunResult,
  type ToolDiagnostic,
  type ToolchainLanguage,
  type ToolchainProject,
  mirrorProject,
  repoRelative,
} from './family.js';
import { findExecutable, runTool, toolEnvironment, toolMissing } from './run-tool.js';

// Python: pyright for types, ruff for lint — both from npm (pyright is a Node program, ruff ships a
// WebAssembly build), so they are installed with the project and need no Python packages. Neither
// has a plugin system that loads code named by the repository's configuration (mypy and pylint do:
// their `plugins`/`load-plugins` import Python modules, which is running the repository's code).

const require = createRequire(import.meta.url);

const PyrightOutput = z.looseObject({
  generalDiagnostics: z.array(
    z.looseObject({
      file: z.string(),
      severity: z.enum(['error', 'warning', 'information']),
      message: z.string(),
      range: z
        .looseObject({ start: z.looseObject({ line: z.number() }), end: z.looseObject({ line: z.number() }) })
        .optional(),
      rule: z.string().optional(),
    }),
  ),
});

/** Pyright's rules that only mean "this package is not installed here" (the checkout has no virtualenv). */
const MISSING_PACKAGE_RULES = new Set(['reportMissingImports', 'reportMissingModuleSource']);

/** Turns pyright's `--outputjson` into diagnostics on repo-relative files; null when it is not that output. */
export function parsePyright(
  stdout: string,
  roots: readonly string[],
  cwd: string,
): { diagnostics: ToolDiagnostic[]; missingPackages: number } | null {
  let parsed;
  try {
    parsed = PyrightOutput.safeParse(JSON.parse(stdout));
  } catch {
    // Not JSON: pyright failed before it could report (the caller says why).
    return null;
  }
  if (!parsed.success) return null;
  const diagnostics: ToolDiagnostic[] = [];
  let missingPackages = 0;
  for (const d of parsed.data.generalDiagnostics) {
    if (d.rule !== undefined && MISSING_PACKAGE_RULES.has(d.rule)) {
      missingPackages += 1;
      continue;
    }
    const file = repoRelative(roots, cwd, d.file);
    if (file === null) continue;
    const line = (d.range?.start.line ?? 0) + 1;
    diagnostics.push({
      tool: 'pyright',
      rule: d.rule ?? (d.severity === 'error' ? 'error' : 'diagnostic'),
      file,
      line,
      endLine: (d.range?.end.line ?? line - 1) + 1,
      level: d.severity === 'information' ? 'info' : d.severity,
      message: d.message,
      fixable: false,
    });
  }
  return { diagnostics, missingPackages };
}

interface RuffDiagnostic {
  readonly code: string | null;
  readonly message: string;
  readonly start_location: { readonly row: number };
  readonly end_location: { readonly row: number };
  readonly fix: unknown;
}

interface RuffWorkspace {
  check(contents: string): RuffDiagnostic[];
  free(): void;
}

interface RuffModule {
  readonly Workspace: { new (options: unknown, encoding: number): RuffWorkspace; version(): string };
  readonly PositionEncoding: { readonly Utf16: number };
}

let ruffModule: RuffModule | null = null;

function loadRuff(): RuffModule {
  ruffModule ??= require('@astral-sh/ruff-wasm-nodejs') as RuffModule;
  return ruffModule;
}

/** Ruff's category of a rule: pyflakes (F) and syntax errors are correctness, pycodestyle is readability. */
function ruffCategory(code: string): ToolDiagnostic['category'] {
  if (code.startsWith('F') || code.startsWith('E9') || code === 'invalid-syntax') return 'correctness';
  if (/^(E|W)\d/.test(code)) return 'readability';
  return 'maintainability';
}

/** Ruff's settings for a project: `ruff.toml`, `.ruff.toml` or pyproject's `[tool.ruff]` (data only; `extend` is not followed). */
function ruffSettings(context: CriticContext, root: string, note: (message: string) => void): Record<string, unknown> {
  const at = (name: string): string => (root === '' ? name : `${root}/${name}`);
  for (const name of ['ruff.toml', '.ruff.toml', 'pyproject.toml']) {
    const text = context.reader.read(at(name));
    if (text === null) continue;
    try {
      const table = parseToml(text) as Record<string, unknown>;
      const settings =
        name === 'pyproject.toml'
          ? ((table['tool'] as Record<string, unknown> | undefined)?.['ruff'] as Record<string, unknown> | undefined)
          : table;
      if (settings === undefined) continue;
      const { extend, ...rest } = settings;
      if (extend !== undefined)
        note(
          `${at(name)}: ruff's \`extend\` (${typeof extend === 'string' ? extend : 'another file'}) is not followed; its own settings apply`,
        );
      return rest;
    } catch (error) {
      note(`${at(name)} is not valid TOML (${describeError(error)}): ruff runs with its default rules there`);
      return {};
    }
  }
  return {};
}

/** Ruff's command-line defaults (pycodestyle errors E4, E7, E9 and pyflakes); its WebAssembly build defaults to another set. */
const RUFF_DEFAULT_SELECT = ['E4', 'E7', 'E9', 'F'];

/** The settings with ruff's command-line default rules when the project selects none itself. */
export function withDefaultRules(settings: Record<string, unknown>): Record<string, unknown> {
  const lint = (settings['lint'] ?? {}) as Record<string, unknown>;
  if (settings['select'] !== undefined || lint['select'] !== undefined) return settings;
  return { ...settings, lint: { ...lint, select: RUFF_DEFAULT_SELECT } };
}

function runRuff(
  context: CriticContext,
  project: ToolchainProject,
  note: (message: string) => void,
): { diagnostics: ToolDiagnostic[]; failed: Map<string, string> } {
  const ruff = loadRuff();
  const settings = withDefaultRules(ruffSettings(context, project.root, note));
  let workspace: RuffWorkspace;
  try {
    workspace = new ruff.Workspace(settings, ruff.PositionEncoding.Utf16);
  } catch (error) {
    note(
      `ruff does not accept the settings of ${project.root === '' ? 'the repository' : project.root} (${describeError(error)}): its default rules apply`,
    );
    workspace = new ruff.Workspace(withDefaultRules({}), ruff.PositionEncoding.Utf16);
  }
  const diagnostics: ToolDiagnostic[] = [];
  const failed = new Map<string, string>();
  try {
    for (const file of project.files) {
      const text = context.reader.read(file);
      if (text === null) continue;
      let found: RuffDiagnostic[];
      try {
        found = workspace.check(text);
      } catch (error) {
        failed.set(file, `ruff could not check it: ${describeError(error)}`);
        continue;
      }
      for (const d of found) {
        const code = d.code ?? 'invalid-syntax';
        diagnostics.push({
          tool: 'ruff',
          rule: code,
          file,
          line: d.start_location.row,
          endLine: d.end_location.row,
          level: code === 'invalid-syntax' ? 'error' : 'warning',
          message: d.message,
          fixable: d.fix !== null && d.fix !== undefined,
          category: ruffCategory(code),
        });
      }
    }
  } finally {
    workspace.free();
  }
  return { diagnostics, failed };
}

function pyrightEntry(): string | null {
  try {
    return join(dirname(require.resolve('pyright/package.json')), 'index.js');
  } catch {
    // Not installed with the project (a trimmed image): the critic says so.
    return null;
  }
}

async function runPyright(
  context: CriticContext,
  project: ToolchainProject,
  repoFiles: readonly string[],
  host: Readonly<Record<string, string | undefined>>,
): Promise<{ diagnostics: ToolDiagnostic[]; failed: Map<string, string>; missingPackages: number }> {
  const entry = pyrightEntry();
  if (entry === null) throw toolMissing('Python', 'pyright', '`npm install pyright` in the rloop installation');
  // The project as the reader sees it: pyright follows imports, and a link out of the checkout is not there to follow.
  const cwd = mirrorProject(context, repoFiles, project.root, 'python');
  const env = toolEnvironment(host, { NODE_OPTIONS: '' });
  // The interpreter whose installed packages pyright resolves imports against: the host's, never one in the checkout.
  const python = findExecutable(['python3', 'python'], env['PATH']);
  const args = [
    entry,
    '--outputjson',
    ...(python === null ? [] : ['--pythonpath', python]),
    ...project.files.map((f) => `./${posix.relative(project.root, f)}`),
  ];
  const output = await runTool(process.execPath, args, { cwd, env, signal: context.signal });
  const parsed = parsePyright(output.stdout, [cwd], cwd);
  if (parsed === null) {
    const why = `pyright did not report (exit ${output.code}): ${(output.stderr || output.stdout).trim().split('\n').slice(-3).join(' ').slice(0, 250)}`;
    return { diagnostics: [], failed: new Map(project.files.map((f) => [f, why])), missingPackages: 0 };
  }
  const diagnostics = parsed.diagnostics.map((d) => ({
    ...d,
    file: project.root === '' ? d.file : `${project.root}/${d.file}`,
  }));
  return { diagnostics, failed: new Map(), missingPackages: parsed.missingPackages };
}

/** The Python entry of the table. */
export function pythonToolchain(host: Readonly<Record<string, string | undefined>>): ToolchainLanguage {
  return {
    id: 'toolchain/python',
    language: 'Python',
    description:
      'pyright (types) and ruff (lint) on the Python files of the plan; every error and warning is critical (Decision 8)',
    triggers: ['**/*.py', '**/*.pyi'],
    manifests: ['pyproject.toml', 'setup.cfg', 'setup.py', 'pyrightconfig.json', 'requirements.txt', 'Pipfile'],
    timeoutMs: 180_000,
    sourceFile: (file) => /\.pyi?$/.test(file),
    sourceText: (_file, text) => /^#!.*\bpython[0-9.]*\b/.test(text),
    async run(input: LanguageRunInput): Promise<LanguageRunResult> {
      const { context } = input;
      const note = (message: string): void => context.note?.(message);
      const diagnostics: ToolDiagnostic[] = [];
      const failed = new Map<string, string>();
      let missingPackages = 0;
      for (const project of input.projects) {
        const types = await runPyright(context, project, input.repoFiles, host);
        const lint = runRuff(context, project, note);
        diagnostics.push(...types.diagnostics, ...lint.diagnostics);
        for (const [file, why] of [...types.failed, ...lint.failed]) failed.set(file, why);
        missingPackages += types.missingPackages;
      }
      if (missingPackages > 0) {
        note(
          `${missingPackages} import(s) of packages not installed on this host were not checked (pyright's reportMissingImports): install the project's dependencies where the critic runs for a full check`,
        );
      }
      return { diagnostics, failed };
    },
  };
}
