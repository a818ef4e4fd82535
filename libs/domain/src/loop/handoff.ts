import {
  type JournaledEvent,
  PHASES,
  type Phase,
  SEVERITIES,
  type Severity,
  type SeverityCounts,
} from '@rloop/contracts';
import { phaseIncludes } from '../phases/phases.js';
import type { LoopState } from './state.js';

/**
 * Best-round handoff (issue 15 §4): a loop that escalates or is stopped leaves `rloop/<slug>` at
 * the commit of its best round, not at whatever its last fix produced. The choice is here, pure;
 * the implementer moves the branch (it owns `rloop/<slug>`) and journals BranchHandedOff.
 */

/** What one reviewed round says about its commit: the letter's open findings. */
export interface ReviewedRound {
  readonly round: number;
  readonly phase: Phase;
  readonly commit: string;
  readonly letter_id: string;
  readonly counts: SeverityCounts;
}

export interface HandoffChoice {
  readonly best: ReviewedRound;
  /** The last reviewed round (the best one, or what it is compared with). */
  readonly last: ReviewedRound;
  /** Why this round, in one sentence for people. */
  readonly reason: string;
}

/** The run's complete loop letters, in round order (an incomplete letter is no measure of its commit: a core critic was silent). */
export function reviewedRounds(events: readonly JournaledEvent[], runId: string): ReviewedRound[] {
  const byRound = new Map<number, ReviewedRound>();
  for (const event of events) {
    if (event.type !== 'LetterWritten' || event.correlation_id !== runId) continue;
    const letter = event.data.letter;
    if (!letter.complete || letter.mode !== 'loop' || byRound.has(letter.round)) continue;
    byRound.set(letter.round, {
      round: letter.round,
      phase: letter.phase,
      commit: letter.commit,
      letter_id: letter.letter_id,
      counts: { ...letter.counts },
    });
  }
  return [...byRound.values()].sort((a, b) => a.round - b.round);
}

/**
 * The open findings a round's letter stands for, per severity, most severe first. A letter counts
 * only its phase's severities: those of an earlier phase were cleared when the loop left that
 * phase (0), those of a later phase were not looked at yet (unknown: ranks after any count).
 */
export function openByRank(round: ReviewedRound): readonly number[] {
  const at = PHASES.indexOf(round.phase);
  return SEVERITIES.map((severity: Severity) => {
    if (phaseIncludes(round.phase, severity)) return round.counts[severity];
    return PHASES.indexOf(severity) < at ? 0 : Number.POSITIVE_INFINITY;
  });
}

function compareRounds(a: ReviewedRound, b: ReviewedRound): number {
  const ra = openByRank(a);
  const rb = openByRank(b);
  for (let i = 0; i < ra.length; i += 1) {
    const x = ra[i] ?? 0;
    const y = rb[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  // Ties go to the latest round: it holds the most work for the same result.
  return b.round - a.round;
}

/** "2 critical, 1 medium (low not reviewed yet)". */
export function describeOpen(round: ReviewedRound): string {
  const ranks = openByRank(round);
  const known = SEVERITIES.flatMap((s, i) => (Number.isFinite(ranks[i]) ? [`${ranks[i]} ${s}`] : []));
  const unknown = SEVERITIES.filter((_, i) => !Number.isFinite(ranks[i]));
  return `${known.join(', ')}${unknown.length > 0 ? ` (${unknown.join(', ')} not reviewed yet)` : ''}`;
}

/**
 * The round whose commit the branch is left at: fewest open findings by severity — critical, then
 * medium, then low, as the letter ranks them — ties to the latest round. Null when no round was
 * completely reviewed (the branch then stays where it is).
 */
export function chooseHandoffRound(rounds: readonly ReviewedRound[]): HandoffChoice | null {
  const last = rounds.reduce<ReviewedRound | null>(
    (latest, r) => (latest === null || r.round > latest.round ? r : latest),
    null,
  );
  if (last === null) return null;
  const best = [...rounds].sort(compareRounds)[0] ?? last;
  const reason =
    best.round === last.round
      ? `round ${best.round}, the last reviewed, has the fewest open findings (${describeOpen(best)})`
      : `round ${best.round} had the fewest open findings (${describeOpen(best)}); the last reviewed round, ${last.round}, had ${describeOpen(last)}` +
        (best.commit === last.commit ? ' on the same commit' : '');
  return { best, last, reason };
}

/** What the implementer hands off, when the run's state says the loop ended or waits for people. */
export interface HandoffWork {
  readonly slug: string;
  readonly runId: string;
  readonly repoPath: string;
  /** The repository's URL (a plan given by URL): the branch and `refs/rloop/<slug>/last` are moved there. */
  readonly repoUrl?: string;
  readonly branch: string;
  readonly trigger: { readonly kind: 'escalated' | 'stopped'; readonly event_id: string };
}

/** The handoff a committed EscalationRaised or LoopStopped asks for (null when the run has no branch yet, or is not escalated or stopped now). */
export function handoffWork(state: LoopState): HandoffWork | null {
  if (state.run_id === null || state.gated === null || state.baseline === null) return null;
  const base = {
    slug: state.plan,
    runId: state.run_id,
    repoPath: state.gated.repo_path,
    ...(state.gated.repo_url === undefined ? {} : { repoUrl: state.gated.repo_url }),
    branch: state.baseline.branch,
  };
  if (state.status === 'escalated' && state.escalation !== null)
    return { ...base, trigger: { kind: 'escalated', event_id: state.escalation.escalation_id } };
  if (state.status === 'stopped' && state.outcome_event_id !== null)
    return { ...base, trigger: { kind: 'stopped', event_id: state.outcome_event_id } };
  return null;
}
