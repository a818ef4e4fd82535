import {
  CHANNELS,
  type Channel,
  EVENT_CATALOGUE,
  type EventType,
  type RloopEvent,
  type Subjects,
  isEventType,
  subjectToken,
} from '@rloop/contracts';

/** Tokens before an event subject's key: `<ns>.v1.<channel>.<token>`. */
const KEY_TOKEN = 4;

/** Selects every event of one channel, e.g. `channel:events` = every journaled event. */
export type ChannelSelector = `channel:${Channel}`;
/** What a consumer listens to: one event type, or a whole channel. */
export type EventSelector = EventType | ChannelSelector;

/** Every journaled event (the `events` channel), for the journal and other catch-all consumers. */
export const ALL_JOURNALED_EVENTS = 'channel:events' satisfies ChannelSelector;

/** Core request/reply operations: posting a plan, or a journal query such as `journal.status`. */
export type RequestOperation = 'plans.submit' | `journal.${string}`;

export function isChannelSelector(value: string): value is ChannelSelector {
  return value.startsWith('channel:') && (CHANNELS as readonly string[]).includes(value.slice('channel:'.length));
}

export function isEventSelector(value: unknown): value is EventSelector {
  return typeof value === 'string' && (isEventType(value) || isChannelSelector(value));
}

/** The stream and the single filter subject (NATS 2.9: one per consumer) for a selector. */
export function consumerTarget(
  subjects: Subjects,
  selector: EventSelector,
): { readonly stream: string; readonly filter: string } {
  if (isChannelSelector(selector)) {
    const channel = selector.slice('channel:'.length) as Channel;
    return { stream: subjects.streams[channel], filter: subjects.channelFilter(channel) };
  }
  return { stream: subjects.streams[EVENT_CATALOGUE[selector].channel], filter: subjects.eventFilter(selector) };
}

/**
 * The last subject token of an event: its plan, except on the critics channel, where it is the
 * critic (so the registry keeps the last few messages per critic rather than per `_critics`).
 */
export function subjectKeyOf(event: RloopEvent): string {
  if (EVENT_CATALOGUE[event.type].channel === 'critics' && 'critic_id' in event.data) return event.data.critic_id;
  return event.plan;
}

/**
 * The subject an event is published on. A critic's answers (FindingsReported, CriticFailed) end
 * with the critic: `<ns>.v1.events.findings_reported.<plan>.<critic>`, so NATS permissions can
 * bind a critic to its own reports, and a receiver that finds another critic in the envelope than
 * in the subject refuses the message (decodeEventMessage).
 */
export function subjectOf(subjects: Subjects, event: RloopEvent): string {
  if (event.type === 'FindingsReported' || event.type === 'CriticFailed')
    return subjects.event(event.type, event.plan, event.data.critic_id);
  return subjects.event(event.type, subjectKeyOf(event));
}

/** The subject of a request operation. */
export function requestSubject(subjects: Subjects, operation: RequestOperation): string {
  if (operation === 'plans.submit') return subjects.planSubmit;
  return subjects.journalQuery(operation.slice('journal.'.length));
}

export function isRequestOperation(value: unknown): value is RequestOperation {
  return (
    typeof value === 'string' &&
    (value === 'plans.submit' || (value.startsWith('journal.') && value.length > 'journal.'.length))
  );
}

/**
 * The ordering key of a message: the subject's key token, `<ns>.v1.<channel>.<token>.<key>` — the
 * plan (also for a critic's answers, whose critic comes after it), or the critic on the registry
 * channel. Other subjects (dead letters) use their last token.
 */
export function orderingKeyOf(subject: string): string {
  const tokens = subject.split('.');
  return tokens[KEY_TOKEN] ?? tokens[tokens.length - 1] ?? subject;
}

/**
 * A durable consumer name for one (service, handler): characters NATS forbids in names
 * (`.`, `*`, `>`, `/`, whitespace, …) become `_`.
 */
export function durableName(service: string, handler: string): string {
  return subjectToken(`${service}-${handler}`);
}
