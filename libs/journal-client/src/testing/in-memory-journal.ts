import { type DynamicModule, Module } from '@nestjs/common';
import {
  BUS_REQUESTER,
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventPublisher,
  type PublishReceipt,
  type RequestOperation,
  type Requester,
  SERVICE_IDENTITY,
  type ServiceIdentity,
} from '@rloop/bus';
import {
  type EventOf,
  type FindingTimeline,
  type JournaledEvent,
  type RloopEvent,
  currentVersion,
  parseEventOrThrow,
} from '@rloop/contracts';
import { type LoopState, evolveLoop, initialLoopState } from '@rloop/domain';

/**
 * The journal as a handler spec meets it, in memory: the publisher and the journal client's
 * requester as ports. It folds its streams with the same domain code as the journal (evolveLoop),
 * answers loop_state, events, letter and timelines queries with the journal's reply shapes (the
 * client validates them), and records what a handler publishes without appending it — a spec
 * appends what it wants committed, and builds the JournalCommitted announcement with announce().
 */
export class InMemoryJournal implements Requester, EventPublisher {
  /** Everything the handler published, in order. */
  readonly published: RloopEvent[] = [];
  /** Operations the handler asked, in order. */
  readonly asked: string[] = [];
  private readonly streams = new Map<string, JournaledEvent[]>();
  private timelines: readonly FindingTimeline[] = [];

  /** Commits events to their plans' streams (what the real journal does when it ingests them). */
  append(...events: readonly JournaledEvent[]): this {
    for (const event of events) this.streams.set(event.plan, [...(this.streams.get(event.plan) ?? []), event]);
    return this;
  }

  /** What the timelines query answers (an empty list by default). */
  withTimelines(timelines: readonly FindingTimeline[]): this {
    this.timelines = timelines;
    return this;
  }

  /** The plan's folded state, as the journal's loop_state projection holds it. */
  state(plan: string): LoopState {
    return (this.streams.get(plan) ?? []).reduce(
      (state, event, i) => evolveLoop(state, event, i + 1),
      initialLoopState(plan),
    );
  }

  /** The journal's announcement of the plan's last `count` events (without a carried state: handlers ask for it). */
  announce(plan: string, count = 1): EventOf<'JournalCommitted'> {
    const stream = this.streams.get(plan) ?? [];
    const announced = stream.slice(-count);
    const state = this.state(plan);
    return {
      event_id: `committed-${plan}-${stream.length}`,
      type: 'JournalCommitted',
      schema_version: currentVersion('JournalCommitted'),
      plan,
      correlation_id: `committed-${plan}-${stream.length}`,
      causation_id: announced.at(-1)?.event_id ?? null,
      occurred_at: announced.at(-1)?.occurred_at ?? '2026-01-01T00:00:00.000Z',
      producer: 'journal@in-memory',
      data: {
        run_id: state.run_id,
        stream_version: stream.length,
        events: announced.map((e, i) => {
          const position = stream.length - announced.length + i + 1;
          return { event_id: e.event_id, type: e.type, stream_position: position, global_position: String(position) };
        }),
        refused: [],
      },
    };
  }

  publish(event: RloopEvent): Promise<PublishReceipt> {
    this.published.push(event);
    return Promise.resolve({ stream: 'in-memory', seq: this.published.length, duplicate: false });
  }

  request(operation: RequestOperation, body: unknown): Promise<unknown> {
    this.asked.push(operation);
    const query = body as { plan?: string; from_position?: number; letter_id?: string };
    const plan = query.plan ?? '';
    const stream = this.streams.get(plan) ?? [];
    switch (operation) {
      case 'journal.loop_state':
        return Promise.resolve({ plan, version: stream.length, state: stream.length === 0 ? null : this.state(plan) });
      case 'journal.events': {
        const from = query.from_position ?? 1;
        const events = stream
          .map((event, i) => ({ position: i + 1, global_position: String(i + 1), event }))
          .filter((e) => e.position >= from);
        return Promise.resolve({ plan, version: stream.length, events, next_position: null });
      }
      case 'journal.event': {
        // Whether an event is journaled (a redelivered handler asks before redoing work), and the event itself.
        const id = (body as { event_id?: string }).event_id;
        const stored = [...this.streams.values()].flat().find((e) => e.event_id === id);
        return Promise.resolve(
          stored === undefined ? { found: false } : { found: true, plan: stored.plan, event: stored },
        );
      }
      case 'journal.letter': {
        const written = [...this.streams.values()]
          .flat()
          .find((e) => e.type === 'LetterWritten' && e.data.letter.letter_id === query.letter_id);
        if (written?.type !== 'LetterWritten')
          return Promise.reject(
            Object.assign(new Error(`no letter ${query.letter_id ?? ''}`), { code: 'JOURNAL.NOT_FOUND' }),
          );
        return Promise.resolve({ letter: written.data.letter });
      }
      case 'journal.timelines':
        return Promise.resolve({
          plan,
          run_id: this.state(plan).run_id,
          round: this.state(plan).round,
          timelines: this.timelines,
        });
      default:
        return Promise.reject(new Error(`the in-memory journal does not answer ${operation}`));
    }
  }
}

@Module({})
class InMemoryPortsModule {}

/**
 * What startService provides around a service's module, for a Nest TestingModule: the publisher
 * and the requester (the journal client's port) answered by `journal`, a fixed clock and an identity.
 */
export function inMemoryPorts(journal: InMemoryJournal, clock: Clock, identity: ServiceIdentity): DynamicModule {
  return {
    module: InMemoryPortsModule,
    global: true,
    providers: [
      { provide: EVENT_PUBLISHER, useValue: journal },
      { provide: BUS_REQUESTER, useValue: journal },
      { provide: CLOCK, useValue: clock },
      { provide: SERVICE_IDENTITY, useValue: identity },
    ],
    exports: [EVENT_PUBLISHER, BUS_REQUESTER, CLOCK, SERVICE_IDENTITY],
  };
}

let sequence = 0;

/** A valid journaled event of `plan`'s run `runId` (validated by its contract), for specs that fill an InMemoryJournal. */
export function journaledEvent<T extends JournaledEvent['type']>(
  type: T,
  data: EventOf<T>['data'],
  envelope: { readonly plan: string; readonly runId: string; readonly at: string; readonly eventId?: string },
): EventOf<T> {
  sequence += 1;
  return parseEventOrThrow<T>(type, {
    event_id: envelope.eventId ?? `01JSPEC${String(sequence).padStart(19, '0')}`,
    type,
    schema_version: currentVersion(type),
    plan: envelope.plan,
    correlation_id: envelope.runId,
    causation_id: null,
    occurred_at: envelope.at,
    producer: 'spec',
    data,
  });
}
