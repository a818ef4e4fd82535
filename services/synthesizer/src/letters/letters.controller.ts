import { Controller, Inject } from '@nestjs/common';
import { EVENT_PUBLISHER, type EventContext, type EventPublisher, OnEvent, RetryLaterError } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { decisionEvent, deterministicId, roundCompletion, stampDecision, synthesizeLetter } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import { roundReports } from './round-reports.js';

const PRODUCER = `synthesizer@${process.pid}`;

/** The events that can complete a round (or start its deadline timer); other commits are skipped without a journal read. */
const ROUND_EVENTS: ReadonlySet<string> = new Set(['RoundStarted', 'FindingsReported', 'CriticFailed']);

/**
 * Writes each round's letter once the round is complete (libs/domain synthesis/round-completion.ts:
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
  ) {}

  @OnEvent('JournalCommitted', { name: 'synthesizer-letters' })
  async onCommitted(event: EventOf<'JournalCommitted'>, delivery: EventContext): Promise<void> {
    if (event.plan.startsWith('_') || !(event.data.refused.length > 0 || event.data.events.some((e) => ROUND_EVENTS.has(e.type)))) return;
    // A redelivery is the deadline timer firing (or a message a crashed replica held): its carried state is old by now.
    const { state } = await this.journal.loopStateAt(event, { fresh: delivery.deliveries > 1 });
    const completion = roundCompletion(state, Date.now());
    const current = state?.current;
    if (completion.kind === 'none' || state === null || state.run_id === null || current === null || current === undefined) return;
    if (event.data.run_id !== null && event.data.run_id !== state.run_id) return;
    const meta = { plan: state.plan, run_id: state.run_id, causation_id: current.started_event_id, producer: PRODUCER, now: new Date().toISOString() };
    if (completion.kind === 'wait') {
      // One timer per round: the announcement that carried the RoundStarted comes back at the deadline.
      if (event.data.events.some((e) => e.event_id === current.started_event_id)) throw new RetryLaterError(completion.ms + 100, `round ${current.round} of ${state.plan} waits for ${completion.missing.length} critic(s)`);
      return;
    }
    if (completion.kind === 'time_out') {
      const timedOut = completion.missing.map((critic) =>
        decisionEvent('CriticFailed', meta, ['timeout', current.round, critic.critic_id], {
          round: current.round,
          critic_id: critic.critic_id,
          core: critic.core,
          reason: 'timed_out',
          message: `no report by the round's deadline ${current.deadline_at}`,
        }),
      );
      for (const failed of stampDecision(timedOut, state.version)) await this.publisher.publish(failed);
      return;
    }
    const { entries } = await this.journal.events(state.plan, { fromPosition: current.started_position });
    const { reports, lastAt } = roundReports(current, state.run_id, entries.map((e) => e.event));
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
    });
    const [written] = stampDecision([decisionEvent('LetterWritten', meta, ['letter', current.round], { letter })], state.version);
    if (written !== undefined) await this.publisher.publish(written);
  }
}
