import type { DataOf, FindingTimeline, JournaledEvent, Letter, Phase } from '@rloop/contracts';
import type { CriticCatalogue } from '../config/catalogue.js';
import {
  type Escalation,
  type EscalationContext,
  decideEscalation,
  escalationEvent,
} from '../escalation/decide-escalation.js';
import { type CriticAvailability, selectPanel } from '../panel/select-panel.js';
import { nextPhase } from '../phases/phases.js';
import { type DecisionMeta, decisionEvent } from './envelope.js';
import { fixRequestData } from './work.js';
import { type LoopState, type RoundRecord, isWorseThanBest } from './state.js';

export interface PanelContext extends EscalationContext {
  readonly catalogue: CriticCatalogue;
  readonly availability: (criticId: string) => CriticAvailability;
  readonly producer: string;
  /** Wall-clock time, used only for envelopes. */
  readonly now: string;
  /** Best-round retention (re-review the best commit after a worse round); default on. */
  readonly retention?: boolean;
  /** Richer finding timelines for escalation reports (from the journal's projections), when available. */
  readonly timelines?: readonly FindingTimeline[] | null;
  /** The current round's full letter, when needsLetter(state) asks for it (a fix request carries it). */
  readonly letter?: Letter | null;
}

function addMs(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}

interface RoundPlan {
  readonly phase: Phase;
  readonly phase_round: number;
  /** The event the round is started on, and its time (the deadline counts from it). */
  readonly cause: { readonly event_id: string; readonly occurred_at: string };
  /** Review this commit instead of the head (best-round retention), and say why. */
  readonly retained_best?: NonNullable<DataOf<'RoundStarted'>['retained_best']>;
}

function meta(state: LoopState, ctx: PanelContext, causation_id: string): DecisionMeta {
  if (state.run_id === null) throw new Error('no run to decide for');
  return { plan: state.plan, run_id: state.run_id, causation_id, producer: ctx.producer, now: ctx.now };
}

function startRound(state: LoopState, ctx: PanelContext, plan: RoundPlan): JournaledEvent[] {
  if (state.gated === null || state.head === null) return [];
  const round = state.round + 1;
  const selection = selectPanel(ctx.catalogue, state.gated.files, ctx.availability);
  const slowest = Math.max(0, ...selection.critics.map((c) => c.timeout_ms));
  const m = meta(state, ctx, plan.cause.event_id);
  const started = decisionEvent('RoundStarted', m, ['round', round], {
    round,
    phase: plan.phase,
    phase_round: plan.phase_round,
    k: ctx.catalogue.k[plan.phase],
    mode: state.verdict === 'run' ? 'loop' : 'single_pass',
    commit: plan.retained_best?.best_commit ?? state.head,
    base_commit: state.gated.commit,
    repo_path: state.gated.repo_path,
    ...(state.gated.repo_url === undefined ? {} : { repo_url: state.gated.repo_url }),
    files: [...state.gated.files],
    critics: selection.critics,
    not_configured: selection.not_configured,
    deadline_at: addMs(plan.cause.occurred_at, slowest + ctx.catalogue.round_grace_ms),
    ...(plan.retained_best === undefined ? {} : { retained_best: plan.retained_best }),
  });
  // A core critic that cannot be dispatched is a failure of the round, never a silent absence.
  const missing = selection.missing_core.map((c) =>
    decisionEvent('CriticFailed', { ...m, causation_id: started.event_id }, ['critic', round, c.critic_id], {
      round,
      critic_id: c.critic_id,
      core: true,
      reason: 'unavailable',
      message: c.reason,
    }),
  );
  return [started, ...missing];
}

function escalate(state: LoopState, ctx: PanelContext, escalation: Escalation): JournaledEvent[] {
  return [
    escalationEvent(state, meta(state, ctx, escalation.causation_id), escalation.trigger, {
      timelines: ctx.timelines ?? null,
    }),
  ];
}

function panelComposition(ctx: PanelContext, state: LoopState) {
  const selection = selectPanel(ctx.catalogue, state.gated?.files ?? [], ctx.availability);
  return { critics: selection.critics.map((c) => c.critic_id), not_configured: selection.not_configured };
}

/** What to do once the round's letter is in. */
function decideOnLetter(state: LoopState, ctx: PanelContext, current: RoundRecord): JournaledEvent[] {
  const letter = current.letter;
  if (letter === null) return [];
  const m = meta(state, ctx, letter.event_id);
  const cause = { event_id: letter.event_id, occurred_at: letter.occurred_at };
  if (current.mode === 'single_pass') {
    if (state.verdict === null || state.verdict === 'run') return [];
    return [
      decisionEvent('LoopBypassed', m, ['bypassed'], {
        verdict: state.verdict,
        round: current.round,
        letter_id: letter.letter_id,
        counts: letter.counts,
        panel: panelComposition(ctx, state),
      }),
    ];
  }
  if (letter.findings === 0 && letter.complete) {
    const next = nextPhase(current.phase);
    if (next === null) {
      return [
        decisionEvent('LoopConverged', m, ['converged'], {
          rounds: current.round,
          letter_id: letter.letter_id,
          final_commit: current.commit,
          branch: state.baseline?.branch ?? `rloop/${state.plan}`,
          panel: panelComposition(ctx, state),
        }),
      ];
    }
    const advanced = decisionEvent('PhaseAdvanced', m, ['phase', current.round, next], {
      from: current.phase,
      to: next,
      round: current.round,
      reason: 'phase_clear',
    });
    return [advanced, ...startRound({ ...state, phase: next }, ctx, { phase: next, phase_round: 1, cause })];
  }
  if (letter.findings === 0) {
    // Nothing to fix, but a core critic did not report: the round cannot count as clean. Retry it
    // (past the soft cap, decideEscalation escalated instead).
    return startRound(state, ctx, { phase: current.phase, phase_round: current.phase_round + 1, cause });
  }
  if (current.phase === 'final_sweep' && letter.counts.critical > 0) {
    const advanced = decisionEvent('PhaseAdvanced', m, ['phase', current.round, 'critical'], {
      from: 'final_sweep',
      to: 'critical',
      round: current.round,
      reason: 'final_sweep_found_critical',
    });
    return [
      advanced,
      ...startRound({ ...state, phase: 'critical' }, ctx, { phase: 'critical', phase_round: 1, cause }),
    ];
  }
  const best = state.best;
  if (
    ctx.retention !== false &&
    letter.complete &&
    best !== null &&
    best.phase === current.phase &&
    best.round < current.round &&
    best.commit !== current.commit &&
    isWorseThanBest(letter.counts, letter.findings, best)
  ) {
    // Best-round retention (FSM seed): this round made things worse, so the next one works from the best commit.
    return startRound(state, ctx, {
      phase: current.phase,
      phase_round: current.phase_round + 1,
      cause,
      retained_best: {
        best_round: best.round,
        best_commit: best.commit,
        worse_round: current.round,
        worse_commit: current.commit,
        detail: `round ${current.round} has ${letter.counts.critical} critical of ${letter.findings} finding(s), against ${best.critical} of ${best.findings} in round ${best.round}: its change is set aside and round ${best.round}'s commit is reviewed again`,
      },
    });
  }
  const full = ctx.letter;
  const request =
    full === undefined || full === null || full.letter_id !== letter.letter_id
      ? null
      : fixRequestData(state, current, full);
  return request === null ? [] : [decisionEvent('FixRequested', m, ['fix', current.round], request)];
}

/** Whether deciding on this state needs the full letter of the current round (see PanelContext.letter). */
export function needsLetter(state: LoopState): string | null {
  const letter = state.current?.letter;
  return state.status === 'reviewing' && letter !== null && letter !== undefined && letter.findings > 0
    ? letter.letter_id
    : null;
}

/**
 * The panel's decision (emmett's `decide`): given the plan's loop state as the journal has
 * committed it, the events to publish next — possibly none. Pure; every event id is derived from
 * the step it decides, so replicas agree.
 */
export function decideNext(state: LoopState, ctx: PanelContext): JournaledEvent[] {
  if (state.run_id === null) return [];
  const current = state.current;
  // Every escalation trigger (heuristics, critic failures, the soft cap) is decided in one place.
  const escalation = decideEscalation(state, ctx);
  if (escalation !== null) return escalate(state, ctx, escalation);
  switch (state.status) {
    case 'ready': {
      if (state.resumed !== null) {
        const phaseRound = current !== null && current.phase === state.phase ? current.phase_round + 1 : 1;
        return startRound(state, ctx, { phase: state.phase, phase_round: phaseRound, cause: state.resumed });
      }
      if (current === null) {
        const cause = state.baseline ?? state.gated;
        if (cause === null) return [];
        return startRound(state, ctx, { phase: state.phase, phase_round: 1, cause });
      }
      if (current.fix !== null) {
        return startRound(state, ctx, {
          phase: current.phase,
          phase_round: current.phase_round + 1,
          cause: current.fix,
        });
      }
      return [];
    }
    case 'reviewing':
      return current === null ? [] : decideOnLetter(state, ctx, current);
    case 'submitted':
    case 'queued':
    case 'awaiting_baseline':
    case 'fixing':
    case 'escalated':
    case 'converged':
    case 'bypassed':
    case 'rejected':
    case 'stopped':
      return [];
  }
}
