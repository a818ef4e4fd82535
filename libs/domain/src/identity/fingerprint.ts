import { createHash } from 'node:crypto';
import type { Finding, LineRange } from '@rloop/contracts';

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface FingerprintInput {
  readonly critic_id: string;
  readonly file: string;
  readonly line_range: LineRange;
  readonly finding_type: string;
}

/**
 * The spec's fingerprint: sha256(critic_id + file + line_range + finding_type)[:12]. The parts are
 * joined with NUL so that ("a/b", "c") and ("a", "b/c") cannot collide.
 */
export function fingerprintOf(input: FingerprintInput): string {
  const range = `${input.line_range.start}-${input.line_range.end}`;
  return sha256Hex([input.critic_id, input.file, range, input.finding_type].join('\u0000')).slice(0, 12);
}

/**
 * A line-shift-proof identity for a finding (like GitHub's primaryLocationLineHash): a hash of the
 * flagged lines with whitespace collapsed, plus the finding type and file. Moving the code up or
 * down keeps the hash; editing the flagged lines changes it.
 */
export function locationHashOf(file: string, findingType: string, flaggedLines: readonly string[]): string {
  const normalised = flaggedLines.map((line) => line.replace(/\s+/g, ' ').trim()).join('\n');
  return sha256Hex([file, findingType, normalised].join('\u0000')).slice(0, 16);
}

/** Lines ± this many count as the same place for the fuzzy match. TODO(calibration): from journal data on line drift between rounds. */
export const FUZZY_LINE_WINDOW = 5;

type Comparable = Pick<Finding, 'fingerprint' | 'file' | 'finding_type' | 'line_range' | 'raised_by'> & {
  readonly location_hash?: string | undefined;
};

/**
 * Whether two findings (usually from different rounds) are the same issue: the same fingerprint;
 * or the same snippet hash; or the spec's fuzzy rule — same critic, file and finding type with the
 * start line within ±window.
 */
export function isSameIssue(a: Comparable, b: Comparable, window: number = FUZZY_LINE_WINDOW): boolean {
  if (a.fingerprint === b.fingerprint) return true;
  if (a.finding_type !== b.finding_type || a.file !== b.file) return false;
  if (a.location_hash !== undefined && a.location_hash === b.location_hash) return true;
  return a.raised_by === b.raised_by && Math.abs(a.line_range.start - b.line_range.start) <= window;
}
