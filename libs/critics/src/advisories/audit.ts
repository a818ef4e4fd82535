import { posix } from 'node:path';
import type { FindingDraft } from '../critic.js';
import { draftFinding, findingTypeToken } from '../plumbing/define.js';
import type { AdvisoryDatabase, AdvisoryRecord, ExportSummary } from './database.js';
import type { LockedPackage, LockfileReading } from './lockfiles.js';
import {
  type AdvisorySeverity,
  affectedEntryMatches,
  firstFixedVersion,
  isWithdrawn,
  lastAffectedVersion,
  severityOf,
} from './osv.js';
import { type Ecosystem, normalizeVersion } from './versions.js';

/** Manifests where a direct dependency is declared, per ecosystem (findings go on its line there). */
const MANIFESTS: Readonly<Record<Ecosystem, readonly string[]>> = {
  npm: ['package.json'],
  'crates.io': ['Cargo.toml'],
  PyPI: ['pyproject.toml', 'Pipfile', 'setup.cfg'],
  Go: [],
};

/** The manifests next to a lockfile that could name its direct dependencies. */
export function manifestsBeside(reading: Pick<LockfileReading, 'file' | 'ecosystem'>): string[] {
  const dir = posix.dirname(reading.file);
  return MANIFESTS[reading.ecosystem].map((name) => (dir === '.' ? name : `${dir}/${name}`));
}

const SCORE: Readonly<Record<AdvisorySeverity['label'], number>> = {
  malicious: 10,
  critical: 10,
  high: 9,
  moderate: 8,
  low: 7,
  unknown: 8,
};

export interface OsvAuditInput {
  readonly database: AdvisoryDatabase;
  readonly readings: readonly LockfileReading[];
  /** Text of the manifests beside the lockfiles (null when absent). */
  readonly manifestText: (file: string) => string | null;
  /** The review's time: withdrawals dated later have not happened yet. */
  readonly now: Date;
}

export interface OsvAuditResult {
  readonly drafts: FindingDraft[];
  /** Matches left out because the advisory was withdrawn by the review time. */
  readonly withdrawnMatches: number;
  /** Versions some range could not be compared with (an unreadable version string): said in the notes. */
  readonly undecidable: readonly string[];
}

interface Hit {
  readonly pkg: LockedPackage;
  readonly record: AdvisoryRecord;
  readonly severity: AdvisorySeverity;
  readonly fixed: string | null;
  readonly lastAffected: string | null;
  readonly informational: string | null;
}

/** Advisories that name each other (GHSA and its PYSEC twin, a CVE both alias) are one finding. */
function groupAliases(hits: readonly Hit[]): Hit[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root) ?? root;
    parent.set(x, root);
    return root;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(rb, ra);
  };
  for (const hit of hits) {
    parent.set(hit.record.id, find(hit.record.id));
    for (const alias of hit.record.aliases) union(hit.record.id, alias);
  }
  const groups = new Map<string, Hit[]>();
  for (const hit of hits) {
    const root = find(hit.record.id);
    groups.set(root, [...(groups.get(root) ?? []), hit]);
  }
  return [...groups.values()];
}

/** GitHub's id first (what npm audit reports), then the ecosystem's own, then the rest. */
function preferred(group: readonly Hit[]): Hit {
  const rank = (id: string): number => (id.startsWith('GHSA-') ? 0 : id.startsWith('CVE-') ? 2 : 1);
  return (
    [...group].sort((a, b) => rank(a.record.id) - rank(b.record.id) || a.record.id.localeCompare(b.record.id))[0] ??
    (group[0] as Hit)
  );
}

function scanFor(lines: readonly string[], name: string): number | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(^|["'\\s\\[.])${escaped}(["'\\s=\\]<>~!^]|$)`);
  const index = lines.findIndex((line) => pattern.test(line));
  return index < 0 ? null : index + 1;
}

/** Where manifests name packages, memoised for one audit (a lockfile can have thousands of findings). */
function manifestLines(read: (file: string) => string | null): (file: string, name: string) => number | null {
  const split = new Map<string, readonly string[] | null>();
  const found = new Map<string, number | null>();
  return (file, name) => {
    const key = `${file}\u0000${name}`;
    if (found.has(key)) return found.get(key) ?? null;
    if (!split.has(file)) split.set(file, read(file)?.split('\n') ?? null);
    const lines = split.get(file) ?? null;
    const line = lines === null ? null : scanFor(lines, name);
    found.set(key, line);
    return line;
  };
}

/**
 * Matches the lockfiles' resolved versions against an OSV export: one finding per (lockfile,
 * package, advisory — its aliases merged), on the manifest line of the direct dependency that
 * brings it in when the manifest names it, else on the lockfile entry. Every advisory is critical
 * (Decision 8) with its severity as the score; a malicious package is the worst; RustSec's
 * informational notices (unmaintained, unsound) are medium. Pure: the caller reads the files.
 */
export function osvAuditFindings(input: OsvAuditInput): OsvAuditResult {
  const hits: Hit[] = [];
  let withdrawnMatches = 0;
  const undecidable = new Set<string>();
  for (const reading of input.readings) {
    for (const pkg of reading.packages) {
      const version = normalizeVersion(pkg.ecosystem, pkg.version);
      for (const advisory of input.database.advisoriesFor(pkg.ecosystem, pkg.name)) {
        const entry = advisory.entries.find((e) => {
          const match = affectedEntryMatches(e, pkg.ecosystem, version);
          if (match.undecidable) undecidable.add(`${pkg.name}@${pkg.version} (${advisory.record.id})`);
          return match.affected;
        });
        if (entry === undefined) continue;
        if (isWithdrawn(advisory.record, input.now)) {
          withdrawnMatches += 1;
          continue;
        }
        const informational = entry.database_specific?.['informational'];
        hits.push({
          pkg,
          record: advisory.record,
          severity: severityOf(advisory.record, entry),
          fixed: firstFixedVersion(entry, pkg.ecosystem, version),
          lastAffected: lastAffectedVersion(entry),
          informational: typeof informational === 'string' ? informational : null,
        });
      }
    }
  }
  // One finding per lockfile, package and advisory group, listing every installed copy.
  const byPackage = new Map<string, Hit[]>();
  for (const hit of hits) {
    const k = `${hit.pkg.lockfile}\u0000${hit.pkg.ecosystem}\u0000${hit.pkg.name}`;
    byPackage.set(k, [...(byPackage.get(k) ?? []), hit]);
  }
  const drafts: FindingDraft[] = [];
  const mention = manifestLines(input.manifestText);
  for (const packageHits of [...byPackage.values()].sort((a, b) =>
    (a[0]?.pkg.name ?? '').localeCompare(b[0]?.pkg.name ?? ''),
  )) {
    for (const group of groupAliases(packageHits)) drafts.push(draftFor(group, mention));
  }
  return { drafts, withdrawnMatches, undecidable: [...undecidable].sort() };
}

function draftFor(group: readonly Hit[], mention: (file: string, name: string) => number | null): FindingDraft {
  const main = preferred(group);
  const { pkg, record, severity } = main;
  const ids = [...new Set(group.flatMap((h) => [h.record.id, ...h.record.aliases]))]
    .filter((id) => id !== record.id)
    .sort();
  const versions = [...new Set(group.map((h) => h.pkg.version))].sort();
  const roots = [...new Set(group.flatMap((h) => h.pkg.via))].sort();
  const fixes = [...new Set(group.flatMap((h) => (h.fixed === null ? [] : [h.fixed])))];
  const lastAffected = group.find((h) => h.lastAffected !== null)?.lastAffected ?? null;
  const malicious = severity.label === 'malicious';
  const informational = group.find((h) => h.informational !== null)?.informational ?? null;

  let file = pkg.lockfile;
  let line = pkg.line;
  for (const manifest of manifestsBeside({ file: pkg.lockfile, ecosystem: pkg.ecosystem })) {
    const named = roots.find((root) => mention(manifest, root) !== null) ?? (roots.length === 0 ? pkg.name : undefined);
    const at = named === undefined ? null : mention(manifest, named);
    if (at !== null) {
      file = manifest;
      line = at;
      break;
    }
  }
  const others = roots.filter((root) => root !== pkg.name);
  const chain =
    others.length === 0
      ? ''
      : ` (${roots.includes(pkg.name) ? 'a direct dependency, and ' : ''}pulled in by ${others.join(', ')})`;
  const label = severity.label === 'unknown' ? 'severity not given' : severity.label;
  const cvss = severity.cvss === null ? '' : `, CVSS ${severity.cvss.toFixed(1)}`;
  const aliasText = ids.length === 0 ? '' : `; ${ids.slice(0, 6).join(', ')}`;
  const summary = record.summary ?? (malicious ? 'malicious code in the published package' : 'a known vulnerability');
  const fix = malicious
    ? `Remove ${pkg.name} (the versions this record lists were published with malicious code) and rotate any credentials the machines that installed it held.`
    : fixes.length > 0
      ? `Upgrade ${pkg.name} to ${fixes.sort().join(' or ')} or later (the first fixed version above the installed one${fixes.length > 1 ? 's' : ''}).`
      : `No fixed version is published${lastAffected === null ? '' : ` (last affected: ${lastAffected})`}: replace the package or mitigate and track the advisory.`;
  return draftFinding({
    severity: informational === null ? 'critical' : 'medium',
    score: informational === null ? SCORE[severity.label] : 5,
    category: informational === 'unmaintained' ? 'maintainability' : 'security',
    finding_type: `${malicious ? 'malicious-package' : 'cve'}/${findingTypeToken(record.id)}`,
    file,
    line_range: { start: line, end: line },
    // The advisory's own word: its severity label, or what a RustSec notice is about (unmaintained, unsound).
    ...(informational === null && severity.label === 'unknown'
      ? {}
      : { tool_severity: informational ?? severity.label }),
    title: `${pkg.name} ${versions.join(', ')}: ${summary} (${record.id}${ids.find((id) => id.startsWith('CVE-')) === undefined ? '' : `, ${ids.find((id) => id.startsWith('CVE-'))}`}, ${label})`,
    current_behaviour: `${pkg.lockfile} resolves ${pkg.name} to ${versions.join(', ')}${chain}, which ${record.id} (${label}${cvss}${aliasText}) lists as affected: ${summary}.${informational === null ? '' : ` (RustSec notice: ${informational}.)`}${record.url === null ? '' : ` ${record.url}`}`,
    expected_behaviour: `No version in ${pkg.lockfile} is affected by ${record.id}. ${fix}`,
    observable_test_conditions: [
      `${pkg.lockfile} resolves ${pkg.name} to a version outside the affected ranges of ${record.id}`,
      'the test suite passes on the upgraded dependency tree',
    ],
    forbidden_in_test: [
      'ignoring the advisory in audit configuration',
      'pinning the vulnerable version with overrides to silence the audit',
    ],
    fixable: !malicious && fixes.length > 0,
  });
}

/** "N days" between the export's newest record and the review. */
export function exportAge(summary: ExportSummary, now: Date): string {
  if (summary.newestModified === null) return 'its records carry no modification time';
  const days = Math.floor((now.getTime() - Date.parse(summary.newestModified)) / 86_400_000);
  const when = summary.newestModified.slice(0, 10);
  return days <= 0
    ? `newest record modified ${when} (less than a day before this review)`
    : `newest record modified ${when}, ${days} day(s) before this review`;
}
