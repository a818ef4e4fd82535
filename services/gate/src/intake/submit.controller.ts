import { Controller, Inject } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventPublisher,
  SERVICE_IDENTITY,
  type ServiceIdentity,
  OnRequest,
  type RequestContext,
} from '@rloop/bus';
import { type EventOf, type Issue, RESERVED_PLAN_KEYS, Slug, type SubmitReply, currentVersion } from '@rloop/contracts';
import { TERMINAL_STATUSES, deterministicId } from '@rloop/domain';
import { JournalClient } from '@rloop/journal-client';
import { ulid } from 'ulid';
import { GATE_CONFIG } from '../tokens.js';
import type { GateConfig } from '../config.js';
import { admitPlan } from './admit.js';
import { slugTakenIssue, stateOnceJournaled } from './one-run-per-slug.js';
import { parsePlanBody } from './parse-plan.js';

/** How long a submit request waits for the journal to say whether its plan got the slug (usually milliseconds). */
const SETTLE_TIMEOUT_MS = 3_000;

/**
 * The bus API for posting a plan: a request on `<ns>.v1.plans.submit` whose body is the plan as
 * JSON. The reply names every problem, or accepts the plan and gives the event id of its
 * PlanSubmitted. A plain publish works too; a rejection then goes out as a PlanRejected event.
 */
@Controller()
export class SubmitController {
  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JournalClient) private readonly journal: JournalClient,
    @Inject(GATE_CONFIG) private readonly config: GateConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
  ) {}

  @OnRequest('plans.submit')
  async submit(body: Uint8Array, ctx: RequestContext): Promise<SubmitReply> {
    const parsed = parsePlanBody(body);
    if (!parsed.ok) return this.reject(parsed.errors, parsed.slug, ctx, undefined);
    const plan = parsed.plan;
    // A caller-chosen submission id makes the submission idempotent: same id, same event, same reply.
    const eventId =
      plan.submission_id === undefined ? ulid() : deterministicId('submission', plan.slug, plan.submission_id);
    const submissionId = plan.submission_id ?? eventId;
    if (plan.submission_id !== undefined && (await this.journal.hasEvent(eventId)).found) {
      return { status: 'accepted', plan: plan.slug, event_id: eventId, submission_id: submissionId, duplicate: true };
    }
    const { state } = await this.journal.loopState(plan.slug);
    // The same submission may have been journaled between the two reads: still a duplicate, not a second loop.
    if (state !== null && state.run_id === eventId) {
      return { status: 'accepted', plan: plan.slug, event_id: eventId, submission_id: submissionId, duplicate: true };
    }
    if (state !== null && state.run_id !== null && !TERMINAL_STATUSES.has(state.status)) {
      return this.reject([slugTakenIssue(plan.slug, state)], plan.slug, ctx, submissionId);
    }
    const admitted = await admitPlan(plan, this.config);
    if (!admitted.ok) return this.reject(admitted.errors, plan.slug, ctx, submissionId);
    const event: EventOf<'PlanSubmitted'> = {
      event_id: eventId,
      type: 'PlanSubmitted',
      schema_version: currentVersion('PlanSubmitted'),
      plan: plan.slug,
      correlation_id: eventId,
      causation_id: null,
      occurred_at: this.clock.now().toISOString(),
      producer: this.identity.producer,
      data: { plan, submission_id: submissionId },
    };
    const receipt = await this.publisher.publish(event);
    if (ctx.expectsReply) {
      // A submission racing this one may have been journaled first; the gating handler records the loser's PlanRejected.
      const settled = await stateOnceJournaled(this.journal, plan.slug, eventId, SETTLE_TIMEOUT_MS);
      if (settled !== 'pending' && settled !== null && settled.run_id !== eventId)
        return { status: 'rejected', plan: plan.slug, errors: [slugTakenIssue(plan.slug, settled)] };
    }
    return {
      status: 'accepted',
      plan: plan.slug,
      event_id: eventId,
      submission_id: submissionId,
      duplicate: receipt.duplicate,
    };
  }

  private async reject(
    errors: Issue[],
    slug: string | undefined,
    ctx: RequestContext,
    submissionId: string | undefined,
  ): Promise<SubmitReply> {
    const validSlug = slug !== undefined && Slug.safeParse(slug).success ? slug : undefined;
    if (!ctx.expectsReply) {
      // Nobody reads a reply to a plain publish: the rejection is recorded as an event instead.
      const id = ulid();
      await this.publisher.publish({
        event_id: id,
        type: 'PlanRejected',
        schema_version: currentVersion('PlanRejected'),
        plan: validSlug ?? RESERVED_PLAN_KEYS.invalid,
        correlation_id: id,
        causation_id: null,
        occurred_at: this.clock.now().toISOString(),
        producer: this.identity.producer,
        data: { errors, ...(submissionId === undefined ? {} : { submission_id: submissionId }) },
      });
    }
    return { status: 'rejected', ...(slug === undefined ? {} : { plan: slug }), errors };
  }
}
