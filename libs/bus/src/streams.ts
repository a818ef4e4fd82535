import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerInfo,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamManager,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { NoRespondersError, TimeoutError, nanos } from '@nats-io/nats-core';
import { type Subjects, describeError } from '@rloop/contracts';
import { BUS_ERROR_CODES, BusConfigError } from './errors.js';
import { type ConsumerPolicy, type StreamLimits } from './options.js';

const STREAM_NOT_FOUND = 10059;
const CONSUMER_NOT_FOUND = 10014;
const STREAM_NAME_IN_USE = 10058;
/** "JetStream system temporarily unavailable": the cluster has no meta leader for now. */
const CLUSTER_NOT_AVAILABLE = 10008;
/** How long stream and consumer management waits for a cluster to elect a leader (JetStream's elections take seconds). */
export const LEADER_WAIT_MS = 30_000;

type StreamSpec = Pick<
  StreamConfig,
  | 'name'
  | 'subjects'
  | 'storage'
  | 'retention'
  | 'discard'
  | 'duplicate_window'
  | 'max_age'
  | 'max_msgs_per_subject'
  | 'description'
> &
  Partial<Pick<StreamConfig, 'num_replicas'>>;

/** The four streams of a namespace and their limits. */
export function streamSpecs(subjects: Subjects, limits: StreamLimits): StreamSpec[] {
  const base = {
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(limits.duplicateWindowMs),
    max_msgs_per_subject: -1,
    // Unset: left as the stream has it (created with the server's default, one copy).
    ...(limits.replicas === null ? {} : { num_replicas: limits.replicas }),
  };
  return [
    {
      ...base,
      name: subjects.streams.events,
      subjects: [subjects.channelFilter('events')],
      max_age: nanos(limits.eventsMaxAgeMs),
      description: 'journaled events',
    },
    {
      ...base,
      name: subjects.streams.commits,
      subjects: [subjects.channelFilter('commits')],
      max_age: nanos(limits.commitsMaxAgeMs),
      description: 'journal commit announcements',
    },
    {
      ...base,
      name: subjects.streams.critics,
      subjects: [subjects.channelFilter('critics')],
      max_age: nanos(limits.criticsMaxAgeMs),
      max_msgs_per_subject: limits.criticsMaxMsgsPerSubject,
      description: 'critic registry traffic',
    },
    {
      ...base,
      name: subjects.streams.deadLetters,
      subjects: [subjects.deadLetterFilter],
      max_age: nanos(limits.deadLettersMaxAgeMs),
      description: 'messages consumers could not process',
    },
  ];
}

/** Whether a stream's configuration already has every value the spec sets. */
export function matchesSpec(config: StreamConfig, spec: StreamSpec): boolean {
  return (Object.keys(spec) as (keyof StreamSpec)[]).every(
    (key) => JSON.stringify(config[key] ?? null) === JSON.stringify(spec[key] ?? null),
  );
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

/**
 * Whether a JetStream API request failed because a cluster is between leaders: a stream (or the
 * meta layer) whose leader died answers nothing until the survivors elect another, which takes
 * seconds. Worth retrying; everything else is not.
 */
export function isBetweenLeaders(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    if (e instanceof TimeoutError || e instanceof NoRespondersError || isApiError(e, CLUSTER_NOT_AVAILABLE))
      return true;
  }
  return false;
}

/** Runs a JetStream management call, again while the cluster is between leaders, for up to `waitMs`. */
export async function untilLeader<T>(call: () => Promise<T>, waitMs: number = LEADER_WAIT_MS): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!isBetweenLeaders(error) || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)));
    }
  }
}

async function streamInfoOrNull(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (isApiError(error, STREAM_NOT_FOUND)) return null;
    throw error;
  }
}

/** What to say when the server refuses a replica count (a single server, or fewer nodes than copies). */
export function replicasHint(replicas: number | undefined, error: unknown): string {
  if (replicas === undefined || replicas <= 1 || !/replica|cluster|insufficient resources/i.test(describeError(error)))
    return '';
  return ` — RLOOP_STREAM_REPLICAS=${replicas} needs a JetStream cluster of at least ${replicas} nodes; use 1 on a single server`;
}

/** Creates each stream, or updates it to the wanted limits; safe to run from every replica at once. */
export async function provisionStreams(
  jsm: JetStreamManager,
  subjects: Subjects,
  limits: StreamLimits,
): Promise<StreamInfo[]> {
  const infos: StreamInfo[] = [];
  for (const spec of streamSpecs(subjects, limits)) {
    try {
      infos.push(await untilLeader(() => provisionStream(jsm, spec)));
    } catch (error) {
      throw new BusConfigError(
        BUS_ERROR_CODES.provisionFailed,
        `could not create or update stream ${spec.name}: ${describeError(error)}${replicasHint(spec.num_replicas, error)}`,
        [{ path: spec.name, message: describeError(error) }],
        { cause: error },
      );
    }
  }
  return infos;
}

async function provisionStream(jsm: JetStreamManager, spec: StreamSpec): Promise<StreamInfo> {
  const existing = await streamInfoOrNull(jsm, spec.name);
  if (existing === null) {
    try {
      return await jsm.streams.add(spec);
    } catch (error) {
      // Another replica created it in the meantime: fall through to the update.
      if (!isApiError(error, STREAM_NAME_IN_USE)) throw error;
    }
  }
  const current = existing ?? (await jsm.streams.info(spec.name));
  // Up to date already: no update, so a client allowed only to read stream info (an external
  // critic's NATS user) gets through, and replicas do not rewrite the config at every start.
  if (matchesSpec(current.config, spec)) return current;
  return jsm.streams.update(spec.name, { ...current.config, ...spec });
}

/** The consumer settings the bus owns for one handler. */
export type DurableConfig = Partial<ConsumerConfig> & { durable_name: string; filter_subject: string };

export function consumerConfig(
  durable: string,
  filter: string,
  policy: ConsumerPolicy,
  description: string,
): DurableConfig {
  return {
    durable_name: durable,
    description,
    filter_subject: filter,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(policy.ackWaitMs),
    // The bus counts deliveries itself and dead-letters past maxDeliver; a server-side limit
    // would silently stop redelivering instead.
    max_deliver: -1,
    max_ack_pending: Math.max(1_000, policy.maxBuffered * 4),
  };
}

/** Creates the durable consumer, or updates what may change; a changed filter is a start error. */
export function ensureConsumer(jsm: JetStreamManager, stream: string, config: DurableConfig): Promise<ConsumerInfo> {
  return untilLeader(() => ensureConsumerOnce(jsm, stream, config));
}

async function ensureConsumerOnce(jsm: JetStreamManager, stream: string, config: DurableConfig): Promise<ConsumerInfo> {
  let existing: ConsumerInfo | null;
  try {
    existing = await jsm.consumers.info(stream, config.durable_name);
  } catch (error) {
    if (!isApiError(error, CONSUMER_NOT_FOUND)) throw error;
    existing = null;
  }
  if (existing === null) return jsm.consumers.add(stream, config);
  if (existing.config.filter_subject !== config.filter_subject) {
    throw new BusConfigError(
      BUS_ERROR_CODES.invalidHandler,
      `consumer ${config.durable_name} on ${stream} filters ${existing.config.filter_subject ?? '(nothing)'}, the handler wants ${config.filter_subject}; pin a new name or delete the old consumer`,
      [{ path: config.durable_name, message: 'filter subject changed' }],
    );
  }
  return jsm.consumers.update(stream, config.durable_name, {
    description: config.description,
    ack_wait: config.ack_wait,
    max_deliver: config.max_deliver,
    max_ack_pending: config.max_ack_pending,
  });
}
