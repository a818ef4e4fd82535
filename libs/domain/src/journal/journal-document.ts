import type { FixedFile, Heuristic, JournaledEvent, Phase, TestsResult } from '@rloop/contracts';
import { DEFAULT_LOOP_CONFIG } from '../heuristics/config.js';
import { keyMomentOf } from '../heuristics/trend.js';

/** One round in the spec's journal.yaml shape. */
export interface JournalRound {
  round: number;
  phase: Phase;
  timestamp: string;
  critics_dispatched: string[];
  letter_id: string | null;
  findings_by_critic: Record<string, { reported: number; kept: number; outcome: string; fingerprints: string[] }>;
  fixes_applied: { file: string; fixed_findings: string[]; lines_changed: number }[];
  tests_added: string[];
  tests_result: TestsResult | null;
  convergence_delta: { critical_open_before: number | null; critical_open_after: number | null };
  /** Review-loop seed: a breakthrough round (the highest score dropped by more than the configured step). */
  key_moment?: string;
  /** Best-round retention: this round re-reviewed the best commit after a worse round. */
  retained_best?: { best_round: number; best_commit: string; worse_round: number; worse_commit: string };
  /** Loop-detection heuristics that fired in this round. */
  loop_detected?: { heuristic: Heuristic; message: string }[];
  escalated?: { reason: string; heuristic: Heuristic | null };
}

/** The spec's per-plan journal.yaml, derived from the journal's events of one run. */
export interface JournalDocument {
  plan: string;
  run_id: string | null;
  started_at: string | null;
  phase: Phase | null;
  status: string;
  rounds: JournalRound[];
}

function fixesOf(files: readonly FixedFile[]): JournalRound['fixes_applied'] {
  return files.map((f) => ({ file: f.file, fixed_findings: [...f.fixed_findings], lines_changed: f.lines_changed }));
}

/**
 * Builds the journal.yaml view of a run: plan, started_at, phase, and per round the critics,
 * letter, findings by critic, fixes, tests and the convergence delta (critical findings open
 * in this round's letter, and in the next round's).
 */
export function journalDocument(
  plan: string,
  events: readonly JournaledEvent[],
  options: { readonly keyMomentDrop?: number } = {},
): JournalDocument {
  const doc: JournalDocument = { plan, run_id: null, started_at: null, phase: null, status: 'unknown', rounds: [] };
  const byRound = new Map<number, JournalRound>();
  const drop = options.keyMomentDrop ?? DEFAULT_LOOP_CONFIG.key_moments.max_drop;
  // The same rule as the round-history projection: complete letters only, reset per phase and on retention.
  let previousMax: number | null = null;
  for (const event of events) {
    switch (event.type) {
      case 'PlanSubmitted':
        doc.run_id = event.event_id;
        doc.started_at = event.occurred_at;
        doc.status = 'submitted';
        doc.rounds = [];
        byRound.clear();
        break;
      case 'PlanRejected':
        doc.status = 'rejected';
        break;
      case 'LoopQueued':
        doc.status = 'queued';
        break;
      case 'LoopGated':
        doc.status = event.data.verdict === 'run' ? 'running' : 'single_pass';
        break;
      case 'RoundStarted': {
        const round: JournalRound = {
          round: event.data.round,
          phase: event.data.phase,
          timestamp: event.occurred_at,
          critics_dispatched: event.data.critics.map((c) => c.critic_id),
          letter_id: null,
          findings_by_critic: {},
          fixes_applied: [],
          tests_added: [],
          tests_result: null,
          convergence_delta: { critical_open_before: null, critical_open_after: null },
        };
        const retained = event.data.retained_best;
        if (retained !== undefined) {
          round.retained_best = {
            best_round: retained.best_round,
            best_commit: retained.best_commit,
            worse_round: retained.worse_round,
            worse_commit: retained.worse_commit,
          };
          previousMax = null;
        }
        byRound.set(round.round, round);
        doc.rounds.push(round);
        doc.phase = event.data.phase;
        break;
      }
      case 'LetterWritten': {
        const round = byRound.get(event.data.letter.round);
        if (round === undefined) break;
        const letter = event.data.letter;
        round.letter_id = letter.letter_id;
        for (const critic of letter.critics) {
          round.findings_by_critic[critic.critic_id] = {
            reported: critic.findings_total,
            kept: critic.findings_kept,
            outcome: critic.outcome,
            fingerprints: letter.findings.filter((f) => f.raised_by === critic.critic_id).map((f) => f.fingerprint),
          };
        }
        round.convergence_delta.critical_open_before = letter.counts.critical;
        if (letter.complete) {
          const max = letter.findings.reduce((m, f) => Math.max(m, f.score), 0);
          const moment = keyMomentOf(previousMax, max, drop);
          if (moment !== null) round.key_moment = moment;
          previousMax = max;
        }
        const previous = doc.rounds[doc.rounds.indexOf(round) - 1];
        if (previous !== undefined) previous.convergence_delta.critical_open_after = letter.counts.critical;
        break;
      }
      case 'FixApplied': {
        const round = byRound.get(event.data.round);
        if (round === undefined) break;
        round.fixes_applied = fixesOf(event.data.fixes_applied);
        round.tests_added = [...event.data.tests_added];
        round.tests_result = event.data.tests_result;
        break;
      }
      case 'PhaseAdvanced':
        doc.phase = event.data.to;
        previousMax = null;
        break;
      case 'LoopDetected': {
        const round = byRound.get(event.data.round);
        if (round !== undefined)
          round.loop_detected = [
            ...(round.loop_detected ?? []),
            { heuristic: event.data.heuristic, message: event.data.message },
          ];
        break;
      }
      case 'LoopConverged':
        doc.status = 'converged';
        break;
      case 'LoopBypassed':
        doc.status = 'bypassed';
        break;
      case 'EscalationRaised': {
        doc.status = 'escalated';
        const round = byRound.get(event.data.round);
        if (round !== undefined)
          round.escalated = { reason: event.data.reason, heuristic: event.data.report.trigger.heuristic ?? null };
        break;
      }
      case 'LoopResumed':
        doc.status = 'running';
        break;
      case 'LoopStopped':
        doc.status = 'stopped';
        break;
      default:
        break;
    }
  }
  return doc;
}
