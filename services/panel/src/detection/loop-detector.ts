import { Inject, Injectable } from '@nestjs/common';
import { EVENT_PUBLISHER, type EventPublisher, SERVICE_IDENTITY, type ServiceIdentity } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { type DetectionCheckpoint, type LoopState, detectLoop, loopDetectedEvent, stampDecision } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import type { PanelConfig } from '../config.js';
import { PANEL_CONFIG } from '../tokens.js';

/** Statuses in which a heuristic can still stop the loop (a detection is noted only then, see noteDetection). */
const OPEN: ReadonlySet<LoopState['status']> = new Set(['reviewing', 'fixing', 'ready']);
/** Plans whose fold this process keeps; a plan forgotten (or a restart) is folded again from its run's start. */
const MAX_CHECKPOINTS = 1000;

/**
 * Loop detection as a decider: reads the run as the journal committed it, asks the domain which
 * heuristics fired and are not journaled yet (detectLoop, over the loop memory's evolve), and
 * publishes their LoopDetected stamped with the version it decided on — the same path as every
 * decision: the journal appends it only while that state holds, and a second replica or a
 * redelivery deciding the same step publishes the same event (ids from plan, run, heuristic and
 * round), which the bus or the journal drops. Each plan's fold is kept between decisions (its
 * DetectionCheckpoint), so a decision reads and folds only the events committed since the last one.
 */
@Injectable()
export class LoopDetector {
  constructor(
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(PANEL_CONFIG) private readonly config: PanelConfig,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  private readonly checkpoints = new Map<string, DetectionCheckpoint>();

  /** Publishes the LoopDetected events the committed `state` still needs; returns them (none: the heuristics have nothing to add). */
  async detect(state: LoopState): Promise<readonly EventOf<'LoopDetected'>[]> {
    if (state.run_id === null || state.round === 0 || !OPEN.has(state.status)) return [];
    const kept = this.checkpoints.get(state.plan) ?? null;
    const from = kept !== null && kept.run_id === state.run_id && kept.version <= state.version ? kept : null;
    const { entries } = await this.journal.events(state.plan, {
      runId: state.run_id,
      ...(from === null ? {} : { fromPosition: from.version + 1 }),
    });
    const { detections, checkpoint } = detectLoop(state, entries, this.config.loop, from);
    this.keep(state.plan, checkpoint);
    // The detections of one state are one decision.
    const events = stampDecision(
      detections.map((d) => loopDetectedEvent(d, this.identity.producer)),
      state.version,
    );
    for (const event of events) await this.publisher.publish(event);
    return events;
  }

  private keep(plan: string, checkpoint: DetectionCheckpoint | null): void {
    this.checkpoints.delete(plan);
    if (checkpoint === null) return;
    // Insertion order is recency: the plan decided on longest ago is forgotten first.
    this.checkpoints.set(plan, checkpoint);
    if (this.checkpoints.size > MAX_CHECKPOINTS)
      this.checkpoints.delete(this.checkpoints.keys().next().value as string);
  }
}
