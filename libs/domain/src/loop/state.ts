import {
  type BestRound,
  type CriticFailure,
  type FindingSummary,
  type JournaledEvent,
  LOOP_STATE_VERSION,
  LOOP_STATUSES,
  type Letter,
  type LoopState,
  type LoopStatus,
  type PendingDetection,
  type RoundLetter,
  type RoundRecord,
  type SeverityCounts,
  type StateChange,
  StuckReport,
} from '@rloop/contracts';
import { isFirstAnswer } from '../round/answers.js';

/** One side of a critic disagreement (as the stuck report shows it). */
export type DisagreementSide = NonNullable<StuckReport['disagreement']>[number];

// The state's shape is a contract (libs/contracts loop-state.ts): it travels in JournalCommitted
// and `journal.loop_state` replies with its version, and receivers parse it. This file folds it.
export type {
  LoopStatus,
  LoopState,
  PendingDetection,
  BestRound,
  FindingSummary,
  RoundLetter,
  CriticFailure,
  StateChange,
  RoundRecord,
};
export { LOOP_STATUSES };

export const TERMINAL_STATUSES: ReadonlySet<LoopStatus> = new Set(['converged', 'bypassed', 'rejected', 'stopped']);

/** At most this many findings are kept in the state for reports. */
const MAX_KEPT_FINDINGS = 50;
const MAX_PENDING_DETECTIONS = 10;
const MAX_HANDLED_DETECTIONS = 20;

const DisagreementSides = StuckReport.shape.disagreement.unwrap();

export function initialLoopState(plan: string): LoopState {
  return {
    schema_version: LOOP_STATE_VERSION,
    plan,
    run_id: null,
    status: 'submitted',
    spec: null,
    submission_id: null,
    verdict: null,
    gated: null,
    queued: null,
    baseline: null,
    head: null,
    phase: 'critical',
    round: 0,
    cap_bonus: { critical: 0, medium: 0, low: 0, final_sweep: 0 },
    current: null,
    last_findings: [],
    escalation: null,
    resumed: null,
    detections: [],
    handled_detections: [],
    best: null,
    previous_failures: null,
    incomplete_rounds: 0,
    outcome_event_id: null,
    version: 0,
    changed: { at: 0, decision: null, before: 0 },
    last_event_id: null,
    updated_at: null,
  };
}

function summarise(letter: Letter): FindingSummary[] {
  return letter.findings.slice(0, MAX_KEPT_FINDINGS).map((f) => ({
    id: f.id,
    fingerprint: f.fingerprint,
    title: f.title,
    severity: f.severity,
    category: f.category,
    file: f.file,
    line_range: { start: f.line_range.start, end: f.line_range.end },
    raised_by: f.raised_by,
  }));
}

/** Only events of the state's current run (and the PlanSubmitted that starts a new one) change it. */
function belongsToRun(state: LoopState, event: JournaledEvent): boolean {
  return event.type === 'PlanSubmitted' || event.correlation_id === state.run_id;
}

function forCurrentRound(state: LoopState, round: number): RoundRecord | null {
  return state.current !== null && state.current.round === round ? state.current : null;
}

/** Whether a letter is worse than the best round: more critical findings, or as many and more findings. */
export function isWorseThanBest(counts: SeverityCounts, findings: number, best: BestRound): boolean {
  return counts.critical > best.critical || (counts.critical === best.critical && findings > best.findings);
}

/**
 * Records a detection of the current round for the panel (see PendingDetection). Ignored once the
 * loop waits for a person or has ended, for other rounds, and for detections already handled.
 */
export function noteDetection(
  state: LoopState,
  detection: Omit<PendingDetection, 'detail' | 'fingerprints' | 'disagreement'> & {
    readonly message: string;
    readonly fingerprints: readonly string[];
    readonly disagreement?: readonly DisagreementSide[];
  },
): LoopState {
  const open = state.status === 'reviewing' || state.status === 'fixing' || state.status === 'ready';
  if (!open || detection.round !== state.round) return state;
  if (
    state.handled_detections.includes(detection.event_id) ||
    state.detections.some((d) => d.event_id === detection.event_id)
  )
    return state;
  const pending: PendingDetection = {
    event_id: detection.event_id,
    heuristic: detection.heuristic,
    round: detection.round,
    detail: detection.message.slice(0, 4000),
    fingerprints: [...detection.fingerprints],
    ...(detection.disagreement === undefined ? {} : { disagreement: [...detection.disagreement] }),
  };
  return { ...state, detections: [...state.detections, pending].slice(0, MAX_PENDING_DETECTIONS) };
}

/** The disagreement sides a LoopDetected carries in its evidence (`sides`), when they parse. */
export function disagreementOf(evidence: Readonly<Record<string, unknown>>): DisagreementSide[] | undefined {
  const parsed = DisagreementSides.safeParse(evidence['sides']);
  return parsed.success ? parsed.data : undefined;
}

function handled(state: LoopState): string[] {
  return [...state.handled_detections, ...state.detections.map((d) => d.event_id)].slice(-MAX_HANDLED_DETECTIONS);
}

/** Where the state changed after folding `event` at `position` (see StateChange). */
function changeAt(previous: StateChange, event: JournaledEvent, position: number): StateChange {
  const decision = event.decision?.id ?? null;
  if (decision !== null && decision === previous.decision) return { at: position, decision, before: previous.before };
  return { at: position, decision, before: previous.at };
}

const MAX_FAILURE_MESSAGE = 1000;

/**
 * Folds one journaled event into the plan's loop state (emmett's `evolve`). Pure and total:
 * events of other runs, duplicates and late reports for finished rounds leave the state as is,
 * apart from the version — and do not count as a change (`changed`), so they never make a
 * decision stale. `position` is the event's position in the run's stream.
 */
export function evolveLoop(state: LoopState, event: JournaledEvent, position: number): LoopState {
  const base = {
    ...state,
    version: Math.max(state.version, position),
    last_event_id: event.event_id,
    updated_at: event.occurred_at,
  };
  if (!belongsToRun(state, event)) return base;
  const next = applyToRun(state, event, position, base);
  return next === base ? base : { ...next, changed: changeAt(state.changed, event, position) };
}

/** The state after an event of the run; `base` itself when the event changes nothing. */
function applyToRun(state: LoopState, event: JournaledEvent, position: number, base: LoopState): LoopState {
  switch (event.type) {
    case 'PlanSubmitted':
      if (state.run_id === event.event_id || (state.run_id !== null && !TERMINAL_STATUSES.has(state.status)))
        return base;
      return {
        ...initialLoopState(state.plan),
        run_id: event.event_id,
        spec: event.data.plan,
        submission_id: event.data.submission_id,
        // A run has a stream of its own: its positions start again (a plan stream of older journals keeps counting).
        version: position,
        last_event_id: event.event_id,
        updated_at: event.occurred_at,
      };
    case 'PlanRejected':
      return TERMINAL_STATUSES.has(state.status)
        ? base
        : { ...base, status: 'rejected', outcome_event_id: event.event_id };
    case 'LoopQueued': {
      if (state.gated !== null || (state.status !== 'submitted' && state.status !== 'queued')) return base;
      const { waiting_for, ...gating } = event.data;
      return { ...base, status: 'queued', queued: { event_id: event.event_id, gating, waiting_for } };
    }
    case 'LoopGated':
      // A queued run is gated once the runs it waited for have ended.
      if (state.gated !== null || (state.status !== 'submitted' && state.status !== 'queued')) return base;
      return {
        ...base,
        queued: null,
        verdict: event.data.verdict,
        gated: {
          commit: event.data.commit,
          repo_path: event.data.repo_path,
          ...(event.data.repo_url === undefined ? {} : { repo_url: event.data.repo_url }),
          files: event.data.files,
          event_id: event.event_id,
          occurred_at: event.occurred_at,
        },
        head: event.data.commit,
        phase: event.data.verdict === 'run' ? 'critical' : 'final_sweep',
        status: event.data.verdict === 'run' ? 'awaiting_baseline' : 'ready',
      };
    case 'BaselineRecorded':
      if (state.status !== 'awaiting_baseline') return base;
      return {
        ...base,
        baseline: {
          commit: event.data.commit,
          branch: event.data.branch,
          failing: event.data.failing,
          event_id: event.event_id,
          occurred_at: event.occurred_at,
        },
        head: event.data.commit,
        status: 'ready',
      };
    case 'RoundStarted': {
      // The panel starts a round on a loop that is ready or under review, never on one that ended or waits for people.
      if (event.data.round <= state.round || !(state.status === 'ready' || state.status === 'reviewing')) return base;
      return {
        ...base,
        previous_failures:
          state.current === null ? null : { round: state.current.round, failures: state.current.failures },
        status: 'reviewing',
        phase: event.data.phase,
        round: event.data.round,
        resumed: null,
        // The commit under review is the head: the last fix, or the best commit when a worse round was reverted.
        head: event.data.commit,
        // A detection speaks for its round only.
        detections: [],
        handled_detections: handled(state),
        best: state.best !== null && state.best.phase !== event.data.phase ? null : state.best,
        current: {
          round: event.data.round,
          phase: event.data.phase,
          phase_round: event.data.phase_round,
          k: event.data.k,
          mode: event.data.mode,
          commit: event.data.commit,
          started_event_id: event.event_id,
          started_at: event.occurred_at,
          started_position: position,
          deadline_at: event.data.deadline_at,
          critics: event.data.critics.map((c) => ({ critic_id: c.critic_id, core: c.core })),
          reports: {},
          failures: {},
          letter: null,
          fix_requested: false,
          fix: null,
        },
      };
    }
    case 'FindingsReported':
    case 'CriticFailed': {
      const current = forCurrentRound(state, event.data.round);
      if (
        current === null ||
        !isFirstAnswer(current.round, (criticId) => current.reports[criticId] !== undefined, event.data) ||
        current.letter !== null
      )
        return base;
      if (event.type === 'FindingsReported')
        return {
          ...base,
          current: { ...current, reports: { ...current.reports, [event.data.critic_id]: 'reported' } },
        };
      const failure: CriticFailure = {
        reason: event.data.reason,
        message: event.data.message.slice(0, MAX_FAILURE_MESSAGE),
        core: event.data.core,
      };
      return {
        ...base,
        current: {
          ...current,
          reports: { ...current.reports, [event.data.critic_id]: 'failed' },
          failures: { ...current.failures, [event.data.critic_id]: failure },
        },
      };
    }
    case 'LetterWritten': {
      const current = forCurrentRound(state, event.data.letter.round);
      if (current === null || current.letter !== null) return base;
      const letter = event.data.letter;
      const candidate: BestRound = {
        phase: current.phase,
        round: current.round,
        commit: current.commit,
        critical: letter.counts.critical,
        findings: letter.findings.length,
      };
      const keepBest =
        current.mode !== 'loop' ||
        !letter.complete ||
        (state.best !== null &&
          state.best.phase === current.phase &&
          isWorseThanBest(letter.counts, letter.findings.length, state.best));
      return {
        ...base,
        best: keepBest ? state.best : candidate,
        incomplete_rounds: letter.complete ? 0 : state.incomplete_rounds + 1,
        last_findings: summarise(letter),
        current: {
          ...current,
          letter: {
            letter_id: letter.letter_id,
            event_id: event.event_id,
            occurred_at: event.occurred_at,
            findings: letter.findings.length,
            counts: letter.counts,
            complete: letter.complete,
          },
        },
      };
    }
    case 'FixRequested': {
      const current = forCurrentRound(state, event.data.round);
      if (current === null || current.fix_requested) return base;
      return { ...base, status: 'fixing', current: { ...current, fix_requested: true } };
    }
    case 'FixApplied': {
      const current = forCurrentRound(state, event.data.round);
      if (current === null || current.fix !== null) return base;
      return {
        ...base,
        status: state.status === 'fixing' ? 'ready' : state.status,
        head: event.data.commit ?? state.head,
        current: {
          ...current,
          fix: {
            outcome: event.data.outcome,
            commit: event.data.commit,
            event_id: event.event_id,
            occurred_at: event.occurred_at,
          },
        },
      };
    }
    case 'PhaseAdvanced':
      return state.phase === event.data.to && state.best === null
        ? base
        : { ...base, phase: event.data.to, best: null };
    case 'EscalationRaised':
      // An escalation raised as a fact (a budget a worker hit) may come after the loop ended: it changes nothing then.
      if (TERMINAL_STATUSES.has(state.status) || state.escalation?.escalation_id === event.data.escalation_id)
        return base;
      return {
        ...base,
        status: 'escalated',
        escalation: { escalation_id: event.data.escalation_id, reason: event.data.reason, round: event.data.round },
        handled_detections: handled(state),
        detections: [],
      };
    case 'LoopResumed': {
      // A person's resume applies to the escalation it names, never to a later one.
      if (state.status !== 'escalated' || state.escalation?.escalation_id !== event.data.escalation_id) return base;
      const bonus = event.data.raise_cap ?? 0;
      return {
        ...base,
        status: 'ready',
        escalation: null,
        // The person has seen what fired; it does not escalate again.
        handled_detections: handled(state),
        detections: [],
        resumed: { event_id: event.event_id, occurred_at: event.occurred_at },
        cap_bonus: { ...state.cap_bonus, [state.phase]: state.cap_bonus[state.phase] + bonus },
      };
    }
    case 'LoopStopped':
      return TERMINAL_STATUSES.has(state.status)
        ? base
        : { ...base, status: 'stopped', outcome_event_id: event.event_id };
    case 'LoopConverged': {
      // Only the outcome the history supports: a clean, complete final sweep of a loop under review.
      const letter = state.current?.letter;
      const clean =
        state.status === 'reviewing' &&
        state.current?.phase === 'final_sweep' &&
        state.current.mode === 'loop' &&
        letter !== null &&
        letter !== undefined &&
        letter.complete &&
        letter.findings === 0;
      return clean ? { ...base, status: 'converged', outcome_event_id: event.event_id } : base;
    }
    case 'LoopBypassed':
      return state.status === 'reviewing' && state.current?.mode === 'single_pass' && state.current.letter !== null
        ? { ...base, status: 'bypassed', outcome_event_id: event.event_id }
        : base;
    case 'LoopDetected': {
      const disagreement = disagreementOf(event.data.evidence);
      return noteDetection(base, {
        event_id: event.event_id,
        heuristic: event.data.heuristic,
        round: event.data.round,
        message: event.data.message,
        fingerprints: event.data.fingerprints,
        ...(disagreement === undefined ? {} : { disagreement }),
      });
    }
    // BranchHandedOff: where the branch was left changes no decision (a resume goes on from the last round's commit, docs/loop-memory.md).
    case 'TestsWritten':
    case 'UsageRecorded':
    case 'BranchHandedOff':
      return base;
  }
}
