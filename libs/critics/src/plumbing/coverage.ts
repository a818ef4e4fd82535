import { type CoverageSkipReason, type CriticCoverage, MAX_LISTED_SKIPS, type SkippedFile } from '@rloop/contracts';
import { describeCoverage, orderSkips } from '@rloop/domain';
import type { RepoReader } from '../repo/checkout.js';

/** What a critic says about a file beyond reading it through the context's reader. */
export interface CoverageRecorder {
  /** The critic analysed this file by its own means (a tool that read it, a result kept for its content). */
  analysed(file: string): void;
  /** The critic could not analyse this file (a parse error, generated code it leaves out), with a short detail. */
  skipped(file: string, reason: CoverageSkipReason, detail?: string): void;
  /** The file turned out not to be of a kind it reviews (binary content, for a critic of text files). */
  unsupported(file: string): void;
}

type Mark =
  | { readonly kind: 'analysed' }
  | { readonly kind: 'unsupported' }
  | { readonly kind: 'skipped'; readonly reason: CoverageSkipReason; readonly detail?: string };

/** Collects a run's explicit coverage marks; the reader's own record fills in the rest (see coverageOf). */
export class CoverageMarks implements CoverageRecorder {
  readonly marks = new Map<string, Mark>();

  analysed(file: string): void {
    this.marks.set(file, { kind: 'analysed' });
  }

  skipped(file: string, reason: CoverageSkipReason, detail?: string): void {
    this.marks.set(file, {
      kind: 'skipped',
      reason,
      ...(detail === undefined ? {} : { detail: detail.slice(0, 300) }),
    });
  }

  unsupported(file: string): void {
    this.marks.set(file, { kind: 'unsupported' });
  }
}

export interface CoverageInput {
  /** The files under review. */
  readonly files: readonly string[];
  /** The files the critic reviews (its languages and kinds); the others are counted as unsupported. */
  readonly covers: (file: string) => boolean;
  readonly reader: RepoReader;
  readonly marks: CoverageMarks;
  /** Whether the operator chose the reader's size bound. */
  readonly boundConfigured: boolean;
}

/**
 * What a critic covered of the files under review, from what it did rather than what it claims:
 * a file it supports counts as analysed only when it read it (or hashed it) through the context's
 * reader, or said it analysed it by other means; a file it supports and never looked at is
 * `not_read`. What the reader refused is skipped with the reader's reason.
 */
export function coverageOf(input: CoverageInput): CriticCoverage {
  let analysed = 0;
  let unsupported = 0;
  const skipped: SkippedFile[] = [];
  for (const file of new Set(input.files)) {
    const mark = input.marks.marks.get(file);
    if (mark !== undefined) {
      if (mark.kind === 'analysed') analysed += 1;
      else if (mark.kind === 'unsupported') unsupported += 1;
      else skipped.push({ file, reason: mark.reason, ...(mark.detail === undefined ? {} : { detail: mark.detail }) });
      continue;
    }
    if (!input.covers(file)) {
      unsupported += 1;
      continue;
    }
    const outcome = input.reader.outcome(file);
    if (outcome === undefined)
      skipped.push({ file, reason: 'not_read', detail: 'the critic supports this file but did not read it' });
    else if (outcome.ok) analysed += 1;
    else skipped.push({ file, reason: outcome.reason, detail: outcome.detail });
  }
  return {
    considered: analysed + unsupported + skipped.length,
    analysed,
    unsupported,
    skipped: orderSkips(skipped).slice(0, MAX_LISTED_SKIPS),
    skipped_total: skipped.length,
    max_file_bytes: input.reader.boundary.maxFileBytes,
    max_file_bytes_configured: input.boundConfigured,
  };
}

/** Files under review of a kind the critic reviews. */
export function supportedCount(coverage: CriticCoverage): number {
  return coverage.considered - coverage.unsupported;
}

/** Why a core critic's run cannot stand as a report: it analysed none of the files it supports. */
export function nothingAnalysedMessage(coverage: CriticCoverage): string {
  return `analysed none of the ${supportedCount(coverage)} file(s) under review it supports: ${describeCoverage(coverage)}`;
}
