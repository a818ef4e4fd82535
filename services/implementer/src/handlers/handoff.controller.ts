import { Controller, Inject, Logger } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventContext,
  type EventPublisher,
  OnEvent,
  RetryLaterError,
  SERVICE_IDENTITY,
  type ServiceIdentity,
} from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { chooseHandoffRound, decisionEvent, handoffWork, reviewedRounds } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import type { ImplementerConfig } from '../config.js';
import { handOffBranch } from '../git/handoff.js';
import { IMPLEMENTER_CONFIG } from '../tokens.js';
import { LONG_WORK } from './long-work.js';

/** The committed events after which a loop's branch is handed off. */
const HANDOFF_TRIGGERS: ReadonlySet<string> = new Set(['EscalationRaised', 'LoopStopped']);

/** A fix still in flight (a budget escalation raised from inside it) is waited for this often, this many times, before the branch is moved anyway. */
const FIX_IN_FLIGHT_RETRY_MS = 2_000;
const FIX_IN_FLIGHT_MAX_WAITS = 150;

/**
 * Best-round handoff (issue 15 §4): when the journal has committed an escalation or a stop, the
 * implementer — the owner of `rloop/<slug>` — leaves the branch at the commit of the run's best
 * round (libs/domain `chooseHandoffRound`, over the run's complete letters from the journal),
 * keeps the last commit at `refs/rloop/<slug>/last`, and journals the fact as BranchHandedOff.
 * It acts only on the run's state as committed: an escalation already resumed, or a run that
 * ended otherwise, hands nothing off.
 */
@Controller()
export class HandoffController {
  private readonly log = new Logger('Handoff');

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(IMPLEMENTER_CONFIG) private readonly config: ImplementerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  @OnEvent('JournalCommitted', { name: 'implementer-committed-handoffs', ...LONG_WORK })
  async onEnded(announcement: EventOf<'JournalCommitted'>, ctx: EventContext): Promise<void> {
    const trigger = announcement.data.events.find((e) => HANDOFF_TRIGGERS.has(e.type));
    if (announcement.plan.startsWith('_') || trigger === undefined) return;
    const { state } = await this.journal.loopStateAt(announcement, { fresh: ctx.deliveries > 1 });
    if (
      state === null ||
      state.run_id === null ||
      (announcement.data.run_id !== null && announcement.data.run_id !== state.run_id)
    )
      return;
    const work = handoffWork(state);
    if (work === null) return;
    // The fix handler works in the same worktree: never reset it under a fix that is still running.
    if (
      state.current?.fix_requested === true &&
      state.current.fix === null &&
      ctx.deliveries < FIX_IN_FLIGHT_MAX_WAITS
    ) {
      throw new RetryLaterError(
        FIX_IN_FLIGHT_RETRY_MS,
        `${work.slug} round ${state.current.round}: its fix is still running`,
      );
    }
    const { entries } = await this.journal.events(state.plan, { runId: work.runId });
    const choice = chooseHandoffRound(
      reviewedRounds(
        entries.map((e) => e.event),
        work.runId,
      ),
    );
    const data = await handOffBranch(work, choice, this.config.home);
    if (data === null) {
      this.log.warn(`${work.slug}: no branch ${work.branch} to hand off`);
      return;
    }
    this.log.log(`${work.slug}: ${work.branch} left at ${data.best_commit.slice(0, 12)} — ${data.reason}`);
    const meta = {
      plan: work.slug,
      run_id: work.runId,
      causation_id: trigger.event_id,
      producer: this.identity.producer,
      now: this.clock.now().toISOString(),
    };
    await this.publisher.publish(
      decisionEvent('BranchHandedOff', meta, ['branch-handed-off', work.trigger.event_id], data),
    );
  }
}
