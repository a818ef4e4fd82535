import {
  DiscardPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { nanos, headers as natsHeaders, millis } from '@nats-io/nats-core';
import { type NatsConnection } from '@nats-io/transport-node';
import { describeError } from '@rloop/contracts';
import { BUS_ERROR_CODES, BusConfigError, BusPublishError } from './errors.js';
import { replicasHint, untilLeader } from './streams.js';

const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;
/** NATS KV's own limit on a bucket's duplicate window (it may not exceed the bucket's max age). */
const MAX_DUPLICATE_WINDOW_MS = 2 * 60_000;
const KEY_PATTERN = /^[-/_=.a-zA-Z0-9]+$/;
const BUCKET_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** One live key of a bucket: its latest value and when the server stored it. */
export interface KvEntry {
  readonly key: string;
  readonly value: Uint8Array;
  readonly revision: number;
  /** The server's receive time of the value (its clock, not the writer's). */
  readonly storedAt: Date;
}

export interface KvBucketOptions {
  readonly bucket: string;
  /** Every value expires this long after it was written unless written again (bucket-level TTL, NATS 2.9). */
  readonly maxAgeMs: number;
  readonly description?: string;
  /**
   * Copies on a JetStream cluster (RLOOP_STREAM_REPLICAS). Given: a new bucket gets it and an
   * existing one is changed to it; unset: one copy for a new bucket, an existing one as it is.
   */
  readonly replicas?: number | null;
}

/**
 * A minimal NATS key-value bucket over plain JetStream, in the wire format of the NATS KV clients
 * (stream `KV_<bucket>`, subjects `$KV.<bucket>.<key>`, `KV-Operation: DEL` tombstones), so the
 * `nats kv` tool and clients in other languages read and write the same bucket. One value per key;
 * values expire after the bucket's max age (per-key TTL needs NATS 2.11).
 */
export class KvBucket {
  private constructor(
    readonly bucket: string,
    /** The bucket's max age as the server has it (set by whoever created the bucket first). */
    readonly maxAgeMs: number,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** How to create the bucket again if it vanishes (null for a bucket opened with find()). */
    private readonly recreate: KvBucketOptions | null,
  ) {}

  get stream(): string {
    return `KV_${this.bucket}`;
  }

  /**
   * Opens the bucket, creating it when it does not exist. An existing bucket is used as it is (its
   * max age is reported in `maxAgeMs`): writers adapt to it rather than fight over its settings.
   */
  static async open(connection: NatsConnection, options: KvBucketOptions): Promise<KvBucket> {
    if (!BUCKET_PATTERN.test(options.bucket)) {
      throw new BusConfigError(
        BUS_ERROR_CODES.invalidOptions,
        `invalid KV bucket name ${JSON.stringify(options.bucket)}`,
        [{ path: 'bucket', message: 'use [a-zA-Z0-9_-]' }],
      );
    }
    if (!Number.isInteger(options.maxAgeMs) || options.maxAgeMs < 100) {
      throw new BusConfigError(
        BUS_ERROR_CODES.invalidOptions,
        `KV bucket ${options.bucket}: maxAgeMs must be an integer >= 100, got ${options.maxAgeMs}`,
        [{ path: 'maxAgeMs', message: 'must be >= 100' }],
      );
    }
    const jsm = await jetstreamManager(connection);
    const js = jetstream(connection);
    try {
      return await untilLeader(() => KvBucket.openOnce(jsm, js, options));
    } catch (error) {
      if (error instanceof BusConfigError) throw error;
      throw new BusConfigError(
        BUS_ERROR_CODES.provisionFailed,
        `could not open KV bucket ${options.bucket}: ${describeError(error)}${replicasHint(options.replicas ?? undefined, error)}`,
        [{ path: options.bucket, message: describeError(error) }],
        { cause: error },
      );
    }
  }

  private static async openOnce(
    jsm: JetStreamManager,
    js: JetStreamClient,
    options: KvBucketOptions,
  ): Promise<KvBucket> {
    const name = `KV_${options.bucket}`;
    const existing = await streamConfigOrNull(jsm, name);
    if (existing === null)
      return new KvBucket(options.bucket, await createBucketStream(jsm, options), js, jsm, options);
    // Only the copies are brought to what this process was told: the rest of an existing bucket is used as it is.
    if (options.replicas !== undefined && options.replicas !== null && existing.num_replicas !== options.replicas) {
      await jsm.streams.update(name, { ...existing, num_replicas: options.replicas });
    }
    return new KvBucket(options.bucket, millis(existing.max_age), js, jsm, options);
  }

  /** Opens a bucket that exists, or returns null (for readers that must not create one). */
  static async find(connection: NatsConnection, bucket: string): Promise<KvBucket | null> {
    const jsm = await jetstreamManager(connection);
    const config = await streamConfigOrNull(jsm, `KV_${bucket}`);
    return config === null ? null : new KvBucket(bucket, millis(config.max_age), jetstream(connection), jsm, null);
  }

  /**
   * Writes a key's value (awaiting the server's ack); returns its revision. A bucket that has
   * vanished (a NATS server started again without its store, or a bucket deleted by hand) is
   * created again first, so heartbeats resume on their own.
   */
  async put(key: string, value: Uint8Array): Promise<number> {
    const subject = this.subject(key);
    try {
      return (await this.js.publish(subject, value)).seq;
    } catch (error) {
      if (await this.recreated().catch(() => false)) {
        try {
          return (await this.js.publish(subject, value)).seq;
        } catch (again) {
          throw new BusPublishError(subject, describeError(again), { cause: again });
        }
      }
      throw new BusPublishError(subject, describeError(error), { cause: error });
    }
  }

  /** Creates the bucket again when it no longer exists; true when it did. */
  private async recreated(): Promise<boolean> {
    if (this.recreate === null || (await streamConfigOrNull(this.jsm, this.stream)) !== null) return false;
    await createBucketStream(this.jsm, this.recreate);
    return true;
  }

  /** Removes a key now (a tombstone), rather than letting it expire. */
  async delete(key: string): Promise<void> {
    const subject = this.subject(key);
    const h = natsHeaders();
    h.set('KV-Operation', 'DEL');
    try {
      await this.js.publish(subject, new Uint8Array(0), { headers: h });
    } catch (error) {
      throw new BusPublishError(subject, describeError(error), { cause: error });
    }
  }

  /** A key's latest value, or null when it has none (never written, deleted, expired, or the bucket is gone). */
  async get(key: string): Promise<KvEntry | null> {
    const subject = this.subject(key);
    let stored;
    try {
      stored = await this.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return null;
      throw error;
    }
    if (stored === null) return null;
    const operation = stored.header.get('KV-Operation');
    if (operation === 'DEL' || operation === 'PURGE') return null;
    return { key, value: stored.data, revision: stored.seq, storedAt: stored.time };
  }

  /** Every live key with its latest value (expired and deleted keys are absent), in key order. */
  async entries(): Promise<KvEntry[]> {
    const prefix = `$KV.${this.bucket}.`;
    let info;
    try {
      info = await this.jsm.streams.info(this.stream, { subjects_filter: `${prefix}>` });
    } catch (error) {
      // Vanished: it is empty, and there again for the writers.
      if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND && (await this.recreated())) return [];
      throw error;
    }
    const subjects = Object.keys(info.state.subjects ?? {}).sort();
    const entries: KvEntry[] = [];
    for (const subject of subjects) {
      // A key can expire between the listing and the read: the server then has no message for it.
      const stored = await this.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
      if (stored === null) continue;
      const operation = stored.header.get('KV-Operation');
      if (operation === 'DEL' || operation === 'PURGE') continue;
      entries.push({
        key: subject.slice(prefix.length),
        value: stored.data,
        revision: stored.seq,
        storedAt: stored.time,
      });
    }
    return entries;
  }

  private subject(key: string): string {
    if (!KEY_PATTERN.test(key) || key.startsWith('.') || key.endsWith('.')) {
      throw new BusConfigError(BUS_ERROR_CODES.invalidOptions, `invalid KV key ${JSON.stringify(key)}`, [
        { path: 'key', message: 'use [-/_=.a-zA-Z0-9], not starting or ending with a dot' },
      ]);
    }
    return `$KV.${this.bucket}.${key}`;
  }
}

/** The stream behind a bucket, as the NATS KV clients configure it (history 1). */
export function bucketStreamConfig(options: KvBucketOptions): Partial<StreamConfig> & { name: string } {
  return {
    name: `KV_${options.bucket}`,
    subjects: [`$KV.${options.bucket}.>`],
    description: options.description ?? '',
    retention: RetentionPolicy.Limits,
    // On file, like every stream of the fleet: a NATS server started again finds the bucket (and the
    // entries still within their max age) instead of leaving every reader to "stream not found".
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    max_msgs_per_subject: 1,
    max_age: nanos(options.maxAgeMs),
    duplicate_window: nanos(Math.min(options.maxAgeMs, MAX_DUPLICATE_WINDOW_MS)),
    allow_rollup_hdrs: true,
    deny_delete: true,
    allow_direct: true,
    num_replicas: options.replicas ?? 1,
  };
}

/** Creates the bucket's stream (or finds the one another process just created); returns its max age. */
async function createBucketStream(jsm: JetStreamManager, options: KvBucketOptions): Promise<number> {
  try {
    await jsm.streams.add(bucketStreamConfig(options));
    return options.maxAgeMs;
  } catch (error) {
    // Another process created it in the meantime: use theirs.
    if (!(error instanceof JetStreamApiError && error.code === STREAM_NAME_IN_USE)) throw error;
    return millis((await jsm.streams.info(`KV_${options.bucket}`)).config.max_age);
  }
}

async function streamConfigOrNull(jsm: JetStreamManager, name: string): Promise<StreamConfig | null> {
  try {
    return (await jsm.streams.info(name)).config;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return null;
    throw error;
  }
}
