import { z } from 'zod';
import { cvssV3BaseScore } from './cvss.js';
import { type Ecosystem, type VersionOrder, compareSemVer, ecosystemOrder } from './versions.js';

// The OSV schema (https://ossf.github.io/osv-schema/), read loosely: unknown fields are kept out of
// the way, and a record we cannot read is counted, never a crash of the whole export.

const Event = z.looseObject({
  introduced: z.string().optional(),
  fixed: z.string().optional(),
  last_affected: z.string().optional(),
  limit: z.string().optional(),
});
export type OsvEvent = z.infer<typeof Event>;

const Range = z.looseObject({
  type: z.string(),
  events: z.array(Event).default([]),
});
export type OsvRange = z.infer<typeof Range>;

const Severity = z.looseObject({ type: z.string(), score: z.string() });

const Affected = z.looseObject({
  package: z.looseObject({ ecosystem: z.string(), name: z.string() }).optional(),
  ranges: z.array(Range).default([]),
  versions: z.array(z.string()).default([]),
  severity: z.array(Severity).default([]),
  ecosystem_specific: z.record(z.string(), z.unknown()).optional(),
  database_specific: z.record(z.string(), z.unknown()).optional(),
});
export type OsvAffected = z.infer<typeof Affected>;

/** One OSV record. */
export const OsvRecord = z.looseObject({
  id: z.string().min(1),
  modified: z.string(),
  published: z.string().optional(),
  withdrawn: z.string().optional(),
  aliases: z.array(z.string()).default([]),
  summary: z.string().optional(),
  details: z.string().optional(),
  severity: z.array(Severity).default([]),
  affected: z.array(Affected).default([]),
  references: z.array(z.looseObject({ type: z.string().optional(), url: z.string() })).default([]),
  database_specific: z.record(z.string(), z.unknown()).optional(),
});
export type OsvRecord = z.infer<typeof OsvRecord>;

/** An OSV ecosystem name without its release suffix (`Debian:12` → `Debian`). */
export function baseEcosystem(ecosystem: string): string {
  const colon = ecosystem.indexOf(':');
  return colon < 0 ? ecosystem : ecosystem.slice(0, colon);
}

/** Whether the record is withdrawn at `now` (a withdrawal dated later has not happened yet). */
export function isWithdrawn(record: Pick<OsvRecord, 'withdrawn'>, now: Date): boolean {
  if (record.withdrawn === undefined) return false;
  const at = Date.parse(record.withdrawn);
  return Number.isNaN(at) || at <= now.getTime();
}

/** The order a range's events are written in, or null for ranges we cannot evaluate (GIT). */
function orderOf(range: OsvRange, ecosystem: Ecosystem): VersionOrder | null {
  if (range.type === 'SEMVER') return compareSemVer;
  if (range.type === 'ECOSYSTEM') return ecosystemOrder(ecosystem);
  return null;
}

/** `introduced: "0"` sorts before every version; a `limit` of `*` is infinity. */
function compareTo(order: VersionOrder, version: string, bound: string): number | null {
  if (bound === '0') return 1;
  if (bound.includes('*')) return -1;
  return order(version, bound);
}

/** What a range says about one version. */
export interface RangeMatch {
  readonly affected: boolean;
  /** Some event could not be compared with the version (an unreadable version string). */
  readonly undecidable: boolean;
}

/**
 * The schema's evaluation of one range: inside the limits, walk the events in version order —
 * `introduced` at or below the version makes it vulnerable, a `fixed` at or below it or a
 * `last_affected` below it makes it safe again.
 */
export function rangeAffects(range: OsvRange, ecosystem: Ecosystem, version: string): RangeMatch {
  const order = orderOf(range, ecosystem);
  if (order === null) return { affected: false, undecidable: false };
  // A version the order cannot read is compared with nothing (not even `introduced: "0"`).
  if (order(version, version) === null) return { affected: false, undecidable: range.events.length > 0 };
  let undecidable = false;
  const limits = range.events.flatMap((e) => (e.limit === undefined ? [] : [e.limit]));
  if (limits.length > 0) {
    const below = limits.some((limit) => {
      const c = compareTo(order, version, limit);
      if (c === null) undecidable = true;
      return c !== null && c < 0;
    });
    if (!below) return { affected: false, undecidable };
  }
  const points = range.events.flatMap((event): { kind: 'introduced' | 'fixed' | 'last_affected'; at: string }[] => {
    if (event.introduced !== undefined) return [{ kind: 'introduced', at: event.introduced }];
    if (event.fixed !== undefined) return [{ kind: 'fixed', at: event.fixed }];
    if (event.last_affected !== undefined) return [{ kind: 'last_affected', at: event.last_affected }];
    return [];
  });
  const sortKey = (a: string, b: string): number => {
    if (a === b) return 0;
    if (a === '0') return -1;
    if (b === '0') return 1;
    return order(a, b) ?? 0;
  };
  points.sort((a, b) => sortKey(a.at, b.at));
  let affected = false;
  for (const point of points) {
    const c = compareTo(order, version, point.at);
    if (c === null) {
      undecidable = true;
      continue;
    }
    if (point.kind === 'introduced' && c >= 0) affected = true;
    else if (point.kind === 'fixed' && c >= 0) affected = false;
    else if (point.kind === 'last_affected' && c > 0) affected = false;
  }
  return { affected, undecidable };
}

/** Whether an `affected` entry covers this version: listed explicitly, or inside one of its ranges. */
export function affectedEntryMatches(entry: OsvAffected, ecosystem: Ecosystem, version: string): RangeMatch {
  if (entry.versions.includes(version)) return { affected: true, undecidable: false };
  let undecidable = false;
  for (const range of entry.ranges) {
    const match = rangeAffects(range, ecosystem, version);
    undecidable ||= match.undecidable;
    if (match.affected) return { affected: true, undecidable };
  }
  return { affected: false, undecidable };
}

/**
 * The lowest `fixed` version above the installed one in the entry's ranges, or null when no fix
 * is published (`last_affected` only, or no upper bound at all).
 */
export function firstFixedVersion(entry: OsvAffected, ecosystem: Ecosystem, version: string): string | null {
  let best: string | null = null;
  for (const range of entry.ranges) {
    const order = orderOf(range, ecosystem);
    if (order === null) continue;
    for (const event of range.events) {
      if (event.fixed === undefined) continue;
      const above = order(event.fixed, version);
      if (above === null || above <= 0) continue;
      if (best === null || (order(event.fixed, best) ?? 0) < 0) best = event.fixed;
    }
  }
  return best;
}

/** The highest `last_affected` of the entry, for advisories without a fix. */
export function lastAffectedVersion(entry: OsvAffected): string | null {
  const last = entry.ranges.flatMap((r) =>
    r.events.flatMap((e) => (e.last_affected === undefined ? [] : [e.last_affected])),
  );
  return last.at(-1) ?? null;
}

/** Severity labels from worst to least, as GitHub's advisories and npm audit name them. */
export const SEVERITY_LABELS = ['critical', 'high', 'moderate', 'low'] as const;
export type SeverityLabel = (typeof SEVERITY_LABELS)[number] | 'malicious' | 'unknown';

export interface AdvisorySeverity {
  readonly label: SeverityLabel;
  /** The CVSS base score when a CVSS v3 vector was given. */
  readonly cvss: number | null;
  /** The vector it came from (any CVSS version), for the finding's text. */
  readonly vector: string | null;
}

function labelOfScore(score: number): SeverityLabel {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'moderate';
  return 'low';
}

/**
 * How bad an advisory is: a malicious-package record (`MAL-…`) is the worst there is; otherwise
 * the database's own label (GitHub's `database_specific.severity`), else the CVSS v3 base score of
 * the record's (or the affected entry's) vector, else unknown.
 */
export function severityOf(
  record: Pick<OsvRecord, 'id' | 'severity' | 'database_specific'>,
  entry: OsvAffected | null,
): AdvisorySeverity {
  const vectors = [...(entry?.severity ?? []), ...record.severity];
  const v3 = vectors.find((s) => s.type === 'CVSS_V3');
  const cvss = v3 === undefined ? null : cvssV3BaseScore(v3.score);
  const vector = v3?.score ?? vectors[0]?.score ?? null;
  if (record.id.startsWith('MAL-')) return { label: 'malicious', cvss, vector };
  const raw = [
    record.database_specific?.['severity'],
    entry?.database_specific?.['severity'],
    entry?.ecosystem_specific?.['severity'],
  ].find((s): s is string => typeof s === 'string');
  const named = raw?.toLowerCase() === 'medium' ? 'moderate' : raw?.toLowerCase();
  const label = SEVERITY_LABELS.find((l) => l === named);
  if (label !== undefined) return { label, cvss, vector };
  if (cvss !== null) return { label: labelOfScore(cvss), cvss, vector };
  return { label: 'unknown', cvss, vector };
}
