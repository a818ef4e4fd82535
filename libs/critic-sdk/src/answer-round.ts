import type { LoggerService } from '@nestjs/common';
import type { EventPublisher } from '@rloop/bus';
import { type EventOf, TransientError, describeError } from '@rloop/contracts';
import { type CriticRunResult, RepoPolicy, type RepoRoundReview, prepareRepoReview, runCritic } from '@rloop/critics';
import type { JournalClient } from '@rloop/journal-client';
import type { ServiceCritic } from './define.js';
import { answerEvent, criticCacheDir, dispatchFor, notRun, reportEventId, roundExpired } from './dispatch.js';
import { CRITIC_SDK_ERROR_CODES } from './errors.js';
import type { CheckoutProvider, ResolvedCriticServiceOptions } from './options.js';

/** What one delivery of a RoundStarted came to for this critic. */
export type DispatchOutcome = 'not_dispatched' | 'expired' | 'already_answered' | 'reported' | 'failed';

/** What answering a round needs from the running service. */
export interface Runtime {
  readonly critic: ServiceCritic;
  readonly settings: ResolvedCriticServiceOptions;
  readonly checkout: CheckoutProvider;
  readonly producer: string;
  readonly logger: LoggerService;
  /** Aborted at shutdown: reviews still running are cancelled and their rounds redelivered. */
  readonly abort: AbortController;
  /** Reviews running now (reported in heartbeats). */
  inFlight: number;
}

/**
 * What a reviewed repository may change for a critic service: the fleet's default policy
 * (config/repo-policy.yaml as shipped), since a critic service does not read the operator's config.
 */
const SERVICE_REPO_POLICY = RepoPolicy.parse({});

/**
 * Answers one delivery of a RoundStarted: skips rounds it is not on and rounds past their deadline,
 * asks the journal on a redelivery whether it already answered, checks the commit out, runs the
 * critic within the dispatch's timeout and publishes FindingsReported or CriticFailed.
 */
export async function answerRound(rt: Runtime, deps: { readonly publisher: EventPublisher; readonly journal: Pick<JournalClient, 'hasEvent'> }, event: EventOf<'RoundStarted'>, deliveries: number): Promise<DispatchOutcome> {
  const { critic, logger } = rt;
  const dispatched = dispatchFor(event, critic.id);
  if (dispatched === null) return 'not_dispatched';
  const where = `${event.plan} round ${event.data.round}`;
  if (roundExpired(event, new Date())) {
    // Its letter is written (or about to be) without this critic: a report now would change nothing.
    logger.log(`${where}: deadline ${event.data.deadline_at} has passed; not reviewing`, 'Dispatch');
    return 'expired';
  }
  if (deliveries > 1) {
    // A redelivery after a crash or a lost ack: another run may already have answered.
    const known = await deps.journal.hasEvent(reportEventId(event, critic.id)).catch((error: unknown) => {
      logger.warn(`${where}: could not ask the journal whether it was answered (${describeError(error)}); reviewing again (the answer's id is deterministic)`, 'Dispatch');
      return null;
    });
    if (known?.found === true) {
      logger.log(`${where}: already answered; nothing to do`, 'Dispatch');
      return 'already_answered';
    }
  }
  rt.inFlight += 1;
  try {
    let checkedOut: { readonly dir: string } | { readonly error: unknown };
    try {
      checkedOut = { dir: await rt.checkout(event.data, rt.settings.workRoot) };
    } catch (error) {
      checkedOut = { error };
    }
    const bound = rt.settings.maxFileBytes === null ? {} : { maxFileBytes: rt.settings.maxFileBytes };
    const repo: RepoRoundReview | null =
      'dir' in checkedOut ? prepareRepoReview(checkedOut.dir, event.data.files, SERVICE_REPO_POLICY, new Set(event.data.critics.filter((c) => c.core).map((c) => c.critic_id)), bound) : null;
    const result: CriticRunResult =
      'dir' in checkedOut
        ? await runCritic(
            critic,
            {
              repoDir: checkedOut.dir,
              commit: event.data.commit,
              files: repo?.files ?? event.data.files,
              phase: event.data.phase,
              signal: rt.abort.signal,
              cacheDir: criticCacheDir(rt.settings.workRoot, critic.id),
              now: new Date(),
            },
            { timeoutMs: dispatched.timeout_ms, core: dispatched.core, ...bound },
          )
        : notRun(critic.id, 'not_runnable', `cannot read commit ${event.data.commit} of ${event.data.repo_path} from this host: ${describeError(checkedOut.error)}`);
    // Stopped by a shutdown, not by the critic: answer nothing, so the round goes to another replica.
    if (rt.abort.signal.aborted) throw new TransientError(CRITIC_SDK_ERROR_CODES.stopping, `stopped while reviewing ${where}`);
    const now = new Date().toISOString();
    const answer = answerEvent(event, dispatched, result, { producer: rt.producer, now }, (findings) => repo?.apply(findings, now.slice(0, 10)) ?? null);
    await deps.publisher.publish(answer);
    if (answer.type === 'FindingsReported') {
      logger.log(`${where}: reported ${answer.data.findings.length} finding(s) in ${answer.data.duration_ms} ms`, 'Dispatch');
      return 'reported';
    }
    logger.warn(`${where}: ${answer.data.reason}: ${answer.data.message}`, 'Dispatch');
    return 'failed';
  } finally {
    rt.inFlight -= 1;
  }
}
