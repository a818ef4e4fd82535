import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import js from '@eslint/js';
import { ESLint, type Linter } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import { describeError } from '@rloop/contracts';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding, findingTypeToken } from '../plumbing/define.js';
import { AnalysisCache } from '../repo/cache.js';
import type { CheckoutBoundary, RepoReader } from '../repo/checkout.js';
import { sha256, yieldToEventLoop } from '../repo/files.js';
import {
  type TsGroup,
  createSharedHost,
  declaredPackages,
  importGraph,
  repoFilesOf,
  tsGroups,
} from '../ts/projects.js';
import { type AutofixVerdict, classifyDeprecationAt } from '../codemods/engine.js';

const COMPILER_LINTER_VERSION = 'cl-6';

/** Files ESLint lints (TypeScript and JavaScript sources, not declaration files). */
export function isLintable(file: string): boolean {
  return /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/.test(file) && !/\.d\.(m|c)?ts$/.test(file);
}

const ESLINT_CONFIG_FILES = [
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  'eslint.config.mts',
  'eslint.config.cts',
];

/** Node and browser globals, so plain JavaScript files do not trip no-undef under the default config. */
const GLOBALS: Linter.Globals = Object.fromEntries(
  [
    'process',
    'require',
    'module',
    'exports',
    '__dirname',
    '__filename',
    'Buffer',
    'global',
    'globalThis',
    'console',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'structuredClone',
    'fetch',
    'Request',
    'Response',
    'Headers',
    'URL',
    'URLSearchParams',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'window',
    'document',
    'location',
    'navigator',
    'localStorage',
    'sessionStorage',
    'alert',
    'HTMLElement',
    'Event',
    'CustomEvent',
    'crypto',
    'performance',
    'atob',
    'btoa',
  ].map((name) => [name, 'readonly' as const]),
);

/** Diagnostics that only mean "this package is declared but not installed here". */
const MISSING_MODULE_CODES = new Set([2307, 2792, 7016, 2688]);
/** noImplicitAny diagnostics (a parameter, binding or member without a type). */
const IMPLICIT_ANY_CODES = new Set([
  7005, 7006, 7008, 7010, 7011, 7015, 7018, 7019, 7022, 7023, 7024, 7031, 7034, 7053,
]);

interface FileRecord {
  readonly hash: string;
  readonly deps: readonly string[];
  /** Hash of the file and everything it imports, when its findings were computed. */
  readonly closure?: string;
  readonly drafts?: readonly FindingDraft[];
}

export interface CompilerLinterOptions {
  readonly timeoutMs?: number;
  /**
   * Use the repository's own eslint.config.* when it has one (default false). Loading it runs the
   * repository's code inside this process: only an operator who trusts the repositories turns it
   * on (config/trust.yaml `eslint.repository_config`, `rloop review --repo-eslint-config`).
   */
  readonly useRepoEslintConfig?: boolean;
}

function toRepo(repoDir: string, abs: string): string {
  return relative(repoDir, abs).split(sep).join('/');
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function tscDraft(
  file: string,
  diagnostic: ts.Diagnostic,
  startLine: number,
  endLine: number,
  configLabel: string,
  columns: { column?: number; end_column?: number } = {},
): FindingDraft {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
  const code = `TS${diagnostic.code}`;
  return draftFinding({
    severity: 'critical',
    score: diagnostic.category === ts.DiagnosticCategory.Error ? 8 : 7,
    category: 'correctness',
    finding_type: `tsc/${code}`,
    file,
    line_range: { start: startLine, end: endLine },
    ...columns,
    tool_severity: diagnostic.category === ts.DiagnosticCategory.Error ? 'error' : 'warning',
    title: `${code}: ${message}`,
    current_behaviour: `The TypeScript compiler (${configLabel}) reports ${code} at ${file}:${startLine}: ${message}`,
    expected_behaviour: `${file} compiles without ${code} under the project's compiler options: the types are fixed, the checker is not silenced.`,
    observable_test_conditions: [
      `\`tsc --noEmit\` (${configLabel}) reports no ${code} in ${file}`,
      'a test exercises the corrected code path with the values the types now describe',
    ],
    forbidden_in_test: [
      '// @ts-ignore, @ts-expect-error, `as any` or non-null assertions added to silence the diagnostic',
      'loosening compilerOptions (strict, noImplicitAny, skipLibCheck on project files)',
    ],
    autofix: 'none',
    autofix_note: 'a compiler diagnostic: the types or the code need a decision, no rewrite is mechanical',
  });
}

/** The name a no-deprecated message is about and the library's reason, or null for any other message. */
function deprecationOf(message: Linter.LintMessage): { readonly name: string; readonly reason: string } | null {
  const deprecated =
    message.ruleId !== null && /(^|\/)no-deprecated$/.test(message.ruleId)
      ? /^`(.+?)` is deprecated\.?\s*(.*)$/s.exec(message.message)
      : null;
  return deprecated === null ? null : { name: deprecated[1] ?? 'api', reason: (deprecated[2] ?? '').trim() };
}

function eslintDraft(
  file: string,
  message: Linter.LintMessage,
  ruleType: string | undefined,
  codemod: AutofixVerdict | null,
): FindingDraft {
  const line = message.line > 0 ? message.line : 1;
  const endLine = message.endLine !== undefined && message.endLine >= line ? message.endLine : line;
  const columns = {
    ...(message.column > 0 ? { column: message.column } : {}),
    ...(message.endColumn === undefined ? {} : { end_column: message.endColumn }),
  };
  const level = message.severity === 2 ? 'error' : 'warning';
  const deprecated = deprecationOf(message);
  if (deprecated !== null) {
    const { name, reason } = deprecated;
    const verdict = codemod ?? {
      autofix: 'none',
      note: `no codemod rewrites ${name}: its replacement needs judgement`,
    };
    return draftFinding({
      severity: 'critical',
      score: 8,
      category: 'correctness',
      finding_type: `deprecation/${findingTypeToken(name)}`,
      file,
      line_range: { start: line, end: endLine },
      ...columns,
      tool_severity: level,
      title: `Deprecated API: ${name}${reason === '' ? '' : ` — ${reason}`}`,
      current_behaviour: `${file}:${line} uses ${name}, which its library marks @deprecated${reason === '' ? '' : ` (${reason})`}. Deprecated APIs are removed in a later major version, and the code breaks then.`,
      expected_behaviour: `The code uses the supported replacement for ${name}${reason === '' ? '' : ` (${reason})`} with the same observable behaviour.`,
      observable_test_conditions: [
        `${file} no longer references ${name}`,
        'the replacement produces the same results as before for the inputs this code handles (a test pins them)',
      ],
      forbidden_in_test: [
        'suppressing the deprecation (eslint-disable, @ts-ignore)',
        'asserting that the deprecated function is called',
      ],
      fixable: verdict.autofix !== 'none',
      autofix: verdict.autofix,
      autofix_note: verdict.note,
    });
  }
  const rule =
    message.ruleId ??
    (message.fatal === true
      ? 'parse-error'
      : /eslint-disable/.test(message.message)
        ? 'unused-disable-directive'
        : 'unknown');
  const category =
    message.fatal === true || ruleType === 'problem'
      ? 'correctness'
      : ruleType === 'layout'
        ? 'readability'
        : 'maintainability';
  const fixable = message.fix !== undefined;
  return draftFinding({
    severity: 'critical',
    score: message.severity === 2 ? 8 : 7,
    category,
    finding_type: `eslint/${findingTypeToken(rule)}`,
    file,
    line_range: { start: line, end: endLine },
    ...columns,
    tool_severity: level,
    title: `ESLint ${rule}: ${message.message}`,
    current_behaviour: `ESLint reports ${rule} (${level}) at ${file}:${line}: ${message.message}`,
    expected_behaviour: `ESLint reports nothing for ${rule} here${fixable ? ' (`eslint --fix` fixes it mechanically)' : ''}; warnings count as defects (Decision 8).`,
    observable_test_conditions: [
      `\`eslint ${file}\` reports no ${rule} at line ${line}`,
      'the behaviour of the changed lines is unchanged (existing tests still pass)',
    ],
    forbidden_in_test: [
      'eslint-disable comments or turning the rule off in the configuration',
      'tests that depend on the lint-violating form of the code',
    ],
    fixable,
    autofix: fixable ? 'eslint' : 'none',
    autofix_note: fixable
      ? `ESLint's own fix for ${rule} (eslint --fix)`
      : `ESLint has no fix for ${rule}: the code needs a decision`,
  });
}

/** The repository's own ESLint config, when it has one inside the checkout (a link out of it is not the repository's). */
function repoEslintConfig(boundary: CheckoutBoundary): string | null {
  return ESLINT_CONFIG_FILES.find((name) => boundary.locate(name, { anySize: true }).ok) ?? null;
}

/** `toolchain/compiler-linter`: tsc diagnostics, ESLint (repo config or recommended sets) and deprecated API use. */
export function compilerLinterCritic(options: CompilerLinterOptions = {}): CriticDefinition {
  const useRepoConfig = options.useRepoEslintConfig ?? false;
  return defineCritic({
    id: 'toolchain/compiler-linter',
    evidence: 'toolchain',
    description:
      "TypeScript compiler diagnostics with the repository's tsconfig, ESLint (eslint + typescript-eslint recommended, or the repository's own flat config when the operator trusts it) and @typescript-eslint/no-deprecated; every warning is critical (Decision 8).",
    triggers: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs'],
    timeoutMs: options.timeoutMs ?? 600_000,
    covers: isLintable,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const note = context.note ?? ((): void => undefined);
      const repoDir = context.repoDir;
      const reader = context.reader;
      const boundary = reader.boundary;
      // Only files the reader accepts reach the compiler and ESLint (inside the checkout, within the bound).
      const reviewed = context.files.filter(isLintable).filter((file) => reader.read(file) !== null);
      if (reviewed.length === 0) return [];
      const groups = tsGroups(boundary, reviewed, note);
      const ownConfig = repoEslintConfig(boundary);
      const configFile = useRepoConfig ? ownConfig : null;
      if (ownConfig !== null && configFile === null)
        note(
          `the repository's ${ownConfig} was not loaded (it is code; an operator opts in to running it): eslint recommended + typescript-eslint recommended`,
        );
      const configKey = {
        groups: groups.map((g) => [
          g.configPath === null ? null : toRepo(repoDir, g.configPath),
          g.configPath === null ? null : sha256(readFileSync(g.configPath, 'utf8')),
        ]),
        eslint: configFile === null ? 'default' : sha256(readFileSync(join(repoDir, configFile), 'utf8')),
        packages: [...declaredPackages(boundary)].sort(),
        // Which module system the root package declares decides how its JavaScript is linted.
        moduleType: packageType(boundary, 'package.json'),
        installed: existsSync(join(repoDir, 'node_modules')),
      };
      const cache = AnalysisCache.open<FileRecord>(
        context.cacheDir,
        'toolchain/compiler-linter',
        COMPILER_LINTER_VERSION,
        configKey,
      );

      const closureOf = (file: string): string | null => {
        const seen = new Map<string, string>();
        const stack = [file];
        while (stack.length > 0) {
          const current = stack.pop() ?? '';
          if (seen.has(current)) continue;
          const record = cache.get(current);
          const hash = reader.hash(current);
          if (record === undefined || hash === null || record.hash !== hash) return null;
          seen.set(current, hash);
          stack.push(...record.deps);
        }
        return sha256(
          [...seen]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([f, h]) => `${f}:${h}`)
            .join('\n'),
        );
      };

      const drafts: FindingDraft[] = [];
      const toCheck = new Set<string>();
      for (const file of reviewed) {
        const record = cache.get(file);
        const closure = closureOf(file);
        if (record?.drafts !== undefined && closure !== null && record.closure === closure)
          drafts.push(...record.drafts);
        else toCheck.add(file);
      }
      for (const group of groups) {
        const global = cache.get(`#global:${group.configPath ?? 'defaults'}`);
        if (toCheck.size === 0 && global?.drafts !== undefined) drafts.push(...global.drafts);
      }
      note(
        `${reviewed.length} files: ${toCheck.size} checked, ${reviewed.length - toCheck.size} reused from the cache`,
      );
      if (toCheck.size === 0) {
        cache.save();
        return drafts;
      }

      const fresh = await checkFiles(repoDir, groups, toCheck, reader, configFile, context, note);
      drafts.push(...fresh.drafts);
      for (const [file, deps] of fresh.graph) {
        const hash = reader.hash(file);
        if (hash === null) continue;
        const previous = cache.get(file);
        cache.set(file, { ...(previous?.hash === hash ? previous : {}), hash, deps });
      }
      for (const file of toCheck) {
        const hash = reader.hash(file);
        if (hash === null) continue;
        if (cache.get(file)?.hash !== hash) cache.set(file, { hash, deps: [] });
        const closure = closureOf(file);
        const record = cache.get(file);
        if (closure !== null && record !== undefined)
          cache.set(file, { ...record, closure, drafts: fresh.byFile.get(file) ?? [] });
      }
      for (const [key, globalDrafts] of fresh.globals)
        cache.set(`#global:${key}`, { hash: key, deps: [], drafts: globalDrafts });
      cache.save();
      return drafts;
    },
  });
}

interface CheckResult {
  readonly drafts: FindingDraft[];
  readonly byFile: Map<string, FindingDraft[]>;
  readonly globals: Map<string, FindingDraft[]>;
  readonly graph: Map<string, string[]>;
}

async function checkFiles(
  repoDir: string,
  groups: readonly TsGroup[],
  toCheck: ReadonlySet<string>,
  reader: RepoReader,
  configFile: string | null,
  context: CriticContext,
  note: (message: string) => void,
): Promise<CheckResult> {
  const byFile = new Map<string, FindingDraft[]>();
  const globals = new Map<string, FindingDraft[]>();
  const graph = new Map<string, string[]>();
  const add = (file: string, draft: FindingDraft): void => {
    const list = byFile.get(file) ?? [];
    list.push(draft);
    byFile.set(file, list);
  };
  const installed = existsSync(join(repoDir, 'node_modules'));
  const declared = declaredPackages(reader.boundary);
  const skippedPackages = new Set<string>();
  let skippedCascades = 0;

  const programs: ts.Program[] = [];
  for (const group of groups) {
    if (!group.reviewed.some((f) => toCheck.has(f))) continue;
    context.signal.throwIfAborted();
    // A file's diagnostics depend on what it imports (and global declarations), never on who imports
    // it: when only a few files need checking, the program starts from them instead of the whole
    // project, and TypeScript loads just their imports.
    const checking = group.reviewed.filter((f) => toCheck.has(f)).map((f) => join(repoDir, f));
    const rootNames =
      checking.length * 2 < group.rootNames.length
        ? [...new Set([...checking, ...group.rootNames.filter((name) => /\.d\.(m|c)?ts$/.test(name))])]
        : group.rootNames;
    const program = ts.createProgram({
      rootNames,
      options: group.options,
      host: createSharedHost(group.options, reader.boundary),
    });
    programs.push(program);
    const configLabel =
      group.configPath === null ? 'strict defaults, no tsconfig.json' : toRepo(repoDir, group.configPath);
    for (const [file, deps] of importGraph(program, reader.boundary)) graph.set(file, deps);
    for (const file of group.reviewed) {
      if (!toCheck.has(file)) continue;
      const sf = program.getSourceFile(join(repoDir, file));
      if (sf === undefined) continue;
      const diagnostics = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
      const uninstalled = (diagnostic: ts.Diagnostic): boolean => {
        if (installed || !MISSING_MODULE_CODES.has(diagnostic.code)) return false;
        const name = /['"]([^'"]+)['"]/.exec(ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '))?.[1];
        if (name === undefined || name.startsWith('.') || !declared.has(packageOf(name))) return false;
        skippedPackages.add(packageOf(name));
        return true;
      };
      // Without a package's types its values are `any`, so callbacks passed to it get implicit-any
      // errors that installing the package would remove: those are not judged either.
      const missingTypes = diagnostics.filter(uninstalled).length > 0;
      for (const diagnostic of diagnostics) {
        if (uninstalled(diagnostic) || (missingTypes && IMPLICIT_ANY_CODES.has(diagnostic.code))) {
          skippedCascades += missingTypes && IMPLICIT_ANY_CODES.has(diagnostic.code) ? 1 : 0;
          continue;
        }
        const start = diagnostic.start ?? 0;
        const from = sf.getLineAndCharacterOfPosition(start);
        const to = sf.getLineAndCharacterOfPosition(start + (diagnostic.length ?? 0));
        const startLine = from.line + 1;
        const endLine = to.line + 1;
        add(
          file,
          tscDraft(file, diagnostic, startLine, endLine, configLabel, {
            column: from.character + 1,
            end_column: to.character + 1,
          }),
        );
      }
      await yieldToEventLoop();
    }
    const configFileRel = group.configPath === null ? null : toRepo(repoDir, group.configPath);
    const globalDrafts = [...group.configErrors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
      .filter((d) => !(!installed && (d.code === 6053 || d.code === 2688)))
      .filter(() => configFileRel !== null)
      .map((d) => tscDraft(configFileRel ?? 'tsconfig.json', d, 1, 1, configLabel));
    globals.set(group.configPath ?? 'defaults', globalDrafts);
  }
  if (skippedPackages.size > 0) {
    note(
      `no node_modules: diagnostics about declared but uninstalled packages (${[...skippedPackages].sort().join(', ')}) skipped` +
        `${skippedCascades > 0 ? `, with ${skippedCascades} implicit-any diagnostic(s) in files importing them` : ''}; install dependencies for a full check`,
    );
  }

  const lintFiles = [...toCheck].filter(isLintable);
  const programFiles = new Set<string>();
  for (const program of programs)
    for (const file of repoFilesOf(program, repoDir)) programFiles.add(join(repoDir, file));
  const commonJs = new Set(lintFiles.filter((f) => isCommonJs(reader.boundary, f)).map((f) => join(repoDir, f)));
  const eslint = await createEslint(repoDir, programs, programFiles, commonJs, configFile, note);
  context.signal.throwIfAborted();
  const results = await eslint.lintFiles(lintFiles.map((f) => join(repoDir, f)));
  const meta = eslint.getRulesMetaForResults(results);
  const seen = new Set<string>();
  // A deprecation's codemod (or why there is none) is read off the program that type-checked its file.
  const codemodFor = (file: string, message: Linter.LintMessage): AutofixVerdict | null => {
    const deprecated = deprecationOf(message);
    if (deprecated === null) return null;
    for (const program of programs) {
      const sourceFile = program.getSourceFile(join(repoDir, file));
      if (sourceFile !== undefined)
        return classifyDeprecationAt(program, sourceFile, message.line, message.column, deprecated.name);
    }
    return null;
  };
  for (const result of results) {
    const file = toRepo(repoDir, result.filePath);
    for (const message of result.messages) {
      const draft = eslintDraft(
        file,
        message,
        message.ruleId === null ? undefined : meta[message.ruleId]?.type,
        codemodFor(file, message),
      );
      const key = `${file}|${draft.line_range.start}|${draft.finding_type}`;
      if (seen.has(key)) continue;
      seen.add(key);
      add(file, draft);
    }
  }
  for (const file of toCheck) if (reader.read(file) !== null && !byFile.has(file)) byFile.set(file, []);
  const drafts = [...byFile.values()].flat();
  for (const list of globals.values()) drafts.push(...list);
  return { drafts, byFile, globals, graph };
}

/** The `type` of the package.json nearest a file inside the checkout (`module` or `commonjs`, Node's default). */
function packageType(boundary: CheckoutBoundary, file: string): string {
  const parts = file.split('/').slice(0, -1);
  for (let depth = parts.length; depth >= 0; depth -= 1) {
    const manifest = [...parts.slice(0, depth), 'package.json'].join('/');
    const located = boundary.locate(manifest);
    if (!located.ok) continue;
    try {
      const type = (JSON.parse(readFileSync(located.path, 'utf8')) as { type?: unknown }).type;
      return type === 'module' ? 'module' : 'commonjs';
    } catch {
      // A manifest that is not JSON: Node would refuse it; the default stands.
      return 'commonjs';
    }
  }
  return 'commonjs';
}

/** Whether Node loads a JavaScript file as CommonJS (.cjs, or .js/.jsx in a package without "type": "module"). */
export function isCommonJs(boundary: CheckoutBoundary, file: string): boolean {
  if (file.endsWith('.cjs')) return true;
  return /\.jsx?$/.test(file) && packageType(boundary, file) === 'commonjs';
}

async function createEslint(
  repoDir: string,
  programs: readonly ts.Program[],
  programFiles: ReadonlySet<string>,
  commonJs: ReadonlySet<string>,
  configFile: string | null,
  note: (message: string) => void,
): Promise<ESLint> {
  // Deprecations need type information: run typescript-eslint's no-deprecated on the programs we
  // already built (no second type-check), under a plugin name that cannot clash with the repo's.
  const typed: Linter.Config[] =
    programs.length === 0
      ? []
      : [
          {
            files: [(path: string) => programFiles.has(path)] as unknown as string[],
            languageOptions: {
              parser: tseslint.parser,
              parserOptions: { programs: [...programs], projectService: false, project: null },
            },
            plugins: { 'rloop-ts': tseslint.plugin as unknown as ESLint.Plugin },
            rules: { 'rloop-ts/no-deprecated': 'error' },
          },
        ];
  if (configFile !== null) {
    try {
      const eslint = new ESLint({
        cwd: repoDir,
        warnIgnored: false,
        errorOnUnmatchedPattern: false,
        overrideConfig: typed,
      });
      await eslint.calculateConfigForFile(join(repoDir, configFile));
      return eslint;
    } catch (error) {
      note(
        `the repository's ${configFile} could not be loaded (${describeError(error).split('\n')[0] ?? ''}); used eslint recommended + typescript-eslint recommended instead`,
      );
    }
  }
  // CommonJS is a module system, not a style to lint away: require() is how such a file imports,
  // so typescript-eslint's no-require-imports (for TypeScript and ES modules) does not apply there.
  const commonJsFiles: Linter.Config[] =
    commonJs.size === 0
      ? []
      : [
          {
            files: [(path: string) => commonJs.has(path)] as unknown as string[],
            languageOptions: { sourceType: 'commonjs' },
            rules: { '@typescript-eslint/no-require-imports': 'off' },
          },
        ];
  const defaults: Linter.Config[] = [
    { ignores: ['**/node_modules/**', '**/dist/**', '**/build/**', '**/coverage/**'] },
    js.configs.recommended,
    ...(tseslint.configs.recommended as Linter.Config[]),
    { languageOptions: { globals: GLOBALS } },
    ...commonJsFiles,
    ...typed,
  ];
  return new ESLint({
    cwd: repoDir,
    overrideConfigFile: true,
    warnIgnored: false,
    errorOnUnmatchedPattern: false,
    overrideConfig: defaults,
  });
}
