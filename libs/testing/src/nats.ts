import {
  type ConsumerInfo,
  type JetStreamClient,
  type JetStreamManager,
  JetStreamApiError,
  type PubAck,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { DeadLetter, type Subjects, subjectsFor } from '@rloop/contracts';
import { TEST_NATS_URL } from './environment.js';

const STREAM_NOT_FOUND = 10059;

/** One message as stored in a stream. */
export interface StoredMessage {
  readonly subject: string;
  readonly seq: number;
  readonly data: Uint8Array;
  readonly headers: Readonly<Record<string, readonly string[]>>;
  /** The payload parsed as JSON (throws when it is not). */
  json(): unknown;
}

/** A raw connection to the test NATS server, scoped to one namespace's streams. */
export interface TestNats {
  readonly connection: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly namespace: string;
  readonly subjects: Subjects;
  /** Publishes bytes or text through JetStream without any validation (e.g. garbage for dead-letter tests). */
  publishRaw(subject: string, data: string | Uint8Array, options?: { readonly msgId?: string }): Promise<PubAck>;
  /** Every message of a stream, in order; `filter` is a subject with `*` / `>` wildcards. */
  messages(stream: string, filter?: string): Promise<StoredMessage[]>;
  /** The namespace's dead letters, each checked against the contract. */
  deadLetters(): Promise<DeadLetter[]>;
  /** A durable consumer's state (ack floor, pending, redelivered). */
  consumerInfo(stream: string, durable: string): Promise<ConsumerInfo>;
  /** Deletes the namespace's streams (those that exist) and closes the connection. */
  cleanup(): Promise<void>;
}

/** True when `subject` matches a NATS subject filter with `*` and `>` wildcards. */
export function subjectMatches(filter: string, subject: string): boolean {
  const want = filter.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i += 1) {
    const token = want[i];
    if (token === '>') return have.length > i;
    if (i >= have.length || (token !== '*' && token !== have[i])) return false;
  }
  return want.length === have.length;
}

/** Deletes every stream of a namespace that exists, and its KV buckets (a KV bucket is a stream too). */
export async function deleteNamespaceStreams(jsm: JetStreamManager, namespace: string): Promise<void> {
  const subjects = subjectsFor(namespace);
  for (const stream of [
    ...Object.values(subjects.streams),
    ...[subjects.criticsBucket, subjects.deliveriesBucket, subjects.journalBucket].map((bucket) => `KV_${bucket}`),
  ]) {
    try {
      await jsm.streams.delete(stream);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND)) throw error;
    }
  }
}

/** Connects to the test NATS server (TEST_NATS_URL) for one namespace; call `cleanup()` in afterAll. */
export async function connectTestNats(namespace: string): Promise<TestNats> {
  const connection = await connect({ servers: TEST_NATS_URL, name: `test:${namespace}` });
  const jsm = await jetstreamManager(connection);
  const js = jetstream(connection);
  const subjects = subjectsFor(namespace);

  async function messages(stream: string, filter?: string): Promise<StoredMessage[]> {
    const info = await jsm.streams.info(stream);
    const stored: StoredMessage[] = [];
    if (info.state.messages === 0) return stored;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
      const msg = await jsm.streams.getMessage(stream, { seq });
      if (msg === null || (filter !== undefined && !subjectMatches(filter, msg.subject))) continue;
      const headers: Record<string, string[]> = {};
      for (const key of msg.header?.keys() ?? []) headers[key] = msg.header.values(key);
      const data = msg.data;
      stored.push({
        subject: msg.subject,
        seq: msg.seq,
        data,
        headers,
        json: () => JSON.parse(new TextDecoder().decode(data)) as unknown,
      });
    }
    return stored;
  }

  return {
    connection,
    js,
    jsm,
    namespace,
    subjects,
    publishRaw: (subject, data, options = {}) =>
      js.publish(subject, data, options.msgId === undefined ? {} : { msgID: options.msgId }),
    messages,
    deadLetters: async () => {
      try {
        return (await messages(subjects.streams.deadLetters)).map((m) => DeadLetter.parse(m.json()));
      } catch (error) {
        if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return [];
        throw error;
      }
    },
    consumerInfo: (stream, durable) => jsm.consumers.info(stream, durable),
    cleanup: async () => {
      try {
        await deleteNamespaceStreams(jsm, namespace);
      } finally {
        await connection.drain();
      }
    },
  };
}
