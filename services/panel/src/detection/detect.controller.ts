import { Controller, Inject } from '@nestjs/common';
import { type EventContext, OnEvent } from '@rloop/bus';
import { type EventOf, TransientError } from '@rloop/contracts';
import { JournalClient } from '@rloop/journal-client';
import { LoopDetector } from './loop-detector.js';

/** The committed events a heuristic fires on (a letter, a fix), and a refused LoopDetected to decide again. */
const DETECTION_POINTS: ReadonlySet<string> = new Set(['LetterWritten', 'FixApplied']);

/** Whether a commit announcement can give the heuristics something new to say. */
export function isDetectionPoint(event: EventOf<'JournalCommitted'>): boolean {
  return (
    event.data.refused.some((r) => r.type === 'LoopDetected') ||
    event.data.events.some((e) => DETECTION_POINTS.has(e.type))
  );
}

/**
 * The loop-detection reactor: its own durable consumer of the journal's commit announcements
 * (`panel-detect`, its checkpoint: an announcement is acked only once its detections are
 * published), so loop detection runs whether or not the panel has a step to decide. The decider
 * asks the same LoopDetector before it decides (decide.controller.ts), so it never decides on a
 * letter or a fix whose detections are not journaled; both publish the same events.
 */
@Controller()
export class DetectController {
  constructor(
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(LoopDetector) private readonly detector: LoopDetector,
  ) {}

  @OnEvent('JournalCommitted', { name: 'panel-detect' })
  async onCommitted(event: EventOf<'JournalCommitted'>, delivery: EventContext): Promise<void> {
    if (event.plan.startsWith('_') || !isDetectionPoint(event)) return;
    const { state, version } = await this.journal.loopStateAt(event, { fresh: delivery.deliveries > 1 });
    if (state === null || (event.data.run_id !== null && state.run_id !== event.data.run_id)) return;
    if (version < event.data.stream_version) {
      throw new TransientError(
        'PANEL.STATE_BEHIND',
        `the journal's loop state of ${event.plan} is at ${version}, behind the announced ${event.data.stream_version}`,
      );
    }
    await this.detector.detect(state);
  }
}
