import { posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Ecosystem } from './versions.js';

// The resolved versions a repository installs, read from its lockfiles (never by running a package
// manager): npm's package-lock.json / npm-shrinkwrap.json (lockfile versions 1, 2 and 3), yarn.lock
// (classic and berry), pnpm-lock.yaml (5 to 9), Cargo.lock, go.mod, poetry.lock, uv.lock,
// Pipfile.lock and pinned requirements files.

/** One installed package version, and where a finding about it belongs. */
export interface LockedPackage {
  readonly ecosystem: Ecosystem;
  readonly name: string;
  readonly version: string;
  /** The lockfile it was read from, and the line of its entry there (1 when unknown). */
  readonly lockfile: string;
  readonly line: number;
  /** The direct dependencies that bring it in (itself when it is one); empty when the lockfile does not say. */
  readonly via: readonly string[];
}

/** What one lockfile gave: its packages, and what it could not read. */
export interface LockfileReading {
  readonly file: string;
  readonly ecosystem: Ecosystem;
  readonly packages: readonly LockedPackage[];
  /** Entries left out and why (an unpinned requirement, a git dependency): said in the notes. */
  readonly unaudited: readonly string[];
}

/** A lockfile that is not what its name says (invalid JSON, unreadable YAML). */
export class LockfileFormatError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'LockfileFormatError';
  }
}

type Parser = (file: string, text: string) => LockfileReading;

/** Lockfiles by base name (requirements files by pattern), with their ecosystem. */
const PARSERS: readonly {
  readonly match: (base: string) => boolean;
  readonly ecosystem: Ecosystem;
  readonly parse: Parser;
}[] = [
  { match: (b) => b === 'package-lock.json' || b === 'npm-shrinkwrap.json', ecosystem: 'npm', parse: parsePackageLock },
  { match: (b) => b === 'yarn.lock', ecosystem: 'npm', parse: parseYarnLock },
  { match: (b) => b === 'pnpm-lock.yaml', ecosystem: 'npm', parse: parsePnpmLock },
  { match: (b) => b === 'Cargo.lock', ecosystem: 'crates.io', parse: parseCargoLock },
  { match: (b) => b === 'go.mod', ecosystem: 'Go', parse: parseGoMod },
  { match: (b) => b === 'poetry.lock' || b === 'uv.lock', ecosystem: 'PyPI', parse: parseTomlPackages },
  { match: (b) => b === 'Pipfile.lock', ecosystem: 'PyPI', parse: parsePipfileLock },
  { match: (b) => /^requirements.*\.txt$/.test(b), ecosystem: 'PyPI', parse: parseRequirements },
];

/** The ecosystem of a lockfile we read, or null when the file is not one. */
export function lockfileEcosystem(file: string): Ecosystem | null {
  const base = posix.basename(file);
  return PARSERS.find((p) => p.match(base))?.ecosystem ?? null;
}

/** Reads one lockfile; a file that is not valid for its kind throws LockfileFormatError. */
export function readLockfile(file: string, text: string): LockfileReading {
  const base = posix.basename(file);
  const parser = PARSERS.find((p) => p.match(base));
  if (parser === undefined) throw new LockfileFormatError(file, 'not a lockfile this critic reads');
  return parser.parse(file, text);
}

function lineIndex(text: string): (needle: string) => number {
  return (needle) => {
    const at = text.indexOf(needle);
    return at < 0 ? 1 : text.slice(0, at).split('\n').length;
  };
}

function isRegistryVersion(version: unknown): version is string {
  return typeof version === 'string' && /^\d/.test(version);
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A field that should be a string, as text for a note (anything else is named by its type). */
function asText(value: unknown, fallback: string): string {
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : value === undefined || value === null
      ? fallback
      : typeof value;
}

function depNames(entry: Record<string, unknown>): string[] {
  return ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((field) =>
    Object.keys(record(entry[field])),
  );
}

// ---------------------------------------------------------------------------------------------
// npm

function parsePackageLock(file: string, text: string): LockfileReading {
  let lock: Record<string, unknown>;
  try {
    lock = record(JSON.parse(text));
  } catch (error) {
    throw new LockfileFormatError(file, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const line = lineIndex(text);
  const packages = record(lock['packages']);
  if (Object.keys(packages).length > 0) return packageLockV2(file, packages, line);
  return packageLockV1(file, record(lock['dependencies']), line);
}

/** Lockfile versions 2 and 3: a flat map of install paths; dependencies resolved as Node does. */
function packageLockV2(
  file: string,
  packages: Record<string, unknown>,
  line: (needle: string) => number,
): LockfileReading {
  const resolve = (from: string, dep: string): string | null => {
    let base = from;
    for (;;) {
      const candidate = `${base === '' ? '' : `${base}/`}node_modules/${dep}`;
      if (packages[candidate] !== undefined) return candidate;
      if (base === '') return null;
      const up = base.lastIndexOf('/node_modules/');
      base = up < 0 ? '' : base.slice(0, up);
    }
  };
  // Which direct dependency each install path is reached from (breadth first from the root).
  const via = new Map<string, Set<string>>();
  const rootDeps = depNames(record(packages['']));
  const queue: { path: string; root: string }[] = rootDeps.flatMap((dep) => {
    const path = resolve('', dep);
    return path === null ? [] : [{ path, root: dep }];
  });
  while (queue.length > 0) {
    const { path, root } = queue.shift() ?? { path: '', root: '' };
    const roots = via.get(path) ?? new Set<string>();
    if (roots.has(root)) continue;
    roots.add(root);
    via.set(path, roots);
    for (const dep of depNames(record(packages[path]))) {
      const next = resolve(path, dep);
      if (next !== null) queue.push({ path: next, root });
    }
  }
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  for (const [path, raw] of Object.entries(packages)) {
    const entry = record(raw);
    const at = path.lastIndexOf('node_modules/');
    if (path === '' || at < 0 || entry['link'] === true) continue;
    const name = typeof entry['name'] === 'string' ? entry['name'] : path.slice(at + 'node_modules/'.length);
    if (!isRegistryVersion(entry['version'])) {
      unaudited.push(`${name} (${asText(entry['resolved'] ?? entry['version'], 'no version')})`);
      continue;
    }
    found.push({
      ecosystem: 'npm',
      name,
      version: entry['version'],
      lockfile: file,
      line: line(`"${path}"`),
      via: [...(via.get(path) ?? [])].sort(),
    });
  }
  return { file, ecosystem: 'npm', packages: found, unaudited };
}

/** Lockfile version 1: a nested tree under `dependencies`. */
function packageLockV1(
  file: string,
  dependencies: Record<string, unknown>,
  line: (needle: string) => number,
): LockfileReading {
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  const walk = (deps: Record<string, unknown>, root: string | null): void => {
    for (const [name, raw] of Object.entries(deps)) {
      const entry = record(raw);
      const top = root ?? name;
      if (isRegistryVersion(entry['version']))
        found.push({
          ecosystem: 'npm',
          name,
          version: entry['version'],
          lockfile: file,
          line: line(`"${name}": {`),
          via: root === null ? [] : [top],
        });
      else unaudited.push(`${name} (${asText(entry['version'], 'no version')})`);
      walk(record(entry['dependencies']), top);
    }
  };
  walk(dependencies, null);
  return { file, ecosystem: 'npm', packages: found, unaudited };
}

/** `name@range` (or `@scope/name@range`) → name and range; an `npm:` alias names the real package. */
function splitSpec(spec: string): { name: string; range: string } {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  const name = at < 0 ? spec : spec.slice(0, at);
  const range = at < 0 ? '' : spec.slice(at + 1);
  if (range.startsWith('npm:')) {
    const aliased = splitSpec(range.slice(4));
    if (aliased.name !== '' && !/^[\^~<>=\d*]/.test(aliased.name)) return aliased;
    return { name, range: range.slice(4) };
  }
  return { name, range };
}

function parseYarnLock(file: string, text: string): LockfileReading {
  if (/^__metadata:/m.test(text)) return parseYarnBerry(file, text);
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  const lines = text.split('\n');
  let header: { specs: string[]; line: number } | null = null;
  lines.forEach((raw, index) => {
    if (raw.startsWith('#') || raw.trim() === '') return;
    if (!raw.startsWith(' ') && raw.endsWith(':')) {
      const specs = raw
        .slice(0, -1)
        .split(/,\s*/)
        .map((s) => s.trim().replace(/^"|"$/g, ''));
      header = { specs, line: index + 1 };
      return;
    }
    const version = /^\s+version:?\s+"?([^"\s]+)"?/.exec(raw);
    if (version !== null && header !== null) {
      const { name, range } = splitSpec(header.specs[0] ?? '');
      if (/^(file|link|workspace|portal|git|github|https?):/.test(range)) unaudited.push(`${name} (${range})`);
      else if (isRegistryVersion(version[1]))
        found.push({ ecosystem: 'npm', name, version: version[1], lockfile: file, line: header.line, via: [] });
      header = null;
    }
  });
  return { file, ecosystem: 'npm', packages: found, unaudited };
}

function parseYarnBerry(file: string, text: string): LockfileReading {
  const lock = record(parseYamlOrThrow(file, text));
  const line = lineIndex(text);
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  for (const [specs, raw] of Object.entries(lock)) {
    if (specs === '__metadata') continue;
    const entry = record(raw);
    const resolution = typeof entry['resolution'] === 'string' ? entry['resolution'] : '';
    const npm = /^(@?[^@]+)@npm:(.+)$/.exec(resolution);
    if (npm === null || !isRegistryVersion(entry['version'])) {
      unaudited.push(resolution || specs);
      continue;
    }
    found.push({
      ecosystem: 'npm',
      name: npm[1] ?? '',
      version: entry['version'],
      lockfile: file,
      line: line(specs),
      via: [],
    });
  }
  return { file, ecosystem: 'npm', packages: found, unaudited };
}

function parseYamlOrThrow(file: string, text: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 10_000 });
  } catch (error) {
    throw new LockfileFormatError(file, `not valid YAML (${error instanceof Error ? error.message : String(error)})`);
  }
}

function parsePnpmLock(file: string, text: string): LockfileReading {
  const lock = record(parseYamlOrThrow(file, text));
  const line = lineIndex(text);
  const importers = record(lock['importers']);
  const direct = new Set([
    ...Object.values(importers).flatMap((importer) => depNames(record(importer))),
    ...depNames(lock),
  ]);
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  const v5 = Number.parseFloat(asText(lock['lockfileVersion'], '9')) < 6;
  for (const [key, raw] of Object.entries(record(lock['packages']))) {
    const entry = record(raw);
    // '/name@1.0.0(peer@2)' (6–8), 'name@1.0.0' (9), '/name/1.0.0_peer@2' (5).
    const bare = key.replace(/^\//, '').replace(/\(.*$/, '');
    let name: string | null = typeof entry['name'] === 'string' ? entry['name'] : null;
    let version: string | null = typeof entry['version'] === 'string' ? entry['version'] : null;
    const at = bare.lastIndexOf('@');
    if (!v5 && at > 0) {
      name ??= bare.slice(0, at);
      version ??= bare.slice(at + 1);
    } else {
      const path = /^(@[^/]+\/[^/]+|[^/@]+)\/([^/]+)$/.exec(bare.replace(/_.*$/, ''));
      name ??= path?.[1] ?? null;
      version ??= path?.[2] ?? null;
    }
    if (name === null || !isRegistryVersion(version)) {
      unaudited.push(key);
      continue;
    }
    found.push({
      ecosystem: 'npm',
      name,
      version,
      lockfile: file,
      line: line(key),
      via: direct.has(name) ? [name] : [],
    });
  }
  return { file, ecosystem: 'npm', packages: found, unaudited };
}

// ---------------------------------------------------------------------------------------------
// Rust, Go, Python

/** `[[package]]` tables with `name`, `version` and `source` keys (Cargo.lock, poetry.lock, uv.lock). */
function tomlPackages(text: string): { name: string; version: string; source: string | null; line: number }[] {
  const packages: { name: string; version: string; source: string | null; line: number }[] = [];
  let current: { name?: string; version?: string; source?: string; line: number } | null = null;
  const flush = (): void => {
    if (current?.name !== undefined && current.version !== undefined)
      packages.push({
        name: current.name,
        version: current.version,
        source: current.source ?? null,
        line: current.line,
      });
  };
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith('[')) {
      if (line === '[[package]]') {
        flush();
        current = { line: index + 1 };
      } else if (!line.startsWith('[package.')) {
        flush();
        current = null;
      }
      return;
    }
    const pair = /^(name|version|source)\s*=\s*(.+)$/.exec(line);
    if (pair === null || current === null) return;
    const value = (pair[2] ?? '').trim();
    const quoted = /^"([^"]*)"/.exec(value)?.[1];
    if (pair[1] === 'name' && quoted !== undefined && current.name === undefined) {
      current.name = quoted;
      current.line = index + 1;
    } else if (pair[1] === 'version' && quoted !== undefined && current.version === undefined) current.version = quoted;
    else if (pair[1] === 'source' && current.source === undefined) current.source = quoted ?? value;
  });
  flush();
  return packages;
}

function parseCargoLock(file: string, text: string): LockfileReading {
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  for (const pkg of tomlPackages(text)) {
    // Workspace members have no source; git and path crates are not in the crates.io advisories.
    if (pkg.source === null) continue;
    if (!/^(registry|sparse)\+/.test(pkg.source)) {
      unaudited.push(`${pkg.name} (${pkg.source})`);
      continue;
    }
    found.push({
      ecosystem: 'crates.io',
      name: pkg.name,
      version: pkg.version,
      lockfile: file,
      line: pkg.line,
      via: [],
    });
  }
  return { file, ecosystem: 'crates.io', packages: found, unaudited };
}

function parseTomlPackages(file: string, text: string): LockfileReading {
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  for (const pkg of tomlPackages(text)) {
    // uv.lock: the project itself and path/git sources are not PyPI releases.
    if (pkg.source !== null && !/registry\s*=/.test(pkg.source) && pkg.source.startsWith('{')) {
      if (!/(editable|virtual)\s*=\s*"\."/.test(pkg.source)) unaudited.push(`${pkg.name} (${pkg.source})`);
      continue;
    }
    found.push({ ecosystem: 'PyPI', name: pkg.name, version: pkg.version, lockfile: file, line: pkg.line, via: [] });
  }
  return { file, ecosystem: 'PyPI', packages: found, unaudited };
}

function parsePipfileLock(file: string, text: string): LockfileReading {
  let lock: Record<string, unknown>;
  try {
    lock = record(JSON.parse(text));
  } catch (error) {
    throw new LockfileFormatError(file, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const line = lineIndex(text);
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  for (const section of ['default', 'develop']) {
    for (const [name, raw] of Object.entries(record(lock[section]))) {
      const pinned = /^===?\s*(\S+)$/.exec(asText(record(raw)['version'], ''));
      if (pinned?.[1] === undefined) unaudited.push(name);
      else
        found.push({
          ecosystem: 'PyPI',
          name,
          version: pinned[1],
          lockfile: file,
          line: line(`"${name}": {`),
          via: [name],
        });
    }
  }
  return { file, ecosystem: 'PyPI', packages: found, unaudited };
}

function parseRequirements(file: string, text: string): LockfileReading {
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '' || line.startsWith('-') || line.startsWith('\\') || line.startsWith('--')) return;
    const requirement = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(===?|~=|!=|>=|<=|>|<)?\s*([^;\s\\]*)/.exec(
      line,
    );
    if (requirement === null) return;
    const [, name = '', operator, version = ''] = requirement;
    if ((operator === '==' || operator === '===') && version !== '' && !version.includes('*'))
      found.push({ ecosystem: 'PyPI', name, version, lockfile: file, line: index + 1, via: [name] });
    else unaudited.push(`${name} (${operator === undefined ? 'no version' : `${operator}${version}`}: not pinned)`);
  });
  return { file, ecosystem: 'PyPI', packages: found, unaudited };
}

function parseGoMod(file: string, text: string): LockfileReading {
  const found: LockedPackage[] = [];
  const unaudited: string[] = [];
  const replaced = new Map<string, { module: string; version: string } | null>();
  const requires: { module: string; version: string; line: number; indirect: boolean }[] = [];
  let block: 'require' | 'replace' | null = null;
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\/\/(?! indirect).*$/, '').trim();
    const indirect = /\/\/\s*indirect/.test(raw);
    if (block !== null && line === ')') {
      block = null;
      return;
    }
    const opening = /^(require|replace)\s*\($/.exec(line);
    if (opening !== null) {
      block = opening[1] as 'require' | 'replace';
      return;
    }
    const single = /^(require|replace)\s+(.+)$/.exec(line);
    const kind = single !== null ? (single[1] as 'require' | 'replace') : block;
    const body = (single !== null ? (single[2] ?? '') : line).replace(/\/\/.*$/, '').trim();
    if (kind === 'require') {
      const [module, version] = body.split(/\s+/);
      if (module !== undefined && version !== undefined) requires.push({ module, version, line: index + 1, indirect });
    } else if (kind === 'replace') {
      const [from, to] = body.split('=>').map((part) => part.trim().split(/\s+/));
      const target = to?.[0];
      if (from?.[0] === undefined || target === undefined) return;
      replaced.set(
        from[0],
        target.startsWith('.') || target.startsWith('/') ? null : { module: target, version: to?.[1] ?? '' },
      );
    }
  });
  for (const req of requires) {
    const replacement = replaced.get(req.module);
    if (replacement === null) {
      unaudited.push(`${req.module} (replaced by a local directory)`);
      continue;
    }
    const module = replacement?.module ?? req.module;
    const version = replacement !== undefined && replacement.version !== '' ? replacement.version : req.version;
    found.push({
      ecosystem: 'Go',
      name: module,
      version,
      lockfile: file,
      line: req.line,
      via: req.indirect ? [] : [module],
    });
  }
  return { file, ecosystem: 'Go', packages: found, unaudited };
}
