import { Controller, Inject } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventPublisher,
  OnEvent,
  SERVICE_IDENTITY,
  type ServiceIdentity,
} from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { JournalClient } from '@rloop/journal-client';
import type { GateConfig } from '../config.js';
import { GATE_CONFIG } from '../tokens.js';
import { decideRunScope } from './scope-lock.js';

/**
 * Commits after which a queued run may be free to start: a run ended or went to people (its files
 * are released), a run was queued (the runs it names may have ended while it was being decided),
 * or the journal refused a scope decision (it was decided on a state that changed).
 */
const RELEASE_POINTS: ReadonlySet<string> = new Set([
  'LoopConverged',
  'LoopBypassed',
  'EscalationRaised',
  'LoopStopped',
  'PlanRejected',
  'LoopQueued',
]);
const SCOPE_DECISIONS: ReadonlySet<string> = new Set(['LoopGated', 'LoopQueued']);

/** Whether a commit announcement can let a queued run start. */
export function isReleasePoint(event: EventOf<'JournalCommitted'>): boolean {
  return (
    event.data.events.some((e) => RELEASE_POINTS.has(e.type)) ||
    event.data.refused.some((r) => SCOPE_DECISIONS.has(r.type))
  );
}

/**
 * Scope locking, released: when the journal commits the end of a run (or anything else that can
 * free a queued one), the gate decides every queued run again on the journal's committed state —
 * LoopGated once nothing admitted before it shares its files, or LoopQueued naming the runs it
 * still waits for. No person is needed, and nothing is held in memory: the queue is the journal's
 * open runs, and the announcement stays unacked until the decisions are published.
 */
@Controller()
export class ReleaseController {
  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(GATE_CONFIG) private readonly config: GateConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  @OnEvent('JournalCommitted', { name: 'gate-scope-release' })
  async onCommitted(event: EventOf<'JournalCommitted'>): Promise<void> {
    if (event.plan.startsWith('_') || !isReleasePoint(event)) return;
    const queued = (await this.journal.openRuns()).filter((run) => run.status === 'queued');
    for (const run of queued) {
      const { state } = await this.journal.loopState(run.plan);
      if (state === null || state.run_id !== run.run_id || state.status !== 'queued' || state.queued === null) continue;
      const meta = {
        plan: run.plan,
        run_id: run.run_id,
        causation_id: event.event_id,
        producer: this.identity.producer,
        now: this.clock.now().toISOString(),
      };
      await decideRunScope(
        { journal: this.journal, publisher: this.publisher },
        { meta, version: state.version, submission_id: state.submission_id, queued_for: state.queued.waiting_for },
        state.queued.gating,
        this.config.scopeLock,
      );
    }
  }
}
