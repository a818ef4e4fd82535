import { type EventPublisher, RetryLaterError } from '@rloop/bus';
import type { ScopeHolder } from '@rloop/contracts';
import { type DecisionMeta, type Gating, type ScopeLockMode, decideScopeLock, scopeLockEvents } from '@rloop/domain';
import type { JournalClient } from '@rloop/journal-client';

/** How soon a run that cannot be decided yet (a run admitted before it is not journaled or gated yet) is looked at again. */
export const UNDECIDED_RETRY_MS = 200;

export interface ScopePorts {
  readonly journal: JournalClient;
  readonly publisher: EventPublisher;
}

/** The run being decided, as the journal has it. */
export interface ScopeRun {
  readonly meta: DecisionMeta;
  /** The version of the run's stream the decision is made on. */
  readonly version: number;
  readonly submission_id: string | null;
  /** The holders it is queued for now (null: not queued). */
  readonly queued_for: readonly Pick<ScopeHolder, 'run_id'>[] | null;
}

/**
 * The gate's shell around decideScopeLock: reads the journal's open runs, decides, publishes
 * LoopGated, LoopQueued or PlanRejected — or parks the message (RetryLaterError) until the runs
 * admitted before this one are journaled and gated.
 */
export async function decideRunScope(
  ports: ScopePorts,
  run: ScopeRun,
  gating: Gating,
  mode: ScopeLockMode,
): Promise<void> {
  const openRuns = await ports.journal.openRuns();
  const decision = decideScopeLock(
    {
      run_id: run.meta.run_id,
      repo_path: gating.repo_path,
      repo_url: gating.repo_url,
      files: gating.files,
      queued: run.queued_for !== null,
    },
    openRuns,
    mode,
  );
  const outcome = scopeLockEvents(decision, run, gating);
  if ('retry' in outcome) throw new RetryLaterError(UNDECIDED_RETRY_MS, `${run.meta.plan}: ${outcome.retry}`);
  for (const event of outcome.publish) await ports.publisher.publish(event);
}
