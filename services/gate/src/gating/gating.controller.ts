import { Controller, Inject } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventPublisher,
  SERVICE_IDENTITY,
  type ServiceIdentity,
  OnEvent,
  RetryLaterError,
} from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { decideGate, decisionEvent } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import { admitPlan } from '../intake/admit.js';
import { slugTakenIssue } from '../intake/one-run-per-slug.js';
import { decideRunScope } from '../scope/scope-lock.js';
import { GATE_CONFIG } from '../tokens.js';
import type { GateConfig } from '../config.js';

/** How soon a submission the journal has not committed yet is looked at again. */
const JOURNAL_WAIT_MS = 100;

/**
 * Spec Decision 7, acted on: every PlanSubmitted (from the request API or published directly by
 * CI or an agent) is checked again against its repository and gated: LoopGated with the verdict
 * and every rule that fired, or PlanRejected with every reason — or, when its files overlap a
 * loop admitted before it on the same repository, LoopQueued (scope locking, ../scope).
 */
@Controller()
export class GatingController {
  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(GATE_CONFIG) private readonly config: GateConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  @OnEvent('PlanSubmitted', { name: 'gate-plans', ackWaitMs: 120_000 })
  async gate(event: EventOf<'PlanSubmitted'>): Promise<void> {
    const meta = {
      plan: event.plan,
      run_id: event.event_id,
      causation_id: event.event_id,
      producer: this.identity.producer,
      now: this.clock.now().toISOString(),
    };
    // The journal's order decides between submissions racing for one slug: wait until it has this one, then see which run holds the slug.
    if (!(await this.journal.hasEvent(event.event_id)).found)
      throw new RetryLaterError(JOURNAL_WAIT_MS, `PlanSubmitted ${event.event_id} is not in the journal yet`);
    const { state } = await this.journal.loopState(event.plan);
    // Decided already (gated, queued or rejected): a redelivery must not decide it again on another admission.
    if (state !== null && state.run_id === event.event_id && state.status !== 'submitted') return;
    if (state !== null && state.run_id !== event.event_id) {
      await this.publisher.publish(
        decisionEvent('PlanRejected', meta, ['rejected'], {
          submission_id: event.data.submission_id,
          errors: [slugTakenIssue(event.plan, state)],
        }),
      );
      return;
    }
    const admitted = await admitPlan(event.data.plan, this.config);
    if (!admitted.ok) {
      await this.publisher.publish(
        decisionEvent('PlanRejected', meta, ['rejected'], {
          submission_id: event.data.submission_id,
          errors: admitted.errors,
        }),
      );
      return;
    }
    const { plan, repository, files } = admitted.admission;
    const decision = decideGate(
      { title: plan.title, description: plan.description, effort_level: plan.effort_level, files },
      this.config.triggers,
    );
    const gating = {
      verdict: decision.verdict,
      rules: decision.rules,
      commit: repository.commit,
      files: [...files],
      repo_path: repository.path,
      ...(repository.url === undefined ? {} : { repo_url: repository.url }),
      test_cmd: plan.test_cmd,
    };
    // Scope locking: it runs, or waits for (or is refused by) the loops admitted before it that share its files.
    // Decided on the run as the journal has it (its PlanSubmitted): appended only while nothing else changed it.
    const version = state?.version ?? 0;
    await decideRunScope(
      { journal: this.journal, publisher: this.publisher },
      { meta, version, submission_id: event.data.submission_id, queued_for: null },
      gating,
      this.config.scopeLock,
    );
  }
}
