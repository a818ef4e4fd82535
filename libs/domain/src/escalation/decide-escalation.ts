import { type EventOf, type FindingTimeline, type Heuristic, INFRASTRUCTURE_FAILURE_REASONS } from '@rloop/contracts';
import type { CriticCatalogue } from '../config/catalogue.js';
import { deterministicId } from '../identity/ids.js';
import { type DecisionMeta, decisionEvent } from '../loop/envelope.js';
import type { CriticFailure, DisagreementSide, LoopState, PendingDetection, RoundRecord } from '../loop/state.js';
import { TERMINAL_STATUSES } from '../loop/state.js';
import { type StuckTrigger, buildStuckReport, infrastructureAction, renderStuckReportMarkdown } from './report.js';

// When does a loop escalate? Here, and only here. Every trigger is one entry of TRIGGERS, checked
// in order on the run's state; the first that fires names the escalation. The panel
// (decide.ts) escalates on it; workers that hit a budget raise it through escalationEvent; the
// loop-detection reactor asks detectionIsLive before it journals a LoopDetected. Spec:
// decide-escalation.unit.spec.ts (one given/when/then table). A new trigger is one entry below.

/** The soft cap of a phase including rounds granted on resume. */
export function capFor(state: LoopState, catalogue: CriticCatalogue, phase: RoundRecord['phase']): number {
  return catalogue.soft_caps[phase] + state.cap_bonus[phase];
}

/** What decideEscalation needs beside the state. */
export interface EscalationContext {
  readonly catalogue: CriticCatalogue;
  /** A detection to escalate now, instead of the state's own pending ones (see PanelContext.detection). */
  readonly detection?: {
    readonly heuristic: Heuristic;
    readonly detail: string;
    readonly event_id: string;
    readonly disagreement?: readonly DisagreementSide[];
  } | null;
}

/** A trigger that fired: what to escalate, and the event that caused it (the escalation's causation). */
export interface Escalation {
  readonly trigger: StuckTrigger;
  readonly causation_id: string;
}

interface Trigger {
  readonly name: string;
  readonly fires: (state: LoopState, ctx: EscalationContext) => Escalation | null;
}

/** The round under review with its letter, in loop mode (single-pass rounds never escalate). */
function loopLetter(state: LoopState) {
  const current = state.current;
  const letter = current?.letter ?? null;
  if (state.status !== 'reviewing' || current === null || letter === null || current.mode !== 'loop') return null;
  return { current, letter };
}

/** A core critic that failed for the same infrastructure reason in the current round and the one before it. */
export interface RepeatedFailure {
  readonly critic_id: string;
  readonly failure: CriticFailure;
  readonly rounds: readonly [number, number];
}

/**
 * The first core critic (in id order) that failed for the same infrastructure reason (not
 * runnable, unauthorised, unavailable) in this round and the previous one: running the round
 * again cannot help until someone fixes what it needs.
 */
export function repeatedInfrastructureFailure(
  state: Pick<LoopState, 'previous_failures'>,
  current: RoundRecord,
): RepeatedFailure | null {
  const previous = state.previous_failures;
  if (previous === null || previous.round !== current.round - 1) return null;
  for (const criticId of Object.keys(current.failures).sort()) {
    const failure = current.failures[criticId];
    if (failure === undefined || !failure.core || !INFRASTRUCTURE_FAILURE_REASONS.includes(failure.reason)) continue;
    if (previous.failures[criticId]?.reason === failure.reason)
      return { critic_id: criticId, failure, rounds: [previous.round, current.round] };
  }
  return null;
}

const REASON_WORDS: Readonly<Record<CriticFailure['reason'], string>> = {
  not_runnable: 'could not run',
  unauthorised: 'was refused its credentials',
  unavailable: 'was unavailable',
  crashed: 'crashed',
  timed_out: 'timed out',
  invalid_output: 'gave invalid output',
  rate_limited: 'was rate-limited',
  no_files_analysed: 'analysed none of its files',
};

const OPEN_STATUSES: ReadonlySet<LoopState['status']> = new Set(['reviewing', 'fixing', 'ready']);

/**
 * A stuck-loop heuristic of the current round (a LoopDetected folded into the state, or the
 * detection the caller names). A clean complete letter still ends its phase (nothing is left to be
 * stuck on); a letter past the soft cap escalates as soft_cap with the heuristic named beside it.
 */
const heuristic: Trigger = {
  name: 'heuristic',
  fires(state, ctx) {
    const pending = state.detections.filter((d) => d.round === state.round);
    const first: EscalationContext['detection'] | PendingDetection = ctx.detection ?? pending[0] ?? null;
    if (first === null || state.round === 0 || !OPEN_STATUSES.has(state.status)) return null;
    const current = state.current;
    const letter = current?.letter ?? null;
    if (state.status === 'reviewing' && letter !== null && letter.findings === 0 && letter.complete) return null;
    const others = pending.filter((d) => d.event_id !== first.event_id);
    const detail = [first.detail, ...others.map((d) => `also ${d.heuristic.replaceAll('_', ' ')}: ${d.detail}`)]
      .join(' — ')
      .slice(0, 3500);
    const disagreement = first.disagreement ?? others.find((d) => d.disagreement !== undefined)?.disagreement;
    const extra = disagreement === undefined ? {} : { disagreement };
    if (state.status === 'reviewing' && current !== null && letter !== null && letter.findings > 0) {
      const cap = capFor(state, ctx.catalogue, current.phase);
      if (current.phase_round > cap) {
        const capDetail = `the ${current.phase} phase still has ${letter.findings} finding(s) after ${cap} round(s) of fixes (soft cap ${cap}); ${first.heuristic.replaceAll('_', ' ')}: ${detail}`;
        return {
          causation_id: letter.event_id,
          trigger: { kind: 'soft_cap', heuristic: first.heuristic, detail: capDetail.slice(0, 4000), ...extra },
        };
      }
    }
    return {
      causation_id: first.event_id,
      trigger: { kind: 'heuristic', heuristic: first.heuristic, detail, ...extra },
    };
  },
};

/** Infrastructure that failed twice in a row fails again: escalate now, saying what failed and what to fix. */
const repeatedCriticFailure: Trigger = {
  name: 'repeated infrastructure failure of a core critic',
  fires(state) {
    const at = loopLetter(state);
    const repeated = at === null ? null : repeatedInfrastructureFailure(state, at.current);
    if (at === null || repeated === null) return null;
    const { critic_id: criticId, failure, rounds } = repeated;
    return {
      causation_id: at.letter.event_id,
      trigger: {
        kind: 'critic_failures',
        detail: `core critic ${criticId} ${REASON_WORDS[failure.reason]} (${failure.reason}) in rounds ${rounds[0]} and ${rounds[1]}: ${failure.message}`,
        action: infrastructureAction(criticId, failure.reason),
      },
    };
  },
};

/** Nothing to fix, but a core critic did not report in every round the phase was allowed: the round cannot count as clean. */
const incompleteRoundsPastCap: Trigger = {
  name: 'incomplete rounds past the soft cap',
  fires(state, ctx) {
    const at = loopLetter(state);
    if (at === null || at.letter.findings !== 0 || at.letter.complete) return null;
    if (at.current.phase_round <= capFor(state, ctx.catalogue, at.current.phase)) return null;
    return {
      causation_id: at.letter.event_id,
      trigger: {
        kind: 'critic_failures',
        detail: `a core critic failed in ${at.current.phase_round} rounds of the ${at.current.phase} phase`,
      },
    };
  },
};

/** Findings left after the phase's rounds (a final sweep that found a critical goes back to the critical phase instead). */
const softCap: Trigger = {
  name: 'soft cap',
  fires(state, ctx) {
    const at = loopLetter(state);
    if (
      at === null ||
      at.letter.findings === 0 ||
      (at.current.phase === 'final_sweep' && at.letter.counts.critical > 0)
    )
      return null;
    const cap = capFor(state, ctx.catalogue, at.current.phase);
    if (at.current.phase_round <= cap) return null;
    return {
      causation_id: at.letter.event_id,
      trigger: {
        kind: 'soft_cap',
        detail: `the ${at.current.phase} phase still has ${at.letter.findings} finding(s) after ${cap} round(s) of fixes (soft cap ${cap})`,
      },
    };
  },
};

/** Every trigger the panel checks, in the order they win. (Budget stops are raised by the worker that hit them: see budgetTrigger.) */
export const TRIGGERS: readonly Trigger[] = [heuristic, repeatedCriticFailure, incompleteRoundsPastCap, softCap];

/** Whether the loop escalates now, and on what. Pure. */
export function decideEscalation(state: LoopState, ctx: EscalationContext): Escalation | null {
  if (state.run_id === null) return null;
  for (const trigger of TRIGGERS) {
    const fired = trigger.fires(state, ctx);
    if (fired !== null) return fired;
  }
  return null;
}

/** A worker's budget stop (an LLM budget reached before a dispatch): `detail` says which budget and what was spent. */
export function budgetTrigger(detail: string): StuckTrigger {
  return { kind: 'budget', detail };
}

/**
 * Whether a detection may still be journaled as LoopDetected: its run is the current one, its
 * round the current round, and the loop has not ended. A detection made by a replay with other
 * thresholds, or for a round that is over, is stale and never journaled late.
 */
export function detectionIsLive(
  state: LoopState | undefined,
  detection: { readonly run_id: string; readonly round: number },
): boolean {
  return (
    state !== undefined &&
    state.run_id === detection.run_id &&
    state.round === detection.round &&
    !TERMINAL_STATUSES.has(state.status)
  );
}

/**
 * The EscalationRaised of a trigger. Its id is derived from the plan, run, round, the trigger and
 * `source` (the step that raised it), so a replica or a redelivery raising the same stop produces
 * the same event. Pure: time comes in through `meta`.
 */
export function escalationEvent(
  state: LoopState,
  meta: DecisionMeta,
  trigger: StuckTrigger,
  options: {
    readonly round?: number;
    readonly source?: string;
    readonly timelines?: readonly FindingTimeline[] | null;
  } = {},
): EventOf<'EscalationRaised'> {
  const round = options.round ?? Math.max(1, state.round);
  const step =
    options.source === undefined
      ? [round, trigger.kind, trigger.heuristic ?? '']
      : [round, trigger.kind, options.source];
  const report = buildStuckReport(
    options.round === undefined ? state : { ...state, round: Math.max(state.round, round) },
    trigger,
    options.timelines ?? null,
  );
  return decisionEvent('EscalationRaised', meta, ['escalation', ...step], {
    escalation_id: deterministicId(meta.plan, meta.run_id, 'escalation', ...step),
    reason: trigger.kind,
    phase: state.phase,
    round,
    report,
    markdown: renderStuckReportMarkdown(report),
  });
}
