import { setTimeout as sleep } from 'node:timers/promises';
import { ulid } from 'ulid';
import {
  type EventOf,
  IllegalStateError,
  NotFoundError,
  type RloopEvent,
  TransientError,
  currentVersion,
} from '@rloop/contracts';
import { type LoopState, TERMINAL_STATUSES } from '@rloop/domain';
import type { JournalClient } from './journal-client.js';

/**
 * A person's decision on a loop — resume or stop — recorded the same way wherever it is made
 * (`rloop resume`/`rloop stop`, the console's buttons): checked against the journal's loop state,
 * published as LoopResumed/LoopStopped, and answered only once the journal has folded it.
 */
export interface LoopControlPorts {
  readonly journal: JournalClient;
  readonly publish: (event: RloopEvent) => Promise<unknown>;
  /** The event's `producer`, e.g. `cli@host:1234` or `console@host:1234`. */
  readonly producer: string;
  /** How long to wait for the journal to record the decision (default 15 s). */
  readonly journaledTimeoutMs?: number;
}

export const LOOP_CONTROL_CODES = {
  notFound: 'LOOP.NOT_FOUND',
  notEscalated: 'LOOP.NOT_ESCALATED',
  ended: 'LOOP.ENDED',
  notJournaled: 'LOOP.NOT_JOURNALED',
} as const;

type RunningLoop = LoopState & { run_id: string };

async function loopOf(journal: JournalClient, slug: string): Promise<RunningLoop> {
  const { state } = await journal.loopState(slug);
  if (state === null || state.run_id === null)
    throw new NotFoundError(LOOP_CONTROL_CODES.notFound, `no plan ${slug} in the journal`);
  return state as RunningLoop;
}

/** Waits (briefly) until the journal has folded the decision, so the answer is what happened. */
async function journaled(
  ports: LoopControlPorts,
  slug: string,
  check: (state: LoopState) => boolean,
  what: string,
): Promise<LoopState> {
  const timeoutMs = ports.journaledTimeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { state } = await ports.journal.loopState(slug);
    if (state !== null && check(state)) return state;
    if (Date.now() > deadline)
      throw new TransientError(
        LOOP_CONTROL_CODES.notJournaled,
        `${what}: published, but the journal has not recorded it within ${Math.round(timeoutMs / 1000)} s — is the journal running? (\`rloop status ${slug}\`)`,
      );
    // Polling the journal's reply is the only view of what got committed.
    await sleep(100);
  }
}

function envelope<T extends 'LoopResumed' | 'LoopStopped'>(
  type: T,
  state: RunningLoop,
  causation: string | null,
  producer: string,
  data: EventOf<T>['data'],
): EventOf<T> {
  return {
    event_id: ulid(),
    type,
    schema_version: currentVersion(type),
    plan: state.plan,
    correlation_id: state.run_id,
    causation_id: causation,
    occurred_at: new Date().toISOString(),
    producer: producer.slice(0, 200),
    data,
  } as EventOf<T>;
}

export interface ResumeDecision {
  readonly by: string;
  readonly note?: string;
  /** Extra rounds for the current phase beyond its soft cap. */
  readonly raiseCap?: number;
}

/** Lets an escalated loop go on: records LoopResumed; the panel then starts the next round. */
export async function resumeLoop(
  ports: LoopControlPorts,
  slug: string,
  decision: ResumeDecision,
): Promise<{ readonly event: EventOf<'LoopResumed'>; readonly was: LoopState; readonly now: LoopState }> {
  const state = await loopOf(ports.journal, slug);
  if (state.status !== 'escalated' || state.escalation === null) {
    const ended = TERMINAL_STATUSES.has(state.status);
    throw new IllegalStateError(
      ended ? LOOP_CONTROL_CODES.ended : LOOP_CONTROL_CODES.notEscalated,
      `${slug} is ${state.status}, not escalated: there is nothing to resume${ended ? ' (the loop has ended; submit the plan again for a new run)' : ''}`,
    );
  }
  const escalationId = state.escalation.escalation_id;
  const [open] = await ports.journal.escalations({ plan: slug, open: true, limit: 1 });
  const cause = typeof open?.event['event_id'] === 'string' ? open.event['event_id'] : null;
  const event = envelope('LoopResumed', state, cause, ports.producer, {
    escalation_id: escalationId,
    by: decision.by.slice(0, 200),
    ...(decision.note === undefined || decision.note === '' ? {} : { note: decision.note.slice(0, 4000) }),
    ...(decision.raiseCap === undefined ? {} : { raise_cap: decision.raiseCap }),
  });
  await ports.publish(event);
  const now = await journaled(
    ports,
    slug,
    (s) => s.run_id === state.run_id && s.status !== 'escalated',
    `resuming ${slug}`,
  );
  return { event, was: state, now };
}

/** Ends a loop that has not ended: records LoopStopped; nothing more is started for it. */
export async function stopLoop(
  ports: LoopControlPorts,
  slug: string,
  decision: { readonly by: string; readonly note?: string },
): Promise<{ readonly event: EventOf<'LoopStopped'>; readonly was: LoopState }> {
  const state = await loopOf(ports.journal, slug);
  if (TERMINAL_STATUSES.has(state.status))
    throw new IllegalStateError(
      LOOP_CONTROL_CODES.ended,
      `${slug} has already ended (${state.status}): there is nothing to stop`,
    );
  const event = envelope('LoopStopped', state, state.last_event_id, ports.producer, {
    by: decision.by.slice(0, 200),
    ...(decision.note === undefined || decision.note === '' ? {} : { note: decision.note.slice(0, 4000) }),
  });
  await ports.publish(event);
  await journaled(ports, slug, (s) => s.run_id === state.run_id && s.status === 'stopped', `stopping ${slug}`);
  return { event, was: state };
}
