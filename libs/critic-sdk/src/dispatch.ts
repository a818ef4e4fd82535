import { join } from 'node:path';
import {
  type CriticCoverage,
  type CriticFailureReason,
  type DataOf,
  type DispatchedCritic,
  type EventOf,
  type Finding,
  type RepoConfigEffect,
  type Suppression,
  subjectToken,
} from '@rloop/contracts';
import type { CriticRunResult } from '@rloop/critics';
import { compareFindings, decisionEvent, deterministicId } from '@rloop/domain';

/** The most findings one report carries (the contract's cap); the rest are counted as truncated. */
export const MAX_REPORTED_FINDINGS = 500;

type RoundStarted = EventOf<'RoundStarted'>;

/** This critic's entry in a round's panel, or null when the round is not for it. */
export function dispatchFor(round: RoundStarted, criticId: string): DispatchedCritic | null {
  return round.data.critics.find((c) => c.critic_id === criticId) ?? null;
}

/** Whether the round's deadline has passed: the synthesizer writes (or has written) the letter without a late report. */
export function roundExpired(round: RoundStarted, now: Date): boolean {
  return now.getTime() >= Date.parse(round.data.deadline_at);
}

/**
 * The id of a critic's answer to a round: the same for FindingsReported and CriticFailed, and the
 * same as critic-runner's, so one critic answers one round once whichever replica answers.
 */
export function reportEventId(round: RoundStarted, criticId: string): string {
  return deterministicId(round.plan, round.correlation_id, 'report', round.data.round, criticId);
}

/** The directory a critic keeps its cache in under a work root: one name for it, whichever runner hosts the critic. */
export function criticCacheDir(workRoot: string, criticId: string): string {
  return join(workRoot, 'cache', subjectToken(criticId));
}

/** A critic that was not run (a budget used up, switched off by the repository, a checkout that failed): the result answerEvent turns into a CriticFailed. */
export function notRun(criticId: string, reason: CriticFailureReason, message: string): CriticRunResult {
  return { status: 'failed', critic_id: criticId, reason, message, duration_ms: 0, notes: [], coverage: null };
}

/** How a runner words a failure: its own reasons for its errors (the LLM critics'), and secrets masked in the message. */
export interface AnswerOptions {
  readonly reasonOf?: (result: Extract<CriticRunResult, { status: 'failed' }>) => CriticFailureReason;
  readonly redact?: (text: string) => string;
}

/** What a report carries besides its findings: what the critic covered, and what the reviewed repository's configuration did. */
export interface ReportExtras {
  /** What the critic covered of the files under review; null or absent for a critic that does not say. */
  readonly coverage?: CriticCoverage | null;
  /** Findings the repository dismissed (journaled, counted in the letter). */
  readonly suppressed?: readonly Suppression[];
  readonly repo_config?: RepoConfigEffect | undefined;
}

/** Findings for FindingsReported: the most important first, capped at the contract's limit, with what the critic covered and what the repository dismissed. */
export function reportData(
  round: number,
  criticId: string,
  commit: string,
  findings: readonly Finding[],
  durationMs: number,
  extras: ReportExtras = {},
): DataOf<'FindingsReported'> {
  const ranked = [...findings].sort(compareFindings);
  return {
    round,
    critic_id: criticId,
    commit,
    findings: ranked.slice(0, MAX_REPORTED_FINDINGS),
    truncated: ranked.length > MAX_REPORTED_FINDINGS,
    duration_ms: Math.round(durationMs),
    ...(extras.coverage === undefined || extras.coverage === null ? {} : { coverage: extras.coverage }),
    ...(extras.suppressed === undefined || extras.suppressed.length === 0
      ? {}
      : { suppressed: extras.suppressed.slice(0, MAX_REPORTED_FINDINGS) }),
    ...(extras.repo_config === undefined ? {} : { repo_config: extras.repo_config }),
  };
}

/**
 * A critic's answer to a round (pure: the producer and time are passed in): FindingsReported for a
 * critic that ran, CriticFailed with the reason otherwise — never "0 findings" for one that did not.
 * The one way an answer is made: critic services (answerRound) and the critic-runner both call it,
 * so both answer under reportEventId and the journal keeps the first (isFirstAnswer, libs/domain).
 */
export function answerEvent(
  round: RoundStarted,
  dispatched: DispatchedCritic,
  result: CriticRunResult,
  meta: { readonly producer: string; readonly now: string },
  /** The repository's configuration applied to the findings (suppressions, severity overrides), when it was read. */
  applyRepo: (findings: readonly Finding[]) => {
    readonly findings: readonly Finding[];
    readonly suppressed: readonly Suppression[];
    readonly repo_config?: RepoConfigEffect | undefined;
  } | null = () => null,
  options: AnswerOptions = {},
): EventOf<'FindingsReported'> | EventOf<'CriticFailed'> {
  const m = {
    plan: round.plan,
    run_id: round.correlation_id,
    causation_id: round.event_id,
    producer: meta.producer,
    now: meta.now,
  };
  const idParts = ['report', round.data.round, dispatched.critic_id];
  if (result.status === 'reported') {
    const repo = applyRepo(result.findings);
    const findings = repo === null ? result.findings : repo.findings;
    const extras: ReportExtras =
      repo === null
        ? { coverage: result.coverage }
        : { coverage: result.coverage, suppressed: repo.suppressed, repo_config: repo.repo_config };
    return decisionEvent(
      'FindingsReported',
      m,
      idParts,
      reportData(round.data.round, dispatched.critic_id, round.data.commit, findings, result.duration_ms, extras),
    );
  }
  return decisionEvent('CriticFailed', m, idParts, {
    round: round.data.round,
    critic_id: dispatched.critic_id,
    core: dispatched.core,
    reason: options.reasonOf?.(result) ?? result.reason,
    message: (options.redact?.(result.message) ?? result.message).slice(0, 4000),
    duration_ms: Math.round(result.duration_ms),
    ...(result.coverage === null ? {} : { coverage: result.coverage }),
  });
}
