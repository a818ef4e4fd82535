import { Controller, Inject } from '@nestjs/common';
import {
  BUS_REQUESTER,
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventContext,
  type EventPublisher,
  OnEvent,
  type Requester,
  RetryLaterError,
  SERVICE_IDENTITY,
  type ServiceIdentity,
} from '@rloop/bus';
import { type EventOf, type FindingTimeline, JOURNAL_QUERIES, TransientError } from '@rloop/contracts';
import {
  type LoopState,
  type PanelContext,
  decideNext,
  needsLetter,
  retryBackoffMs,
  stampDecision,
  withTimelines,
} from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import type { PanelConfig } from '../config.js';
import { PANEL_CONFIG } from '../tokens.js';
import { PanelRegistry } from '../registry/panel-registry.js';
import { LoopDetector } from '../detection/loop-detector.js';
import { retryWaitMs } from './availability.js';

/**
 * The events after which decideNext can have something new to say (see libs/domain/src/loop/decide.ts).
 * Commits of other events (reports, the panel's own decisions) are skipped without a journal read,
 * so the commits that matter are not queued behind them.
 */
const DECISION_POINTS: ReadonlySet<string> = new Set([
  'LoopGated',
  'BaselineRecorded',
  'LetterWritten',
  'FixApplied',
  'LoopResumed',
  'LoopDetected',
]);

/** Whether a commit announcement can change what the panel decides. */
export function isDecisionPoint(event: EventOf<'JournalCommitted'>): boolean {
  // A refused decision (of any decider) is decided again on the state the journal has now.
  return event.data.refused.length > 0 || event.data.events.some((e) => DECISION_POINTS.has(e.type));
}

/**
 * The round conductor. It reacts only to the journal's commit announcements, reads the plan's
 * loop state as the journal has committed it, and publishes what decideNext says — next round,
 * phase change, fix request, convergence or escalation — stamped with the version it decided on,
 * so the journal appends it only while that state holds. Decision ids are derived from the step,
 * so a second replica deciding the same step publishes a duplicate the bus and journal drop.
 */
@Controller()
export class DecideController {
  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(BUS_REQUESTER) private readonly requester: Requester,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(PANEL_CONFIG) private readonly config: PanelConfig,
    @Inject(PanelRegistry) private readonly registry: PanelRegistry,
    @Inject(LoopDetector) private readonly detector: LoopDetector,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  /**
   * The journal's timelines of the findings an escalation is about (the detection's, then the open
   * ones), with each fix attempt's diff. Only asked for when a decision escalates.
   */
  private async timelinesFor(state: LoopState): Promise<FindingTimeline[]> {
    const fingerprints = [
      ...new Set([
        ...state.detections.flatMap((d) => d.fingerprints),
        ...state.last_findings.map((f) => f.fingerprint),
      ]),
    ].slice(0, 200);
    const spec = JOURNAL_QUERIES.timelines;
    const raw = await this.requester.request(
      'journal.timelines',
      spec.request.parse({ plan: state.plan, ...(fingerprints.length === 0 ? {} : { fingerprints }) }),
    );
    return spec.reply.parse(raw).timelines;
  }

  @OnEvent('JournalCommitted', { name: 'panel-decide' })
  async onCommitted(event: EventOf<'JournalCommitted'>, delivery: EventContext): Promise<void> {
    if (event.plan.startsWith('_') || !isDecisionPoint(event)) return;
    // A redelivery (a retry held back, a message a crashed replica had) decides on the journal's state now, not the one it carries.
    const { state, version } = await this.journal.loopStateAt(event, { fresh: delivery.deliveries > 1 });
    // Commits of an older run (its late facts) change nothing for the plan's current one.
    if (state === null || (event.data.run_id !== null && state.run_id !== event.data.run_id)) return;
    if (version < event.data.stream_version) {
      throw new TransientError(
        'PANEL.STATE_BEHIND',
        `the journal's loop state of ${event.plan} is at ${version}, behind the announced ${event.data.stream_version}`,
      );
    }
    // Loop detection first (the same decision the panel-detect reactor makes, and the same events): a
    // letter or a fix whose heuristics fired is decided on once their LoopDetected is committed, whose
    // announcement is a decision point, so an escalation names the heuristic instead of asking for a fix.
    if ((await this.detector.detect(state)).length > 0) return;
    const letterId = needsLetter(state);
    const letter = letterId === null ? null : await this.journal.letterAt(event, letterId);
    const now = this.clock.now();
    const view = await this.registry.view(now);
    const ctx: PanelContext = {
      ...view,
      producer: this.identity.producer,
      now: now.toISOString(),
      letter,
      retention: this.config.loop.best_round_retention.enabled,
    };
    let decisions = decideNext(state, ctx);
    if (decisions[0]?.type === 'RoundStarted') {
      // A round run again because a core critic failed is held back: until its missing critics heartbeat
      // again (see retryWaitMs), and longer after each incomplete round in a row (config/loop.yaml retry_backoff).
      const missing = this.registry.coreUnavailable(now);
      const waitMs = retryWaitMs(state, missing, now.getTime(), this.config.registry);
      if (waitMs !== null)
        throw new RetryLaterError(
          waitMs,
          `round ${state.round} of ${state.plan} is run again once ${missing.join(', ')} heartbeat again`,
        );
      const backoffMs = retryBackoffMs(state, now.getTime(), this.config.loop.retry_backoff);
      if (backoffMs !== null)
        throw new RetryLaterError(
          backoffMs,
          `round ${state.round} of ${state.plan} is run again after ${state.incomplete_rounds} incomplete round(s) in a row`,
        );
    }
    if (decisions.some((d) => d.type === 'EscalationRaised')) {
      // The stuck-issue report carries the findings' timelines and what was tried (read only now: escalations are rare).
      decisions = withTimelines(decisions, await this.timelinesFor(state));
    }
    for (const decision of stampDecision(decisions, state.version)) await this.publisher.publish(decision);
  }
}
