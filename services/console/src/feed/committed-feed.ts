import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type Subscription } from '@nats-io/transport-node';
import { JetStreamClient } from '@rloop/bus';
import { type EventOf, parseEvent, subjectsFor } from '@rloop/contracts';

/** What the Loops page needs to redraw one row without asking again. */
export interface LoopUpdate {
  readonly plan: string;
  readonly status: string | null;
  readonly phase: string | null;
  readonly round: number | null;
  readonly findings_open: number | null;
  readonly counts: { readonly critical: number; readonly medium: number; readonly low: number } | null;
  /** Event types the journal just committed for the plan. */
  readonly types: readonly string[];
  readonly updated_at: string | null;
}

/** The update an announcement carries (its loop state as committed; nulls when it carried none). */
export function loopUpdateOf(event: EventOf<'JournalCommitted'>): LoopUpdate {
  const state = event.data.loop_state;
  const letter = state?.current?.letter ?? null;
  return {
    plan: event.plan,
    status: state?.status ?? null,
    phase: state?.phase ?? null,
    round: state?.round ?? null,
    findings_open: letter?.findings ?? null,
    counts: letter?.counts ?? null,
    types: event.data.events.map((e) => e.type),
    updated_at: state?.updated_at ?? null,
  };
}

type Listener = (update: LoopUpdate) => void;
type ResyncListener = () => void;

/**
 * The journal's committed-events feed, fanned out to the pages that are open: a plain
 * subscription to JournalCommitted (every console replica sees every announcement; nothing is
 * acked or held), validated before it is passed on. Announcements made while the connection was
 * down (a NATS node killed, a failover to another) are not replayed: after each reconnect the
 * pages are told to read again from the journal (`onResync`), so they go on from where they were.
 */
@Injectable()
export class CommittedFeed implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('CommittedFeed');
  private readonly listeners = new Set<Listener>();
  private readonly resyncListeners = new Set<ResyncListener>();
  private subscription: Subscription | null = null;

  constructor(@Inject(JetStreamClient) private readonly client: JetStreamClient) {}

  async onModuleInit(): Promise<void> {
    const connection = await this.client.connect();
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type !== 'reconnect') continue;
        for (const listener of this.resyncListeners) listener();
      }
    })();
    const subject = subjectsFor(this.client.options.namespace).eventFilter('JournalCommitted');
    this.subscription = connection.subscribe(subject, {
      callback: (error, msg) => {
        if (error !== null) {
          this.log.warn(`the committed feed failed: ${error.message}`);
          return;
        }
        let raw: unknown;
        try {
          raw = msg.json();
        } catch {
          return;
        }
        const parsed = parseEvent(raw);
        if (!parsed.ok || parsed.event.type !== 'JournalCommitted') return;
        const update = loopUpdateOf(parsed.event);
        for (const listener of this.listeners) listener(update);
      },
    });
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
    this.listeners.clear();
    this.resyncListeners.clear();
  }

  /** Calls `listener` for every announcement from now on; returns the unsubscribe. */
  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` after every reconnect to NATS (what was announced meanwhile is only in the journal); returns the unsubscribe. */
  onResync(listener: ResyncListener): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }
}
