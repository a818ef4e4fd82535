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
import { DEFAULT_UNSERVED_FIX_POLICY, decideUnservedFix } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import type { PanelConfig } from '../config.js';
import { PANEL_CONFIG } from '../tokens.js';

/** Past the deadline, the timer fires this much later (a fix journaled right at the deadline is seen first). */
const SLACK_MS = 100;

/**
 * The guard is the backstop: it looks one longest retry interval after the deadline, so an
 * implementer that keeps failing (it escalates at the deadline itself, saying why) goes first and
 * the guard only speaks when no implementer answered at all.
 */
export const GUARD_GRACE_MS = DEFAULT_UNSERVED_FIX_POLICY.retry_max_ms;

/**
 * The guard of a fix nobody serves: when no implementer answers a FixRequested at all (none is
 * running, or every one fails before it can say so), the plan would wait in "fixing" forever. The
 * announcement that carried the FixRequested is parked until RLOOP_FIX_DEADLINE_MS (plus a grace)
 * after the letter (a RetryLaterError: a durable timer that survives restarts); what it decides then comes
 * from the journal's committed state — a fix applied meanwhile, or a run that moved on or ended,
 * gets nothing — and past the deadline it raises the same EscalationRaised (reason
 * implementer_failed) an implementer would, so the two never escalate twice.
 */
@Controller()
export class FixDeadlineController {
  private readonly log = new Logger('FixDeadline');

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
    @Inject(PANEL_CONFIG) private readonly config: PanelConfig,
  ) {}

  @OnEvent('JournalCommitted', { name: 'panel-fix-deadline' })
  async onCommitted(event: EventOf<'JournalCommitted'>, delivery: EventContext): Promise<void> {
    const requested = event.data.events.find((e) => e.type === 'FixRequested');
    if (event.plan.startsWith('_') || requested === undefined) return;
    // A redelivery is the timer firing: the state it carries is old by now, so the journal's is read.
    const { state } = await this.journal.loopStateAt(event, { fresh: delivery.deliveries > 1 });
    if (state === null || state.run_id === null || (event.data.run_id !== null && event.data.run_id !== state.run_id))
      return;
    const now = this.clock.now();
    const meta = {
      plan: state.plan,
      run_id: state.run_id,
      causation_id: requested.event_id,
      producer: this.identity.producer,
      now: now.toISOString(),
    };
    // One look at the deadline itself (not the implementer's backoff): the guard only acts when nobody else did.
    const deadline = this.config.fixDeadlineMs + GUARD_GRACE_MS;
    const decision = decideUnservedFix(
      state,
      { now_ms: now.getTime(), attempts: 1, failure: null },
      { deadline_ms: deadline, retry_initial_ms: deadline, retry_max_ms: deadline },
      meta,
    );
    if (decision.kind === 'served') return;
    if (decision.kind === 'retry')
      throw new RetryLaterError(
        decision.after_ms + SLACK_MS,
        `round ${state.current?.round ?? '?'} of ${state.plan} waits for its fix`,
      );
    this.log.warn(
      `${state.plan}: no fix for round ${state.current?.round ?? '?'} within ${deadline} ms of its letter; escalating`,
    );
    await this.publisher.publish(decision.event);
  }
}
