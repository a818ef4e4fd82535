import { Finding, toIssues } from '@rloop/contracts';
import { fingerprintOf, locationHashOf } from '@rloop/domain';
import type { CriticDefinition, FindingDraft } from '../critic.js';
import { CriticOutputInvalidError } from '../errors.js';

/** Reads a repository file by its repo-relative path; null when it cannot be read (deleted, binary). */
export type FileReader = (file: string) => string | null;

/** Flagged lines beyond this many do not change a finding's identity (a 400-line clone is one place). */
const MAX_HASHED_LINES = 200;
const MAX_RELATED_LOCATIONS = 20;

function flaggedLines(lines: readonly string[] | null, start: number, end: number): string[] {
  if (lines === null) return [];
  return lines.slice(start - 1, Math.min(end, start - 1 + MAX_HASHED_LINES));
}

/**
 * Turns a critic's drafts into contract-valid findings: adds id, fingerprint (the spec's
 * sha256[:12]), the line-shift-proof location hash of the flagged lines, and raised_by. Drafts with
 * the same fingerprint are one finding (their related locations are merged). A draft that does
 * not satisfy the Finding contract is a bug in the critic and throws CriticOutputInvalidError —
 * nothing is dropped silently.
 */
export function finalizeFindings(
  critic: Pick<CriticDefinition, 'id'>,
  drafts: readonly FindingDraft[],
  readFile: FileReader,
): Finding[] {
  const texts = new Map<string, readonly string[] | null>();
  const linesOf = (file: string): readonly string[] | null => {
    if (!texts.has(file)) texts.set(file, readFile(file)?.split(/\r?\n/) ?? null);
    return texts.get(file) ?? null;
  };
  const byFingerprint = new Map<string, Finding>();
  drafts.forEach((draft, index) => {
    const fingerprint = fingerprintOf({
      critic_id: critic.id,
      file: draft.file,
      line_range: draft.line_range,
      finding_type: draft.finding_type,
    });
    const location_hash =
      draft.location_hash ??
      locationHashOf(
        draft.file,
        draft.finding_type,
        flaggedLines(linesOf(draft.file), draft.line_range.start, draft.line_range.end),
      );
    const parsed = Finding.safeParse({
      ...draft,
      id: `f_${fingerprint}`,
      fingerprint,
      location_hash,
      raised_by: critic.id,
    });
    if (!parsed.success) {
      const issues = toIssues(parsed.error).map((issue) => ({
        path: `[${index}].${issue.path}`,
        message: issue.message,
      }));
      throw new CriticOutputInvalidError(
        critic.id,
        `${draft.finding_type} at ${draft.file}:${draft.line_range.start}`,
        issues,
      );
    }
    const finding = parsed.data;
    const earlier = byFingerprint.get(fingerprint);
    if (earlier === undefined) {
      byFingerprint.set(fingerprint, finding);
      return;
    }
    const seen = new Set(earlier.related_locations.map((l) => `${l.file}:${l.line_range.start}-${l.line_range.end}`));
    const extra = finding.related_locations.filter(
      (l) => !seen.has(`${l.file}:${l.line_range.start}-${l.line_range.end}`),
    );
    byFingerprint.set(fingerprint, {
      ...earlier,
      related_locations: [...earlier.related_locations, ...extra].slice(0, MAX_RELATED_LOCATIONS),
      related_findings: [...new Set([...earlier.related_findings, ...finding.related_findings])],
    });
  });
  return [...byFingerprint.values()];
}
