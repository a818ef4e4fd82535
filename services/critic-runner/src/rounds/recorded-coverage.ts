import type { JournaledEvent, RecordedCoverage } from '@rloop/contracts';
import type { CoverageSource } from '@rloop/critics';

/** How many commits' coverage the runner keeps at once (rounds running side by side, each on one commit). */
const KEPT = 64;

/**
 * The coverage the implementer recorded with the plan's test run of a commit (BaselineRecorded for
 * the gated commit, FixApplied for a committed fix), the latest when there are several. Pure.
 */
export function recordedCoverageFor(events: readonly JournaledEvent[], commit: string): RecordedCoverage | null {
  let found: RecordedCoverage | null = null;
  for (const event of events) {
    if (event.type === 'BaselineRecorded' && event.data.commit === commit && event.data.coverage !== undefined)
      found = event.data.coverage;
    if (event.type === 'FixApplied' && event.data.commit === commit && event.data.coverage !== undefined)
      found = event.data.coverage;
  }
  return found;
}

/**
 * What the test runs recorded, by commit, for the quality/test-coverage critic this runner hosts:
 * the rounds controller fills it from the journal before it runs a round's critics, and the critic
 * reads it for its commit. Bounded: the oldest commits are forgotten first.
 */
export class RecordedCoverageStore {
  private readonly byCommit = new Map<string, RecordedCoverage | null>();

  set(commit: string, coverage: RecordedCoverage | null): void {
    this.byCommit.delete(commit);
    this.byCommit.set(commit, coverage);
    while (this.byCommit.size > KEPT) {
      const oldest = this.byCommit.keys().next().value;
      if (oldest === undefined) break;
      this.byCommit.delete(oldest);
    }
  }

  /** The critic's source: the coverage stored for the commit it reviews. */
  source(): CoverageSource {
    return { kind: 'recorded', coverage: (context) => Promise.resolve(this.byCommit.get(context.commit) ?? null) };
  }
}
