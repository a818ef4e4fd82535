import type { Phase, RloopEvent } from '@rloop/contracts';

export const OUTCOMES = ['converged', 'escalated', 'bypassed', 'rejected', 'stopped'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What `rloop submit --watch` shows about one run. */
export interface Progress {
  readonly plan: string;
  readonly round: number;
  readonly phase: Phase | null;
  readonly findingsOpen: number | null;
  readonly lastEvent: string | null;
  readonly outcome: Outcome | null;
  readonly detail: string | null;
}

export function initialProgress(plan: string): Progress {
  return { plan, round: 0, phase: null, findingsOpen: null, lastEvent: null, outcome: null, detail: null };
}

/** Folds one event of the run into the progress view. */
export function reduceProgress(progress: Progress, event: RloopEvent): Progress {
  const next = { ...progress, lastEvent: event.type };
  switch (event.type) {
    case 'PlanRejected':
      return {
        ...next,
        outcome: 'rejected',
        detail: event.data.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
      };
    case 'LoopQueued':
      return {
        ...next,
        detail: `queued: waits for ${event.data.waiting_for.map((h) => h.plan).join(', ')} (their files overlap this plan's)`,
      };
    case 'LoopGated':
      return {
        ...next,
        detail: `gate verdict: ${event.data.verdict}${event.data.rules.length > 0 ? ` (${event.data.rules.map((r) => r.rule).join(', ')})` : ''}`,
      };
    case 'RoundStarted':
      return {
        ...next,
        round: event.data.round,
        phase: event.data.phase,
        detail: `${event.data.critics.length} critics dispatched`,
      };
    case 'LetterWritten':
      return { ...next, findingsOpen: event.data.letter.findings.length, detail: event.data.letter.summary };
    case 'FixApplied':
      return {
        ...next,
        detail: `fix ${event.data.outcome}${event.data.commit ? ` (${event.data.commit.slice(0, 8)})` : ''}, tests ${event.data.tests_result.passed}/${event.data.tests_result.total} passing`,
      };
    case 'LoopConverged':
      return {
        ...next,
        outcome: 'converged',
        findingsOpen: 0,
        detail: `converged after ${event.data.rounds} rounds on ${event.data.branch}`,
      };
    case 'LoopBypassed':
      return {
        ...next,
        outcome: 'bypassed',
        detail: `single-pass review: ${event.data.counts.critical} critical, ${event.data.counts.medium} medium, ${event.data.counts.low} low`,
      };
    case 'EscalationRaised':
      return { ...next, outcome: 'escalated', detail: `${event.data.reason}: ${event.data.report.trigger.detail}` };
    case 'LoopStopped':
      return { ...next, outcome: 'stopped', detail: event.data.note ?? 'stopped by a person' };
    case 'LoopResumed':
      return { ...next, outcome: null, detail: 'resumed' };
    default:
      return next;
  }
}

/** One line for a terminal that redraws in place. */
export function renderProgress(progress: Progress): string {
  // A queued plan (scope locking) says which loops it waits for instead.
  const waiting =
    progress.lastEvent === 'LoopQueued' && progress.detail !== null ? progress.detail : 'waiting for round 1';
  const round = progress.round === 0 ? waiting : `round ${progress.round} · ${progress.phase?.replace('_', ' ') ?? ''}`;
  const open = progress.findingsOpen === null ? '' : ` · ${progress.findingsOpen} findings open`;
  const last = progress.lastEvent === null ? '' : ` · last: ${progress.lastEvent}`;
  return `${progress.plan}: ${round}${open}${last}`;
}

/** Exit codes of `rloop submit --watch`: 0 converged or bypassed, 2 escalated, 1 rejected, stopped or an error. */
export function exitCodeFor(outcome: Outcome): number {
  switch (outcome) {
    case 'converged':
    case 'bypassed':
      return 0;
    case 'escalated':
      return 2;
    case 'rejected':
    case 'stopped':
      return 1;
  }
}
