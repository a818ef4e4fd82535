import { Controller, Inject } from '@nestjs/common';
import { BUS_REQUESTER, EVENT_PUBLISHER, type EventPublisher, OnEvent, type Requester } from '@rloop/bus';
import { type EventOf, TransientError } from '@rloop/contracts';
import { decideNext, needsLetter } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import type { PanelConfig } from '../config.js';
import { PANEL_CONFIG } from '../tokens.js';
import { availabilityFor } from './availability.js';

const PRODUCER = `panel@${process.pid}`;

/**
 * The round conductor. It reacts only to the journal's commit announcements, reads the plan's
 * loop state as the journal has committed it, and publishes what decideNext says — next round,
 * phase change, fix request, convergence or escalation. Decision ids are derived from the step,
 * so a second replica deciding the same step publishes a duplicate the bus and journal drop.
 */
@Controller()
export class DecideController {
  private readonly journal: JournalClient;
  private readonly availability: ReturnType<typeof availabilityFor>;

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(BUS_REQUESTER) requester: Requester,
    @Inject(PANEL_CONFIG) private readonly config: PanelConfig,
  ) {
    this.journal = new JournalClient(requester);
    this.availability = availabilityFor(config.catalogue, config.anthropicConfigured);
  }

  @OnEvent('JournalCommitted', { name: 'panel-decide' })
  async onCommitted(event: EventOf<'JournalCommitted'>): Promise<void> {
    if (event.plan.startsWith('_')) return;
    const { state, version } = await this.journal.loopState(event.plan);
    if (state === null) return;
    if (version < event.data.stream_version) {
      throw new TransientError('PANEL.STATE_BEHIND', `the journal's loop state of ${event.plan} is at ${version}, behind the announced ${event.data.stream_version}`);
    }
    const letterId = needsLetter(state);
    const letter = letterId === null ? null : await this.journal.letter(letterId);
    const decisions = decideNext(state, { catalogue: this.config.catalogue, availability: this.availability, producer: PRODUCER, now: new Date().toISOString(), letter });
    for (const decision of decisions) await this.publisher.publish(decision);
  }
}
