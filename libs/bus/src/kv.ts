import { DiscardPolicy, JetStreamApiError, type JetStreamClient, type JetStreamManager, RetentionPolicy, StorageType, type StreamConfig, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos, headers as natsHeaders, millis } from '@nats-io/nats-core';
import { type NatsConnection } from '@nats-io/transport-node';
import { describeError } from '@rloop/contracts';
import { BUS_ERROR_CODES, BusConfigError, BusPublishError } from './errors.js';

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
      throw new BusConfigError(BUS_ERROR_CODES.invalidOptions, `invalid KV bucket name ${JSON.stringify(options.bucket)}`, [{ path: 'bucket', message: 'use [a-zA-Z0-9_-]' }]);
    }
    if (!Number.isInteger(options.maxAgeMs) || options.maxAgeMs < 100) {
      throw new BusConfigError(BUS_ERROR_CODES.invalidOptions, `KV bucket ${options.bucket}: maxAgeMs must be an integer >= 100, got ${options.maxAgeMs}`, [{ path: 'maxAgeMs', message: 'must be >= 100' }]);
    }
    const jsm = await jetstreamManager(connection);
    const js = jetstream(connection);
    const name = `KV_${options.bucket}`;
    try {
      const existing = await streamConfigOrNull(jsm, name);
      if (existing !== null) return new KvBucket(options.bucket, millis(existing.max_age), js, jsm);
      const config = bucketStreamConfig(options);
      try {
        await jsm.streams.add(config);
        return new KvBucket(options.bucket, options.maxAgeMs, js, jsm);
      } catch (error) {
        // Another process created it in the meantime: use theirs.
        if (!(error instanceof JetStreamApiError && error.code === STREAM_NAME_IN_USE)) throw error;
        const created = await jsm.streams.info(name);
        return new KvBucket(options.bucket, millis(created.config.max_age), js, jsm);
      }
    } catch (error) {
      if (error instanceof BusConfigError) throw error;
      throw new BusConfigError(BUS_ERROR_CODES.provisionFailed, `could not open KV bucket ${options.bucket}: ${describeError(error)}`, [{ path: options.bucket, message: describeError(error) }], { cause: error });
    }
  }

  /** Opens a bucket that exists, or returns null (for readers that must not create one). */
  static async find(connection: NatsConnection, bucket: string): Promise<KvBucket | null> {
    const jsm = await jetstreamManager(connection);
    const config = await streamConfigOrNull(jsm, `KV_${bucket}`);
    return config === null ? null : new KvBucket(bucket, millis(config.max_age), jetstream(connection), jsm);
  }

  /** Writes a key's value (awaiting the server's ack); returns its revision. */
  async put(key: string, value: Uint8Array): Promise<number> {
    const subject = this.subject(key);
    try {
      return (await this.js.publish(subject, value)).seq;
    } catch (error) {
      throw new BusPublishError(subject, describeError(error), { cause: error });
    }
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

  /** Every live key with its latest value (expired and deleted keys are absent), in key order. */
  async entries(): Promise<KvEntry[]> {
    const prefix = `$KV.${this.bucket}.`;
    const info = await this.jsm.streams.info(this.stream, { subjects_filter: `${prefix}>` });
    const subjects = Object.keys(info.state.subjects ?? {}).sort();
    const entries: KvEntry[] = [];
    for (const subject of subjects) {
      // A key can expire between the listing and the read: the server then has no message for it.
      const stored = await this.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
      if (stored === null) continue;
      const operation = stored.header.get('KV-Operation');
      if (operation === 'DEL' || operation === 'PURGE') continue;
      entries.push({ key: subject.slice(prefix.length), value: stored.data, revision: stored.seq, storedAt: stored.time });
    }
    return entries;
  }

  private subject(key: string): string {
    if (!KEY_PATTERN.test(key) || key.startsWith('.') || key.endsWith('.')) {
      throw new BusConfigError(BUS_ERROR_CODES.invalidOptions, `invalid KV key ${JSON.stringify(key)}`, [{ path: 'key', message: 'use [-/_=.a-zA-Z0-9], not starting or ending with a dot' }]);
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
    // Health entries are rewritten every few seconds and worthless after a restart: memory is enough.
    storage: StorageType.Memory,
    discard: DiscardPolicy.New,
    max_msgs_per_subject: 1,
    max_age: nanos(options.maxAgeMs),
    duplicate_window: nanos(Math.min(options.maxAgeMs, MAX_DUPLICATE_WINDOW_MS)),
    allow_rollup_hdrs: true,
    deny_delete: true,
    allow_direct: true,
    num_replicas: 1,
  };
}

async function streamConfigOrNull(jsm: JetStreamManager, name: string): Promise<StreamConfig | null> {
  try {
    return (await jsm.streams.info(name)).config;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return null;
    throw error;
  }
}
