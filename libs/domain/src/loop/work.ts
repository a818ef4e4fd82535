import type { DataOf, Letter } from '@rloop/contracts';
import type { LoopState, RoundRecord } from './state.js';

/**
 * What workers do, read from a run's committed state — never from the message that asked for the
 * work: the repository, the commit, the files, the test command and the implementer come from
 * the run's journaled PlanSubmitted and LoopGated (and the baseline the implementer recorded), so
 * a message that names another repository or a plan the journal does not hold makes nobody run
 * anything.
 */

/** `{ repoUrl }` when the run's plan gave its repository by URL, `{}` otherwise. */
function repoUrlOf(state: LoopState): { repoUrl?: string } {
  return state.gated?.repo_url === undefined ? {} : { repoUrl: state.gated.repo_url };
}

/** The baseline the implementer records before round 1, when the run waits for it. */
export interface BaselineWork {
  readonly slug: string;
  readonly runId: string;
  readonly repoPath: string;
  /** The repository's URL (a plan given by URL): the implementer works from its own copy of it. */
  readonly repoUrl?: string;
  readonly commit: string;
  readonly testCmd: string;
  /** The LoopGated the baseline follows. */
  readonly gatedEventId: string;
}

export function baselineWork(state: LoopState): BaselineWork | null {
  if (
    state.status !== 'awaiting_baseline' ||
    state.run_id === null ||
    state.spec === null ||
    state.gated === null ||
    state.verdict !== 'run'
  )
    return null;
  return {
    slug: state.plan,
    runId: state.run_id,
    repoPath: state.gated.repo_path,
    ...repoUrlOf(state),
    commit: state.gated.commit,
    testCmd: state.spec.test_cmd,
    gatedEventId: state.gated.event_id,
  };
}

/** The round the critics review, when `startedEventId` is the run's round in progress (its letter not written yet). */
export interface RoundWork {
  readonly runId: string;
  readonly round: RoundRecord;
  readonly repoPath: string;
  /** The repository's URL (a plan given by URL): critics read the pinned commit from their own copy of it. */
  readonly repoUrl?: string;
  readonly baseCommit: string;
  readonly files: readonly string[];
}

export function roundWork(state: LoopState, startedEventId: string): RoundWork | null {
  const current = state.current;
  if (
    state.status !== 'reviewing' ||
    state.run_id === null ||
    state.gated === null ||
    current === null ||
    current.started_event_id !== startedEventId ||
    current.letter !== null
  )
    return null;
  return {
    runId: state.run_id,
    round: current,
    repoPath: state.gated.repo_path,
    ...repoUrlOf(state),
    baseCommit: state.gated.commit,
    files: state.gated.files,
  };
}

/** The fix request of a round, built from the run's state and its letter (the panel's FixRequested carries the same). */
export function fixRequestData(state: LoopState, current: RoundRecord, letter: Letter): DataOf<'FixRequested'> | null {
  if (state.spec === null || state.gated === null || state.baseline === null) return null;
  return {
    round: current.round,
    attempt: current.phase_round,
    letter,
    base_commit: current.commit,
    branch: state.baseline.branch,
    repo_path: state.gated.repo_path,
    ...(state.gated.repo_url === undefined ? {} : { repo_url: state.gated.repo_url }),
    test_cmd: state.spec.test_cmd,
    implementer: state.spec.implementer,
    baseline_failing: [...state.baseline.failing],
  };
}

/** The fix the implementer makes, when the run waits for one on `letter` (the current round's, from the journal). */
export function fixWork(state: LoopState, letter: Letter): DataOf<'FixRequested'> | null {
  const current = state.current;
  if (
    state.status !== 'fixing' ||
    current === null ||
    !current.fix_requested ||
    current.fix !== null ||
    current.letter?.letter_id !== letter.letter_id
  )
    return null;
  return fixRequestData(state, current, letter);
}
