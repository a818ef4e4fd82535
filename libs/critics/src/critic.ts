import type { FindingInput, Phase } from '@rloop/contracts';
import type { CoverageRecorder } from './plumbing/coverage.js';
import type { RepoReader } from './repo/checkout.js';

/** What a critic is given for one run. */
export interface CriticContext {
  /** A read-only checkout of the commit under review. Critics never write here. */
  readonly repoDir: string;
  /** The commit under review (40 hex). */
  readonly commit: string;
  /** Files under review, relative to repoDir, forward slashes. */
  readonly files: readonly string[];
  /** The phase of the round (critics report every severity; the synthesizer keeps the phase's top-K). */
  readonly phase: Phase;
  /** Aborted when the critic's deadline passes; long work must check it. */
  readonly signal: AbortSignal;
  /** A directory the critic may use to cache analysis between runs (incremental review). */
  readonly cacheDir?: string;
  /**
   * The time of the review, for rules that depend on the date (end-of-life tables). Critics never
   * read the clock themselves when this is given.
   */
  readonly now?: Date;
  /**
   * Where a critic says something about how it ran that is not a finding (a fallback it took, a
   * class of diagnostics it could not check). runCritic collects these into the report's notes.
   */
  readonly note?: (message: string) => void;
  /**
   * Every file of the checkout (relative, forward slashes), listed from the checkout itself, for
   * critics that look beyond the files under review (cross-file flows, copies elsewhere).
   */
  readonly repoFiles: () => Promise<readonly string[]>;
  /**
   * Reads the checkout's files inside its boundary: never through a symbolic link that leaves it,
   * never past the size bound, never binary. What a critic reads and what is refused, and why, is
   * its coverage report — read through it, not from the disk.
   */
  readonly reader: RepoReader;
  /** What the critic says about a file beyond reading it: a tool of its own read it, it could not parse it, it left generated code out. */
  readonly coverage: CoverageRecorder;
}

/**
 * A finding as a critic produces it; identity fields are added by finalizeFindings. A critic may
 * pass its own `location_hash` (e.g. a SARIF primaryLocationLineHash); otherwise it is computed
 * from the flagged lines.
 */
export type FindingDraft = Omit<FindingInput, 'id' | 'fingerprint' | 'raised_by'>;

/** A critic: an id, the kind of evidence it brings, and a run function. */
export interface CriticDefinition {
  /** e.g. `security/sast-scanner`. */
  readonly id: string;
  /** The kind of evidence: toolchain, ast, dataflow, pattern, llm, sarif, … */
  readonly evidence: string;
  readonly description: string;
  /** File globs that put the critic on a panel; empty means it is dispatched when configured as core. */
  readonly triggers: readonly string[];
  readonly timeoutMs: number;
  /**
   * Why the critic cannot run here (e.g. "ANTHROPIC_API_KEY is not set"), or null when it can.
   * A critic that is not configured is left out of the panel and said so; it never passes silently.
   */
  notConfiguredReason?(): string | null;
  /**
   * The files under review this critic analyses (its languages and kinds). With it, each run
   * reports what it covered (see CriticCoverage), and a core critic that analysed none of the
   * files it supports fails (`no_files_analysed`); without it, no coverage is reported.
   */
  covers?(file: string): boolean;
  run(context: CriticContext): Promise<readonly FindingDraft[]>;
}
