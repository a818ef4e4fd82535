import type { DecisionStamp } from '@rloop/contracts';
import type { LoopState } from './state.js';

/** Whether the journal may append a decision to its run now, and why not. */
export type Admission =
  | { readonly admitted: true }
  | {
      readonly admitted: false;
      /** `stale`: the run's state changed since the decision's version; `ahead`: the decision names a version the run never had. */
      readonly reason: 'stale' | 'ahead';
      readonly actualVersion: number;
    };

/**
 * Checks a decision against the state of its run as the journal has it now (pure). A decision
 * made on version V is admitted while nothing that changed the run's state was appended after V,
 * other than earlier events of the same decision (PhaseAdvanced, then the RoundStarted it decided
 * with it). Events that change nothing — a late report for a finished round, a duplicate, usage —
 * do not make it stale, so late facts cannot starve decisions.
 *
 * @example
 *   admitDecision(stateAt12, { expected_version: 12, id }) // admitted
 *   admitDecision(stateAt14AfterAReport, { expected_version: 12, id }) // stale: decide again on 14
 */
export function admitDecision(state: Pick<LoopState, 'version' | 'changed'>, decision: DecisionStamp): Admission {
  if (decision.expected_version > state.version)
    return { admitted: false, reason: 'ahead', actualVersion: state.version };
  const changed = state.changed;
  if (changed.at <= decision.expected_version) return { admitted: true };
  if (changed.decision === decision.id && changed.before <= decision.expected_version) return { admitted: true };
  return { admitted: false, reason: 'stale', actualVersion: state.version };
}

/**
 * Events that are always decisions: made from a run's state by the gate, the panel or the
 * synthesizer, and appended only on that state (they must carry their `decision` stamp).
 * CriticFailed, EscalationRaised and LoopDetected may be either — a critic's own failure or a
 * budget a worker hit is a fact, a deadline's timeout or the panel's escalation a decision, and
 * the stamp says which. Everything else is a fact, appended as it comes: reports, baselines,
 * fixes, usage, submissions, and people's resume and stop (the fold applies those only where
 * they still make sense, so a person's command is never lost to a race).
 */
export const DECISION_TYPES: ReadonlySet<string> = new Set([
  'LoopGated',
  'LoopQueued',
  'RoundStarted',
  'PhaseAdvanced',
  'FixRequested',
  'LetterWritten',
  'LoopConverged',
  'LoopBypassed',
]);
