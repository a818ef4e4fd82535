import type { LoggerService } from '@nestjs/common';
import type { Clock, EventPublisher } from '@rloop/bus';
import { type DispatchedCritic, type EventOf, RloopError, TransientError, describeError } from '@rloop/contracts';
import {
  type CriticDefinition,
  type CriticRunResult,
  type RepoPolicy,
  type RepoRoundReview,
  listCheckoutFiles,
  prepareRepoReview,
  runCritic,
} from '@rloop/critics';
import { describeCoverage } from '@rloop/domain';
import type { JournalClient } from '@rloop/journal-client';
import { type AnswerOptions, answerEvent, criticCacheDir, notRun, reportEventId, roundExpired } from './dispatch.js';
import { CRITIC_SDK_ERROR_CODES } from './errors.js';
import type { CheckoutProvider } from './options.js';

/** What one delivery of a RoundStarted came to for one critic. */
export type DispatchOutcome = 'not_dispatched' | 'expired' | 'already_answered' | 'reported' | 'failed';

type RoundStarted = EventOf<'RoundStarted'>;

/** For a critic of the round: the definition to run instead of the hosted one, the result of a critic that is not run (notRun), or null for the hosted one. */
export type CriticFor = (dispatched: DispatchedCritic) => CriticDefinition | CriticRunResult | null;

/**
 * What a runner hosts and what it adds to answering a round. A critic service hosts one critic
 * (runCriticService builds this); the critic-runner hosts the fleet's built-in and LLM critics and
 * uses `prepare` and `settle` for its budget, usage records and recorded coverage.
 */
export interface RoundHost {
  /** Written into the envelope of every answer. */
  readonly producer: string;
  /** Checkouts and the critics' caches (criticCacheDir) live under it. */
  readonly workRoot: string;
  /** The operator's bound on a file's size; null: the critics' default bound. */
  readonly maxFileBytes: number | null;
  /** What a reviewed repository may change (its .rloop.yaml, .rloopignore, rloop-ignore comments). */
  readonly repoPolicy: RepoPolicy;
  /** The critic hosted here under this id; null: a round's other critics are left to their own runners. */
  critic(criticId: string): CriticDefinition | null;
  /**
   * The directory holding the round's commit: the one place a runner resolves a round's
   * repository. A TransientError is retried (the round is redelivered); any other error answers
   * each critic with CriticFailed `not_runnable`.
   */
  readonly checkout: CheckoutProvider;
  /**
   * Once per round with critics to run, before the checkout: what they share (a budget read, a
   * journal read). Returns, per dispatch, what to run instead of the hosted critic (CriticFor).
   */
  prepare?(round: RoundStarted, todo: readonly DispatchedCritic[]): Promise<CriticFor>;
  /** After a critic ran, before its answer is published: what the run spent is recorded first. */
  settle?(round: RoundStarted, dispatched: DispatchedCritic, result: CriticRunResult): Promise<void>;
  /** How failures are worded (the runner's own reasons, secrets masked). */
  readonly answer?: AnswerOptions;
}

/** What answering a round talks to. */
export interface RoundPorts {
  readonly publisher: EventPublisher;
  /** Asked on a redelivery whether a critic already answered (its answer's id is reportEventId). */
  readonly journal: Pick<JournalClient, 'hasEvent'>;
  readonly clock: Clock;
  readonly logger: LoggerService;
}

/** The delivery being answered: its attempt (1 = first) and the signal that cancels running critics at shutdown. */
export interface RoundDelivery {
  readonly deliveries: number;
  readonly signal: AbortSignal;
}

/**
 * Answers one delivery of a RoundStarted for the critics hosted here — the one way a round is
 * answered, by critic services and the critic-runner alike:
 * - a round past its deadline is not answered (the synthesizer times its silent critics out);
 * - on a redelivery, a critic whose answer the journal holds is not run again (only the first
 *   answer counts: isFirstAnswer, libs/domain);
 * - the others run in parallel on one checkout of the pinned commit, within the repository's
 *   configuration and each dispatch's timeout, with their cache in criticCacheDir;
 * - each answers FindingsReported or CriticFailed (answerEvent) under reportEventId as soon as it
 *   is done. A shutdown mid-review answers nothing (a TransientError: the round is redelivered).
 * Returns each hosted critic's outcome (empty: the round has none of them).
 */
export async function answerRound(
  host: RoundHost,
  ports: RoundPorts,
  event: RoundStarted,
  delivery: RoundDelivery,
): Promise<ReadonlyMap<string, DispatchOutcome>> {
  const { logger } = ports;
  const outcomes = new Map<string, DispatchOutcome>();
  const hosted: Hosted[] = event.data.critics.flatMap((dispatched) => {
    const critic = host.critic(dispatched.critic_id);
    return critic === null ? [] : [{ dispatched, critic }];
  });
  if (hosted.length === 0) return outcomes;
  const where = `${event.plan} round ${event.data.round}`;
  if (roundExpired(event, ports.clock.now())) {
    // Its letter is written (or about to be) without these critics: a report now would change nothing.
    logger.log(`${where}: deadline ${event.data.deadline_at} has passed; not reviewing`, 'Dispatch');
    for (const h of hosted) outcomes.set(h.dispatched.critic_id, 'expired');
    return outcomes;
  }
  const todo = delivery.deliveries > 1 ? await notYetAnswered(ports, event, hosted, where) : hosted;
  for (const h of hosted) if (!todo.includes(h)) outcomes.set(h.dispatched.critic_id, 'already_answered');
  if (todo.length === 0) {
    logger.log(`${where}: already answered; nothing to do`, 'Dispatch');
    return outcomes;
  }
  const criticFor: CriticFor =
    (await host.prepare?.(
      event,
      todo.map((h) => h.dispatched),
    )) ?? (() => null);
  const review = await reviewOf(host, event, delivery.signal).catch((error: unknown) => {
    // Stopped by a shutdown while reading the checkout: answer nothing, so the round goes to another replica.
    throw delivery.signal.aborted
      ? new TransientError(CRITIC_SDK_ERROR_CODES.stopping, `stopped while reading ${where}`, { cause: error })
      : error;
  });
  logger.log(
    `${where}: running ${todo.map((h) => h.dispatched.critic_id).join(', ')} on ${event.data.commit.slice(0, 12)}`,
    'Dispatch',
  );
  await Promise.all(
    todo.map(async ({ dispatched, critic }) => {
      const result = await resultOf(
        host,
        ports,
        event,
        delivery.signal,
        review,
        dispatched,
        criticFor(dispatched) ?? critic,
      );
      await host.settle?.(event, dispatched, result);
      const redact = host.answer?.redact ?? ((text: string) => text);
      for (const note of result.notes) logger.log(`${where}: ${dispatched.critic_id}: ${redact(note)}`, 'Dispatch');
      if (result.coverage !== null)
        logger.log(`${where}: ${dispatched.critic_id}: ${describeCoverage(result.coverage)}`, 'Dispatch');
      const now = ports.clock.now().toISOString();
      const repo = 'repo' in review ? review.repo : null;
      const answer = answerEvent(
        event,
        dispatched,
        result,
        { producer: host.producer, now },
        (findings) => repo?.apply(findings, now.slice(0, 10)) ?? null,
        host.answer,
      );
      await ports.publisher.publish(answer);
      if (answer.type === 'FindingsReported') {
        logger.log(
          `${where}: reported ${answer.data.findings.length} finding(s) of ${dispatched.critic_id} in ${answer.data.duration_ms} ms`,
          'Dispatch',
        );
        outcomes.set(dispatched.critic_id, 'reported');
      } else {
        logger.warn(`${where}: ${dispatched.critic_id} ${answer.data.reason}: ${answer.data.message}`, 'Dispatch');
        outcomes.set(dispatched.critic_id, 'failed');
      }
    }),
  );
  return outcomes;
}

/** A critic of the round hosted here, with its definition. */
interface Hosted {
  readonly dispatched: DispatchedCritic;
  readonly critic: CriticDefinition;
}

/** What one critic came to: run on the round's checkout, or not run (prepare's result, an unreadable commit, switched off by the repository). */
async function resultOf(
  host: RoundHost,
  ports: RoundPorts,
  event: RoundStarted,
  signal: AbortSignal,
  review: RoundReview,
  dispatched: DispatchedCritic,
  chosen: CriticDefinition | CriticRunResult,
): Promise<CriticRunResult> {
  if ('status' in chosen) return chosen;
  if ('error' in review)
    return notRun(
      dispatched.critic_id,
      'not_runnable',
      `cannot read commit ${event.data.commit} of ${event.data.repo_path} from this host: ${describeError(review.error)}`,
    );
  if (review.repo.criticsOff.has(dispatched.critic_id))
    return notRun(
      dispatched.critic_id,
      'not_runnable',
      "not run: switched off by the repository's .rloop.yaml (config/repo-policy.yaml allows it)",
    );
  const bound = host.maxFileBytes === null ? {} : { maxFileBytes: host.maxFileBytes };
  const result = await runCritic(
    chosen,
    {
      repoDir: review.dir,
      commit: event.data.commit,
      files: review.repo.files,
      repoFiles: review.repoFiles,
      phase: event.data.phase,
      signal,
      cacheDir: criticCacheDir(host.workRoot, dispatched.critic_id),
      now: ports.clock.now(),
    },
    { timeoutMs: dispatched.timeout_ms, core: dispatched.core, ...bound },
  );
  // Stopped by a shutdown, not by the critic: answer nothing, so the round goes to another replica.
  if (signal.aborted)
    throw new TransientError(
      CRITIC_SDK_ERROR_CODES.stopping,
      `stopped while ${dispatched.critic_id} reviewed ${event.plan} round ${event.data.round}`,
    );
  return result;
}

/** The hosted critics the journal holds no answer of (asked on a redelivery: a crash or a lost ack may have come after an answer). */
async function notYetAnswered(
  ports: RoundPorts,
  event: RoundStarted,
  hosted: readonly Hosted[],
  where: string,
): Promise<Hosted[]> {
  const known = await Promise.all(
    hosted.map(({ dispatched: c }) =>
      ports.journal.hasEvent(reportEventId(event, c.critic_id)).then(
        (answer) => answer.found,
        (error: unknown) => {
          ports.logger.warn(
            `${where}: could not ask the journal whether ${c.critic_id} answered (${describeError(error)}); reviewing again (the answer's id is deterministic)`,
            'Dispatch',
          );
          return false;
        },
      ),
    ),
  );
  return hosted.filter((_, i) => known[i] !== true);
}

type RoundReview =
  | { readonly dir: string; readonly repo: RepoRoundReview; readonly repoFiles: readonly string[] }
  | { readonly error: unknown };

/** The round's checkout, its files and the repository's configuration, read once for every critic of the round. */
async function reviewOf(host: RoundHost, event: RoundStarted, signal: AbortSignal): Promise<RoundReview> {
  let dir: string;
  try {
    dir = await host.checkout(event.data, host.workRoot);
  } catch (error) {
    if (error instanceof RloopError && error.retryable) throw error;
    return { error };
  }
  const bound = host.maxFileBytes === null ? {} : { maxFileBytes: host.maxFileBytes };
  const core = new Set(event.data.critics.filter((c) => c.core).map((c) => c.critic_id));
  const repo = prepareRepoReview(dir, event.data.files, host.repoPolicy, core, bound);
  // Listed from the checkout itself, once for every critic of the round (never from a repository
  // that holds the fleet's home: it ignores the checkout, and the critics would see no files).
  return { dir, repo, repoFiles: await listCheckoutFiles(dir, signal) };
}
