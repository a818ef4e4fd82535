import { ValidationError } from './errors.js';
import { type Channel, EVENT_CATALOGUE, type EventType } from './events.js';

/** The default namespace. Tests and side-by-side environments pick their own (`RLOOP_NAMESPACE`). */
export const DEFAULT_NAMESPACE = 'rloop';
export const SUBJECT_VERSION = 'v1';

const NAMESPACE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * A critic's answers carry the critic in their subject, after the plan
 * (`<ns>.v1.events.findings_reported.<plan>.<critic>`), so a NATS permission can bind a critic's
 * identity to its own reports; receivers check that the envelope's `critic_id` is the one in the
 * subject.
 */
export const CRITIC_BOUND_EVENTS = ['FindingsReported', 'CriticFailed'] as const satisfies readonly EventType[];
export type CriticBoundEvent = (typeof CRITIC_BOUND_EVENTS)[number];

export function isCriticBound(type: EventType): type is CriticBoundEvent {
  return (CRITIC_BOUND_EVENTS as readonly EventType[]).includes(type);
}

/** Every subject and stream name for one namespace. Subjects are versioned: `<ns>.v1.…`. */
export interface Subjects {
  readonly namespace: string;
  /**
   * `<ns>.v1.events.<token>.<plan>` for journaled events (`….<plan>.<critic>` for a critic's
   * FindingsReported and CriticFailed, which need `critic`), `…commits…`, `…critics…` for the others.
   */
  event(type: EventType, planOrKey: string, critic?: string): string;
  /** A consumer filter for one event type across all plans (and, for a critic's answers, one critic or all). */
  eventFilter(type: EventType, critic?: string): string;
  /** Every subject of one channel. */
  channelFilter(channel: Channel): string;
  /** Core NATS request subject for posting a plan (reply: SubmitReply). */
  readonly planSubmit: string;
  /** Core NATS request subject for a journal query, e.g. `stream`, `status`, `letter`. */
  journalQuery(operation: string): string;
  /** Every journal query subject (`<ns>.v1.journal.*`). */
  readonly journalQueryFilter: string;
  /** Where a consumer puts messages it could not process, with the reason. */
  deadLetter(consumer: string): string;
  readonly deadLetterFilter: string;
  readonly streams: { readonly [C in Channel | 'deadLetters']: string };
  /** The KV bucket where critics keep their heartbeats (entries expire when a critic goes quiet). */
  readonly criticsBucket: string;
  /** The KV bucket where consumers keep the deliveries of each message that were not attempts (parks, outages), across restarts. */
  readonly deliveriesBucket: string;
  /** The KV bucket that records which journal the namespace's history belongs to. */
  readonly journalBucket: string;
}

/** Maps the channel of an event type to its JetStream stream. */
export function streamOf(subjects: Subjects, type: EventType): string {
  return subjects.streams[EVENT_CATALOGUE[type].channel];
}

/** Replaces characters NATS tokens and consumer names cannot hold (`.`, `*`, `>`, `/`, spaces). */
export function subjectToken(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function subjectsFor(namespace: string = DEFAULT_NAMESPACE): Subjects {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    const message = 'use 1-32 of [a-z0-9_-], starting with a letter';
    throw new ValidationError('CONTRACT.INVALID_NAMESPACE', `invalid namespace "${namespace}": ${message}`, [
      { path: 'namespace', message },
    ]);
  }
  const root = `${namespace}.${SUBJECT_VERSION}`;
  // Stream and bucket names may hold `-`; mapping it to `_` made `my-ns` and `my_ns` share streams.
  const upper = namespace.toUpperCase();
  return {
    namespace,
    event: (type, planOrKey, critic) => {
      const base = `${root}.${EVENT_CATALOGUE[type].channel}.${EVENT_CATALOGUE[type].token}.${subjectToken(planOrKey)}`;
      if (!isCriticBound(type)) return base;
      if (critic === undefined || critic === '') {
        throw new ValidationError('CONTRACT.SUBJECT_NEEDS_CRITIC', `the subject of ${type} names its critic`, [
          { path: 'critic', message: 'required' },
        ]);
      }
      return `${base}.${subjectToken(critic)}`;
    },
    eventFilter: (type, critic) => {
      const base = `${root}.${EVENT_CATALOGUE[type].channel}.${EVENT_CATALOGUE[type].token}.*`;
      return isCriticBound(type) ? `${base}.${critic === undefined ? '*' : subjectToken(critic)}` : base;
    },
    channelFilter: (channel) => `${root}.${channel}.>`,
    planSubmit: `${root}.plans.submit`,
    journalQuery: (operation) => `${root}.journal.${subjectToken(operation)}`,
    journalQueryFilter: `${root}.journal.*`,
    deadLetter: (consumer) => `${root}.dead_letters.${subjectToken(consumer)}`,
    deadLetterFilter: `${root}.dead_letters.>`,
    streams: {
      events: `${upper}_EVENTS`,
      commits: `${upper}_COMMITS`,
      critics: `${upper}_CRITICS`,
      deadLetters: `${upper}_DEAD_LETTERS`,
    },
    criticsBucket: `${upper}_CRITIC_HEALTH`,
    deliveriesBucket: `${upper}_DELIVERIES`,
    journalBucket: `${upper}_JOURNAL`,
  };
}
