import type { LoggerService } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { type Subjects, describeError } from '@rloop/contracts';
import { z } from 'zod';
import { decodeUtf8, encodeJson } from './codec.js';
import type { OutageRun } from './disposition.js';
import { KvBucket } from './kv.js';

/**
 * What a consumer knows about one message beyond its delivery count: how many of its deliveries
 * were not attempts (parked by a RetryLaterError, waited out through an outage), how many
 * attempts failed, and the run of transient failures it is in. Kept outside the process so that
 * a restarted service neither dead-letters a message parked many times early nor retries it
 * forever, nor lets an outage's bound start again.
 */
export interface DeliveryRecord {
  readonly parked: number;
  readonly failed: number;
  readonly outage: OutageRun | null;
}

/** Where consumers keep their delivery records (one per consumer and stream message). */
export interface DeliveryLedger {
  read(consumer: string, stream: string, seq: number): Promise<DeliveryRecord | null>;
  write(consumer: string, stream: string, seq: number, record: DeliveryRecord): Promise<void>;
  /** The message is settled (acked, dead-lettered): its record goes. */
  forget(consumer: string, stream: string, seq: number): Promise<void>;
}

/** A record older than this is dropped by the bucket: no message is parked that long between two deliveries. */
export const DELIVERY_RECORD_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const StoredRecord = z.object({
  parked: z.int().min(0),
  failed: z.int().min(0).default(0),
  outage: z.object({ failures: z.int().min(0), since_ms: z.number() }).nullable(),
});

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function keyOf(consumer: string, stream: string, seq: number): string {
  return `${consumer}.${stream}.${seq}`;
}

/** Records in the namespace's KV bucket (`<NS>_DELIVERIES`), shared by a consumer's replicas. */
export class KvDeliveryLedger implements DeliveryLedger {
  constructor(private readonly bucket: KvBucket) {}

  /** `replicas`: the bucket's copies on a cluster (RLOOP_STREAM_REPLICAS; null leaves an existing bucket's). */
  static async open(
    connection: NatsConnection,
    subjects: Subjects,
    replicas: number | null = null,
  ): Promise<KvDeliveryLedger> {
    return new KvDeliveryLedger(
      await KvBucket.open(connection, {
        bucket: subjects.deliveriesBucket,
        maxAgeMs: DELIVERY_RECORD_MAX_AGE_MS,
        description: 'deliveries of each message that were not attempts (parks, outages)',
        replicas,
      }),
    );
  }

  async read(consumer: string, stream: string, seq: number): Promise<DeliveryRecord | null> {
    const entry = await this.bucket.get(keyOf(consumer, stream, seq));
    if (entry === null) return null;
    const parsed = StoredRecord.safeParse(parseJson(decodeUtf8(entry.value)));
    // A record that does not parse counts nothing: the message's deliveries count as attempts, as without a ledger.
    if (!parsed.success) return null;
    return {
      parked: parsed.data.parked,
      failed: parsed.data.failed,
      outage:
        parsed.data.outage === null
          ? null
          : { failures: parsed.data.outage.failures, sinceMs: parsed.data.outage.since_ms },
    };
  }

  async write(consumer: string, stream: string, seq: number, record: DeliveryRecord): Promise<void> {
    const stored = {
      parked: record.parked,
      failed: record.failed,
      outage: record.outage === null ? null : { failures: record.outage.failures, since_ms: record.outage.sinceMs },
    };
    await this.bucket.put(keyOf(consumer, stream, seq), encodeJson(stored));
  }

  async forget(consumer: string, stream: string, seq: number): Promise<void> {
    await this.bucket.delete(keyOf(consumer, stream, seq));
  }
}

/** Records in this process only (tests; and the fallback when the bucket cannot be opened). */
export class MemoryDeliveryLedger implements DeliveryLedger {
  private readonly records = new Map<string, DeliveryRecord>();

  read(consumer: string, stream: string, seq: number): Promise<DeliveryRecord | null> {
    return Promise.resolve(this.records.get(keyOf(consumer, stream, seq)) ?? null);
  }

  write(consumer: string, stream: string, seq: number, record: DeliveryRecord): Promise<void> {
    this.records.set(keyOf(consumer, stream, seq), record);
    return Promise.resolve();
  }

  forget(consumer: string, stream: string, seq: number): Promise<void> {
    this.records.delete(keyOf(consumer, stream, seq));
    return Promise.resolve();
  }
}

/** The namespace's ledger, or one in memory (with a warning saying what a restart then forgets) when the bucket cannot be opened. */
export async function openDeliveryLedger(
  connection: NatsConnection,
  subjects: Subjects,
  logger: LoggerService,
  service: string,
  replicas: number | null = null,
): Promise<DeliveryLedger> {
  try {
    return await KvDeliveryLedger.open(connection, subjects, replicas);
  } catch (error) {
    logger.warn(
      `${service}: cannot open the delivery ledger ${subjects.deliveriesBucket} (${describeError(error)}); parked messages are counted in memory, so a restart counts their parks as attempts`,
      'Bus',
    );
    return new MemoryDeliveryLedger();
  }
}
