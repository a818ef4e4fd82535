import {
  type CoverageSkipReason,
  type CriticCoverage,
  type LetterCritic,
  MAX_LISTED_SKIPS,
  type SkippedFile,
} from '@rloop/contracts';

/**
 * Skip reasons that leave part of the plan unreviewed, in the order they are listed. A file of
 * the plan skipped for one of these keeps the round from counting as clean — `too_large` only
 * while the bound is the default one (an operator who set the bound accepted it).
 */
const GAP_ORDER: readonly CoverageSkipReason[] = ['not_read', 'unreadable', 'parse_error', 'binary', 'too_large'];
/** Skips that say something about the file, not about the review (generated code, a link out, a deleted file). */
const NOTED_ORDER: readonly CoverageSkipReason[] = ['generated', 'outside_checkout', 'missing'];

/** Short labels; each skip's detail says the rest. */
const REASON_TEXT: Readonly<Record<CoverageSkipReason, string>> = {
  not_read: 'not read',
  unreadable: 'unreadable',
  parse_error: 'parse error',
  binary: 'binary',
  too_large: 'too large',
  generated: 'generated',
  outside_checkout: 'outside the checkout',
  missing: 'missing',
};

function rank(reason: CoverageSkipReason): number {
  const gap = GAP_ORDER.indexOf(reason);
  return gap >= 0 ? gap : GAP_ORDER.length + NOTED_ORDER.indexOf(reason);
}

/** Skipped files in report order: gaps first (so a capped list never hides one), then by path. */
export function orderSkips(skips: readonly SkippedFile[]): SkippedFile[] {
  return [...skips].sort((a, b) => rank(a.reason) - rank(b.reason) || a.file.localeCompare(b.file));
}

/** Whether a skip leaves part of the files under review unreviewed. */
export function isCoverageGap(
  skip: Pick<SkippedFile, 'reason'>,
  coverage: Pick<CriticCoverage, 'max_file_bytes_configured'>,
): boolean {
  if (skip.reason === 'too_large') return !coverage.max_file_bytes_configured;
  return GAP_ORDER.includes(skip.reason);
}

/** The files under review a critic supports but did not analyse, for reasons that make a round incomplete. */
export function coverageGaps(coverage: CriticCoverage): SkippedFile[] {
  return coverage.skipped.filter((skip) => isCoverageGap(skip, coverage));
}

/** A file under review a critic did not analyse, for a reason that leaves it unreviewed. */
export interface CoverageGap {
  readonly critic_id: string;
  readonly skip: SkippedFile;
  /** For people: `src/big.js (too large: …) by security/sast-scanner`. */
  readonly text: string;
}

/**
 * The gaps of a round: files under review that a critic which reported supports but did not
 * analyse (a critic that did not report is incomplete already, and says why on its own). Files a
 * repository excluded were never under review, so they are never among them.
 */
export function roundCoverageGaps(
  critics: readonly Pick<LetterCritic, 'critic_id' | 'outcome' | 'coverage'>[],
): CoverageGap[] {
  return critics.flatMap((c) =>
    c.outcome === 'reported' && c.coverage !== undefined
      ? coverageGaps(c.coverage).map((skip) => ({
          critic_id: c.critic_id,
          skip,
          text: `${describeSkip(skip)} by ${c.critic_id}`,
        }))
      : [],
  );
}

/** One skipped file for people: `src/big.js (too large: 1 400 000 bytes, over the 1 000 000-byte bound)`. */
export function describeSkip(skip: SkippedFile): string {
  return `${skip.file} (${REASON_TEXT[skip.reason]}${skip.detail === undefined ? '' : `: ${skip.detail}`})`;
}

/** A coverage report in one line: `4 of 6 files analysed, 1 unsupported, 1 skipped: src/big.js (too large: …)`. */
export function describeCoverage(coverage: CriticCoverage, maxListed = 5): string {
  const parts = [`${coverage.analysed} of ${coverage.considered} file${coverage.considered === 1 ? '' : 's'} analysed`];
  if (coverage.unsupported > 0) parts.push(`${coverage.unsupported} not of a kind it reviews`);
  if (coverage.skipped_total > 0) {
    const listed = coverage.skipped.slice(0, Math.min(maxListed, MAX_LISTED_SKIPS)).map(describeSkip);
    const more = coverage.skipped_total - listed.length;
    parts.push(`${coverage.skipped_total} skipped: ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`);
  }
  return parts.join(', ');
}
