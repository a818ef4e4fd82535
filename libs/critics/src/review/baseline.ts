import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type Finding, Fingerprint, FindingType, RepoPath, type Suppression } from '@rloop/contracts';
import { BaselineError } from '../errors.js';
import { suppressionOf } from './suppressions.js';

const BaselineEntry = z.object({
  fingerprint: Fingerprint,
  /** The line-shift-proof identity (a hash of the file, rule and flagged lines); matched first. */
  location_hash: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  finding_type: FindingType,
  file: RepoPath,
  line: z.int().min(1),
  title: z.string(),
});
type BaselineEntry = z.infer<typeof BaselineEntry>;

/** A baseline file: the findings a repository has accepted for now; a review with it reports only new ones. */
const BaselineFile = z.object({
  rloop_baseline: z.literal(1),
  created_at: z.string(),
  findings: z.array(BaselineEntry),
});

/** The baseline file's text for these findings (stable order, one entry per finding). */
export function baselineText(findings: readonly Finding[], now: Date): string {
  const entries: BaselineEntry[] = [...findings]
    .sort(
      (a, b) =>
        a.file.localeCompare(b.file) ||
        a.line_range.start - b.line_range.start ||
        a.finding_type.localeCompare(b.finding_type),
    )
    .map((f) => ({
      fingerprint: f.fingerprint,
      ...(f.location_hash === undefined ? {} : { location_hash: f.location_hash }),
      finding_type: f.finding_type,
      file: f.file,
      line: f.line_range.start,
      title: f.title,
    }));
  return `${JSON.stringify({ rloop_baseline: 1, created_at: now.toISOString(), findings: entries }, null, 2)}\n`;
}

/** Reads a baseline file; a missing, unreadable or foreign file is a BaselineError. */
export function readBaseline(path: string): readonly BaselineEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BaselineError(`cannot read the baseline ${path}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BaselineError(`${path} is not JSON, so not a baseline written by rloop review --write-baseline`, {
      cause: error,
    });
  }
  const parsed = BaselineFile.safeParse(json);
  if (!parsed.success)
    throw new BaselineError(
      `${path} is not a baseline written by rloop review --write-baseline (${parsed.error.issues[0]?.message ?? 'invalid'})`,
    );
  return parsed.data.findings;
}

/**
 * Dismisses the findings the baseline already holds (pure). A finding matches by its
 * line-shift-proof location hash (so moving code up or down keeps it matched), else by
 * fingerprint; each baseline entry matches one finding, so a second copy of an accepted problem
 * is new.
 */
export function applyBaseline(
  findings: readonly Finding[],
  entries: readonly BaselineEntry[],
  source: string,
): { readonly kept: Finding[]; readonly suppressed: Suppression[] } {
  const used = new Set<number>();
  const byHash = new Map<string, number[]>();
  const byFingerprint = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    if (entry.location_hash !== undefined)
      byHash.set(entry.location_hash, [...(byHash.get(entry.location_hash) ?? []), index]);
    byFingerprint.set(entry.fingerprint, [...(byFingerprint.get(entry.fingerprint) ?? []), index]);
  });
  const take = (candidates: readonly number[] | undefined): boolean => {
    const index = (candidates ?? []).find((i) => !used.has(i));
    if (index === undefined) return false;
    used.add(index);
    return true;
  };
  const kept: Finding[] = [];
  const suppressed: Suppression[] = [];
  for (const finding of findings) {
    const matched =
      (finding.location_hash !== undefined && take(byHash.get(finding.location_hash))) ||
      take(byFingerprint.get(finding.fingerprint));
    if (!matched) {
      kept.push(finding);
      continue;
    }
    suppressed.push(suppressionOf(finding, { kind: 'baseline', reason: 'accepted in the baseline', source }));
  }
  return { kept, suppressed };
}
