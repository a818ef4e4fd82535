import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding, findingTypeToken } from '../plumbing/define.js';

const NodeReleases = z.object({
  source: z.string(),
  retrieved: z.string(),
  releases: z.record(
    z.string(),
    z.object({ start: z.string(), end: z.string(), lts: z.string().optional(), maintenance: z.string().optional() }),
  ),
});
export type NodeReleases = z.infer<typeof NodeReleases>;

const EolPackages = z.object({
  as_of: z.string(),
  packages: z.array(
    z.object({
      name: z.string(),
      majors_below: z.int().optional(),
      status: z.enum(['deprecated', 'end-of-life', 'maintenance']),
      since: z.iso.date(),
      replacement: z.string(),
      evidence: z.string(),
    }),
  ),
});
export type EolPackages = z.infer<typeof EolPackages>;

/** The end-of-life tables shipped in libs/critics/data (see their `source`/`evidence` fields). */
export function loadEolData(): { node: NodeReleases; packages: EolPackages } {
  const read = (name: string): unknown =>
    JSON.parse(readFileSync(new URL(`../../data/${name}`, import.meta.url), 'utf8'));
  return {
    node: NodeReleases.parse(read('node-releases.json')),
    packages: EolPackages.parse(read('npm-eol-packages.json')),
  };
}

export interface EolInput {
  /** package.json text (null when absent). */
  readonly manifest: string | null;
  /** Other files that pin a Node version: .nvmrc, .node-version, Dockerfiles. */
  readonly versionFiles: readonly { readonly file: string; readonly text: string }[];
  readonly now: Date;
  readonly node: NodeReleases;
  readonly packages: EolPackages;
}

export interface EolHit {
  readonly file: string;
  readonly line: number;
  readonly kind: 'node' | 'package';
  readonly name: string;
  readonly status: 'end-of-life' | 'deprecated' | 'maintenance';
  readonly since: string;
  readonly declared: string;
  readonly replacement: string;
  readonly evidence: string;
}

/** The lowest major version a semver range allows (`^16.2` → 16, `>=18 <21` → 18), or null when unknown. */
export function minimumMajor(range: string): number | null {
  const trimmed = range.trim();
  if (
    trimmed === '' ||
    trimmed === '*' ||
    trimmed === 'x' ||
    trimmed === 'latest' ||
    /^(git|git\+\w+|https?|file|link|workspace|npm|github):/.test(trimmed) ||
    trimmed.includes('/')
  ) {
    return null;
  }
  const bounds = trimmed
    .split('||')
    .map((part) => /v?(\d+)/.exec(part.replace(/<=?\s*v?[\d.x*]+/g, ' '))?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  return bounds.length === 0 ? null : Math.min(...bounds);
}

function parseManifest(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    // An unparsable package.json declares nothing we can check; the compiler/linter reports its syntax.
    return {};
  }
}

function lineOf(text: string, pattern: RegExp): number {
  const index = text.search(pattern);
  return index < 0 ? 1 : text.slice(0, index).split('\n').length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Which declared dependencies and Node versions are past end of life (or deprecated) at `now`.
 * Pure: `now` and the tables are inputs.
 */
export function findEolDependencies(input: EolInput): EolHit[] {
  const hits: EolHit[] = [];
  const today = input.now.toISOString().slice(0, 10);
  const nodeHit = (file: string, line: number, major: number, declared: string): void => {
    const release = input.node.releases[`v${major}`];
    if (release === undefined || release.end > today) return;
    hits.push({
      file,
      line,
      kind: 'node',
      name: `node-${major}`,
      status: 'end-of-life',
      since: release.end,
      declared,
      replacement: `a supported Node.js line (${supportedLines(input.node, today).join(', ')})`,
      evidence: `Node.js Release schedule (${input.node.source}, retrieved ${input.node.retrieved}): v${major} end of life ${release.end}`,
    });
  };
  if (input.manifest !== null) {
    const manifest = parseManifest(input.manifest);
    const engines = manifest['engines'];
    const nodeRange =
      typeof engines === 'object' && engines !== null ? (engines as Record<string, unknown>)['node'] : undefined;
    if (typeof nodeRange === 'string') {
      const major = minimumMajor(nodeRange);
      if (major !== null)
        nodeHit('package.json', lineOf(input.manifest, /"node"\s*:/), major, `engines.node "${nodeRange}"`);
    }
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      const deps = manifest[field];
      if (typeof deps !== 'object' || deps === null) continue;
      for (const [name, rangeValue] of Object.entries(deps as Record<string, unknown>)) {
        const range = typeof rangeValue === 'string' ? rangeValue : '';
        const major = minimumMajor(range);
        for (const entry of input.packages.packages) {
          if (entry.name !== name || entry.since > today) continue;
          if (entry.majors_below !== undefined && (major === null || major >= entry.majors_below)) continue;
          hits.push({
            file: 'package.json',
            line: lineOf(input.manifest, new RegExp(`"${escapeRegExp(name)}"\\s*:`)),
            kind: 'package',
            name,
            status: entry.status,
            since: entry.since,
            declared: `${field}.${name} "${range}"`,
            replacement: entry.replacement,
            evidence: entry.evidence,
          });
        }
      }
    }
  }
  for (const { file, text } of input.versionFiles) {
    if (/(^|\/)\.(nvmrc|node-version)$/.test(file)) {
      const version = text.trim().split(/\s/)[0] ?? '';
      const major = /^v?(\d+)/.exec(version)?.[1];
      if (major !== undefined) nodeHit(file, 1, Number(major), `${file} "${version}"`);
    } else {
      const lines = text.split('\n');
      lines.forEach((lineText, index) => {
        const match = /^\s*FROM\s+(?:--platform=\S+\s+)?(?:[\w.-]+\/)?node:v?(\d+)/i.exec(lineText);
        if (match?.[1] !== undefined) nodeHit(file, index + 1, Number(match[1]), lineText.trim());
      });
    }
  }
  return hits;
}

function supportedLines(node: NodeReleases, today: string): string[] {
  return Object.entries(node.releases)
    .filter(([, r]) => r.start <= today && r.end > today && r.lts !== undefined)
    .map(([v]) => v)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

function eolDraft(hit: EolHit): FindingDraft {
  const maintenance = hit.status === 'maintenance';
  const what = hit.kind === 'node' ? `Node.js ${hit.name.slice(5)}` : hit.name;
  return draftFinding({
    severity: maintenance ? 'medium' : 'critical',
    score: maintenance ? 5 : 8,
    category: maintenance ? 'maintainability' : hit.kind === 'node' ? 'security' : 'correctness',
    finding_type: `eol/${findingTypeToken(hit.name)}`,
    tool_severity: hit.status,
    file: hit.file,
    line_range: { start: hit.line, end: hit.line },
    title: `${what} is ${hit.status === 'end-of-life' ? 'past end of life' : hit.status === 'deprecated' ? 'deprecated' : 'in maintenance-only mode'} (since ${hit.since})`,
    current_behaviour: `${hit.file} declares ${hit.declared}. ${what} is ${hit.status} since ${hit.since}: it gets no ${maintenance ? 'new features (only critical fixes)' : 'security fixes'}. Evidence: ${hit.evidence}.`,
    expected_behaviour: `The project depends on ${hit.replacement} instead.`,
    observable_test_conditions: [
      hit.kind === 'node'
        ? `${hit.file} no longer allows Node.js ${hit.name.slice(5)}, and the test suite passes on ${hit.replacement}`
        : `${hit.file} no longer lists ${hit.name}${hit.status === 'end-of-life' || hit.status === 'deprecated' ? ' at an affected version' : ''}`,
      'the behaviour the dependency provided is covered by tests that pass after the migration',
    ],
    forbidden_in_test: [
      'mocking the replacement so the migration is never exercised',
      'pinning the old version to keep tests green',
    ],
  });
}

export interface DependencyEolOptions {
  readonly timeoutMs?: number;
  /** The review's time, when the context does not carry one. */
  readonly now?: Date;
  /** Tables to use instead of the shipped ones (tests, or a fresher copy). */
  readonly data?: { readonly node: NodeReleases; readonly packages: EolPackages };
}

function isDockerfile(file: string): boolean {
  return /(^|\/)Dockerfile[^/]*$/.test(file);
}

/** What the EOL check reads: the root manifest and Node version files, and Dockerfiles anywhere. */
function isEolInput(file: string): boolean {
  return file === 'package.json' || file === '.nvmrc' || file === '.node-version' || isDockerfile(file);
}

/** `toolchain/dependency-eol`: Node.js lines and npm packages past end of life, from the shipped tables. */
export function dependencyEolCritic(options: DependencyEolOptions = {}): CriticDefinition {
  return defineCritic({
    id: 'toolchain/dependency-eol',
    evidence: 'toolchain',
    description:
      'Declared Node.js versions (engines, .nvmrc, Dockerfile) and npm dependencies past end of life or deprecated, from tables shipped in libs/critics/data.',
    triggers: ['**/package.json', '**/.nvmrc', '**/.node-version', '**/Dockerfile*'],
    timeoutMs: options.timeoutMs ?? 60_000,
    covers: isEolInput,
    run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const data = options.data ?? loadEolData();
      const read = (file: string): string | null => context.reader.read(file);
      const versionFiles = ['.nvmrc', '.node-version', ...context.files.filter(isDockerfile)]
        .map((file) => ({ file, text: read(file) }))
        .filter((f): f is { file: string; text: string } => f.text !== null);
      // The shell may read the clock when the caller gave no time; the rule itself never does.
      const now = context.now ?? options.now ?? new Date();
      return Promise.resolve(
        findEolDependencies({
          manifest: read('package.json'),
          versionFiles,
          now,
          node: data.node,
          packages: data.packages,
        }).map(eolDraft),
      );
    },
  });
}
