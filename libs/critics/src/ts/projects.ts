import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import type { CheckoutBoundary } from '../repo/checkout.js';

/** One TypeScript project to check: a tsconfig (or our defaults) and the files it compiles. */
export interface TsGroup {
  /** Absolute path of the tsconfig, or null for the defaults. */
  readonly configPath: string | null;
  readonly options: ts.CompilerOptions;
  readonly rootNames: readonly string[];
  readonly configErrors: readonly ts.Diagnostic[];
  /** Reviewed files (repo-relative) this group type-checks. */
  readonly reviewed: readonly string[];
}

/** Strict defaults for a repository without a tsconfig.json. */
export const DEFAULT_COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  esModuleInterop: true,
  skipLibCheck: true,
  resolveJsonModule: true,
  allowImportingTsExtensions: false,
  jsx: ts.JsxEmit.ReactJSX,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
};

const require = createRequire(import.meta.url);

/** This workspace's @types directory: type definitions for repos that declare but have not installed them. */
export function workspaceTypesDir(): string | null {
  try {
    return dirname(dirname(require.resolve('@types/node/package.json')));
  } catch {
    // No @types/node next to the critics package: repos without node_modules get no fallback types.
    return null;
  }
}

export function isTsFile(file: string): boolean {
  return /\.(ts|tsx|mts|cts)$/.test(file) && !/\.d\.(m|c)?ts$/.test(file);
}

/** TypeScript and JavaScript sources: JavaScript joins the program (allowJs) so deprecations are found there too. */
export function isProgramFile(file: string): boolean {
  return isTsFile(file) || /\.(js|jsx|mjs|cjs)$/.test(file);
}

function toRepo(repoDir: string, abs: string): string {
  return relative(repoDir, abs).split(sep).join('/');
}

/**
 * The TypeScript system (file access for config parsing and module resolution) kept inside a
 * checkout: a path in the checkout whose real location is outside it (a committed symbolic link
 * out) does not exist for the compiler, so nothing is ever read through it.
 */
export function boundedSystem(boundary: CheckoutBoundary): ts.System {
  const sys = ts.sys;
  return {
    ...sys,
    fileExists: (path) => boundary.allows(path) && sys.fileExists(path),
    readFile: (path, encoding) => (boundary.allows(path) ? sys.readFile(path, encoding) : undefined),
    directoryExists: (path) => boundary.allows(path) && sys.directoryExists(path),
    getDirectories: (path) => (boundary.allows(path) ? sys.getDirectories(path) : []),
    readDirectory: (path, extensions, exclude, include, depth) =>
      sys.readDirectory(path, extensions, exclude, include, depth).filter((file) => boundary.allows(file)),
  };
}

function nearestConfig(repoDir: string, file: string, memo: Map<string, string | null>, sys: ts.System): string | null {
  let dir = dirname(join(repoDir, file));
  const visited: string[] = [];
  let found: string | null = null;
  while (dir.startsWith(repoDir)) {
    const known = memo.get(dir);
    if (known !== undefined) {
      found = known;
      break;
    }
    visited.push(dir);
    const candidate = join(dir, 'tsconfig.json');
    if (sys.fileExists(candidate)) {
      found = candidate;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const v of visited) memo.set(v, found);
  return found;
}

function parseConfig(path: string, sys: ts.System): ts.ParsedCommandLine {
  const errors: ts.Diagnostic[] = [];
  const host: ts.ParseConfigFileHost = { ...sys, onUnRecoverableConfigFileDiagnostic: (d) => errors.push(d) };
  const parsed = ts.getParsedCommandLineOfConfigFile(path, {}, host);
  if (parsed === undefined) return { options: {}, fileNames: [], errors };
  return { ...parsed, errors: [...errors, ...parsed.errors] };
}

/** The packages a repository declares in its root package.json (read inside the checkout's boundary). */
export function declaredPackages(boundary: CheckoutBoundary): Set<string> {
  try {
    const located = boundary.locate('package.json');
    if (!located.ok) return new Set();
    const manifest = JSON.parse(readFileSync(located.path, 'utf8')) as Record<string, unknown>;
    const names = new Set<string>();
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
      const deps = manifest[field];
      if (typeof deps === 'object' && deps !== null) for (const name of Object.keys(deps)) names.add(name);
    }
    return names;
  } catch {
    // No package.json (or not JSON): the repository declares nothing.
    return new Set();
  }
}

/**
 * Adjusts a project's options for checking without emitting, and — when the repository has no
 * node_modules — points type roots at this workspace's @types for the type packages the repo
 * declares, so `process` and friends resolve as they would after `npm install`.
 */
function checkingOptions(
  options: ts.CompilerOptions,
  boundary: CheckoutBoundary,
  note: (message: string) => void,
): ts.CompilerOptions {
  const repoDir = boundary.root;
  const adjusted: ts.CompilerOptions = {
    ...options,
    noEmit: true,
    composite: false,
    incremental: false,
    declaration: false,
    declarationMap: false,
    emitDeclarationOnly: false,
    sourceMap: false,
    inlineSourceMap: false,
  };
  delete adjusted.tsBuildInfoFile;
  delete adjusted.outDir;
  if (existsSync(join(repoDir, 'node_modules'))) return adjusted;
  const fallback = workspaceTypesDir();
  if (fallback === null) return adjusted;
  const declared = [...declaredPackages(boundary)]
    .filter((name) => name.startsWith('@types/'))
    .map((name) => name.slice('@types/'.length));
  const wanted = adjusted.types ?? (declared.length > 0 ? declared : ['node']);
  const available = wanted.filter((name) => existsSync(join(fallback, name)));
  if (available.length > 0)
    note(
      `no node_modules: type definitions ${available.map((n) => `@types/${n}`).join(', ')} taken from the critic's workspace`,
    );
  return { ...adjusted, types: available, typeRoots: [...(adjusted.typeRoots ?? []), fallback] };
}

/**
 * Groups the reviewed TypeScript files by the tsconfig that owns them (nearest tsconfig.json; a
 * solution-style config delegates to the referenced project that includes the file) and builds
 * each group's root files: the whole project, so cross-file types are right.
 */
export function tsGroups(
  boundary: CheckoutBoundary,
  reviewed: readonly string[],
  note: (message: string) => void,
): TsGroup[] {
  const repoDir = boundary.root;
  const sys = boundedSystem(boundary);
  const memo = new Map<string, string | null>();
  const parsedConfigs = new Map<string, ts.ParsedCommandLine>();
  const parsed = (path: string): ts.ParsedCommandLine => {
    const known = parsedConfigs.get(path);
    if (known !== undefined) return known;
    const value = parseConfig(path, sys);
    parsedConfigs.set(path, value);
    return value;
  };
  const groups = new Map<string, { configPath: string | null; config: ts.ParsedCommandLine | null; files: string[] }>();
  for (const file of reviewed.filter(isProgramFile)) {
    const abs = join(repoDir, file);
    let configPath = nearestConfig(repoDir, file, memo, sys);
    let config = configPath === null ? null : parsed(configPath);
    if (config !== null && config.fileNames.length === 0 && (config.projectReferences?.length ?? 0) > 0) {
      const owner = (config.projectReferences ?? [])
        .map((ref) => ts.resolveProjectReferencePath(ref))
        .find((refPath) => sys.fileExists(refPath) && parsed(refPath).fileNames.includes(abs));
      configPath = owner ?? null;
      config = owner === undefined ? null : parsed(owner);
    }
    const key = configPath ?? '(defaults)';
    const group = groups.get(key) ?? { configPath, config, files: [] };
    group.files.push(file);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ configPath, config, files }) => {
    const base = checkingOptions(config?.options ?? DEFAULT_COMPILER_OPTIONS, boundary, note);
    const options = files.some((f) => !isTsFile(f)) ? { ...base, allowJs: true } : base;
    const roots = new Set(config?.fileNames ?? []);
    for (const file of files) roots.add(join(repoDir, file));
    return { configPath, options, rootNames: [...roots].sort(), configErrors: config?.errors ?? [], reviewed: files };
  });
}

/** A compiler host whose parsed files (lib.d.ts, @types) are shared by every program in the process. */
const sharedLibFiles = new Map<string, ts.SourceFile>();

export function createSharedHost(options: ts.CompilerOptions, boundary: CheckoutBoundary): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  // What the compiler reads stays inside the checkout (see boundedSystem).
  const sys = boundedSystem(boundary);
  host.fileExists = (path) => sys.fileExists(path);
  host.readFile = (path) => sys.readFile(path);
  host.directoryExists = (path) => sys.directoryExists(path);
  host.getDirectories = (path) => sys.getDirectories(path);
  const unbounded = host.getSourceFile.bind(host);
  const original: typeof host.getSourceFile = (fileName, ...rest) =>
    boundary.allows(fileName) ? unbounded(fileName, ...rest) : undefined;
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    // Only files that cannot change under us (the compiler's libs, installed packages) are shared.
    const stable = fileName.includes(`${sep}node_modules${sep}`) || fileName.includes('/node_modules/');
    if (!stable) return original(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
    const version =
      typeof languageVersionOrOptions === 'object'
        ? `${languageVersionOrOptions.languageVersion}:${languageVersionOrOptions.impliedNodeFormat ?? ''}`
        : String(languageVersionOrOptions);
    const key = `${fileName}|${version}`;
    const known = sharedLibFiles.get(key);
    if (known !== undefined) return known;
    const file = original(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
    if (file !== undefined) sharedLibFiles.set(key, file);
    return file;
  };
  return host;
}

/** Repo-relative paths of the repository files a program compiled (not its libs or packages). */
export function repoFilesOf(program: ts.Program, repoDir: string): string[] {
  return program
    .getSourceFiles()
    .map((sf) => sf.fileName)
    .filter((name) => name.startsWith(repoDir) && !name.includes('/node_modules/'))
    .map((name) => toRepo(repoDir, name));
}

/**
 * The repository files each file depends on (its resolved imports and references), for the
 * incremental cache: a file's diagnostics are reused only while it and everything it imports,
 * transitively, are unchanged.
 */
export function importGraph(program: ts.Program, boundary: CheckoutBoundary): Map<string, string[]> {
  const repoDir = boundary.root;
  const sys = boundedSystem(boundary);
  const options = program.getCompilerOptions();
  const cache = ts.createModuleResolutionCache(repoDir, (s) => s, options);
  const graph = new Map<string, string[]>();
  for (const sf of program.getSourceFiles()) {
    if (!sf.fileName.startsWith(repoDir) || sf.fileName.includes('/node_modules/')) continue;
    const info = ts.preProcessFile(sf.text, true, true);
    const deps = new Set<string>();
    for (const imported of info.importedFiles) {
      const resolved = ts.resolveModuleName(imported.fileName, sf.fileName, options, sys, cache).resolvedModule
        ?.resolvedFileName;
      if (resolved !== undefined && resolved.startsWith(repoDir) && !resolved.includes('/node_modules/'))
        deps.add(toRepo(repoDir, resolved));
    }
    for (const ref of info.referencedFiles) deps.add(toRepo(repoDir, join(dirname(sf.fileName), ref.fileName)));
    graph.set(toRepo(repoDir, sf.fileName), [...deps].sort());
  }
  return graph;
}
