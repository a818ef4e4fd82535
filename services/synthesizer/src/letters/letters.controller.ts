import { Controller, Inject } from '@nestjs/common';
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
import {
  decideRoundClosure,
  decisionEvent,
  deterministicId,
  openRound,
  roundReports,
  stampDecision,
  synthesizeLetter,
} from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import type { SynthesizerConfig } from '../config.js';
import { SYNTHESIZER_CONFIG } from '../tokens.js';

/** The events that can complete a round (or start its deadline timer); other commits are skipped without a journal read. */
const ROUND_EVENTS: ReadonlySet<string> = new Set(['RoundStarted', 'FindingsReported', 'CriticFailed']);

/**
 * Writes each round's letter once the round is complete (libs/domain round/round-closure.ts:
 * every dispatched critic has answered, or the deadline passed and each silent critic gets a
 * CriticFailed `timed_out` first — never a "0 findings"). Reacts to
 * the journal's commits only; the deadline timer is the announcement of the round's start,
 * redelivered by JetStream at the deadline (a RetryLaterError), so it survives restarts. What it
 * decides at the deadline comes from the journal's state then — never from the state the
 * redelivered announcement carries — so a round that has finished (or a run that has ended) gets
 * nothing late. Its decisions are stamped with the version they were decided on.
 */
@Controller()
export class LettersController {
  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
    @Inject(SYNTHESIZER_CONFIG) private readonly config: SynthesizerConfig,
  ) {}

  @OnEvent('JournalCommitted', { name: 'synthesizer-letters' })
  async onCommitted(event: EventOf<'JournalCommitted'>, delivery: EventContext): Promise<void> {
    if (
      event.plan.startsWith('_') ||
      !(event.data.refused.length > 0 || event.data.events.some((e) => ROUND_EVENTS.has(e.type)))
    )
      return;
    // A redelivery is the deadline timer firing (or a message a crashed replica held): its carried state is old by now.
    const { state } = await this.journal.loopStateAt(event, { fresh: delivery.deliveries > 1 });
    const current = openRound(state);
    if (state === null || state.run_id === null || current === null) return;
    if (event.data.run_id !== null && event.data.run_id !== state.run_id) return;
    const now = this.clock.now();
    const meta = {
      plan: state.plan,
      run_id: state.run_id,
      causation_id: current.started_event_id,
      producer: this.identity.producer,
      now: now.toISOString(),
    };
    const closure = decideRoundClosure(current, now.getTime(), meta);
    if (closure.kind === 'waiting') {
      // One timer per round: the announcement that carried the RoundStarted comes back at the deadline.
      if (event.data.events.some((e) => e.event_id === current.started_event_id))
        throw new RetryLaterError(
          closure.waitMs + 100,
          `round ${current.round} of ${state.plan} waits for ${closure.missing.length} critic(s)`,
        );
      return;
    }
    if (closure.kind === 'timed_out') {
      for (const failed of stampDecision(closure.failures, state.version)) await this.publisher.publish(failed);
      return;
    }
    const { entries } = await this.journal.events(state.plan, { fromPosition: current.started_position });
    const { reports, lastAt } = roundReports(
      current,
      state.run_id,
      entries.map((e) => e.event),
    );
    const letterId = deterministicId(state.plan, state.run_id, 'letter', current.round);
    const letter = synthesizeLetter({
      letter_id: letterId,
      plan: state.plan,
      run_id: state.run_id,
      round: current.round,
      phase: current.phase,
      k: current.k,
      commit: current.commit,
      mode: current.mode,
      created_at: lastAt,
      reports,
      known_conflicts: this.config.knownConflicts,
    });
    const [written] = stampDecision(
      [decisionEvent('LetterWritten', meta, ['letter', current.round], { letter })],
      state.version,
    );
    if (written !== undefined) await this.publisher.publish(written);
  }
}
