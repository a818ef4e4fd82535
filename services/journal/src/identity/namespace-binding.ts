import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { jetstreamManager } from '@nats-io/jetstream';
import { CLOCK, type Clock, JetStreamClient, KvBucket, SERVICE_IDENTITY, type ServiceIdentity } from '@rloop/bus';
import { RloopError, describeError, subjectsFor } from '@rloop/contracts';
import type { EventStoreClient } from '@rloop/event-store';
import type { Kysely } from 'kysely';
import { ulid } from 'ulid';
import type { JournalConfig } from '../config.js';
import type { JournalTables } from '../projections/schema.js';
import { EVENT_STORE, JOURNAL_CONFIG } from '../tokens.js';
import { NamespaceClaim, decideBinding } from './binding.js';

const OWNER_KEY = 'owner';
/** The claim outlives any pause of the fleet; it is what a journal started later finds. */
const CLAIM_MAX_AGE_MS = 3650 * 24 * 60 * 60 * 1000;
const HEARTBEAT_MS = 30_000;
const LIVE_WITHIN_MS = 3 * HEARTBEAT_MS;

/** Where a journal keeps its history, for people: the embedded journal's directory, or PostgreSQL's host, port and database (never credentials). */
export function describeStore(store: JournalConfig['store']): string {
  if ('pgliteDir' in store) return `embedded journal at ${store.pgliteDir}`;
  try {
    const url = new URL(store.databaseUrl);
    return `PostgreSQL ${url.hostname}:${url.port === '' ? '5432' : url.port}${url.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/**
 * Binds this journal's identity (a row of its database) to the NATS namespace it serves, before
 * it consumes anything, says at start what it found (decideBinding), and keeps the claim fresh
 * while it runs so a second journal with another database can tell it is there.
 */
@Injectable()
export class NamespaceBinding implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('Journal');
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    @Inject(JetStreamClient) private readonly client: JetStreamClient,
    @Inject(EVENT_STORE) private readonly store: EventStoreClient,
    @Inject(JOURNAL_CONFIG) private readonly config: JournalConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_IDENTITY) private readonly service: ServiceIdentity,
  ) {}

  private get db(): Kysely<JournalTables> {
    return this.store.db as unknown as Kysely<JournalTables>;
  }

  /** This database's journal id, created the first time it starts (two replicas starting together agree on the oldest). */
  private async identity(): Promise<{ journalId: string; hasHistory: boolean }> {
    const oldest = () =>
      this.db
        .selectFrom('journal_identity')
        .select(['journal_id'])
        .orderBy('created_at')
        .orderBy('journal_id')
        .limit(1)
        .executeTakeFirst();
    if ((await oldest()) === undefined) {
      await this.db
        .insertInto('journal_identity')
        .values({
          journal_id: ulid(),
          created_at: this.clock.now().toISOString(),
          namespace: this.config.bus.namespace,
        })
        .execute();
    }
    const row = await oldest();
    if (row === undefined)
      throw new RloopError('JOURNAL.IDENTITY_MISSING', 'the journal could not record its identity');
    const events = await this.db.selectFrom('events').select('event_id').limit(1).execute();
    return { journalId: row.journal_id, hasHistory: events.length > 0 };
  }

  async onModuleInit(): Promise<void> {
    const connection = await this.client.connect();
    const subjects = subjectsFor(this.config.bus.namespace);
    const { journalId, hasHistory } = await this.identity();
    const bucket = await KvBucket.open(connection, {
      bucket: subjects.journalBucket,
      maxAgeMs: CLAIM_MAX_AGE_MS,
      description: 'the journal whose history this namespace carries',
      replicas: this.client.options.streams.replicas,
    });
    const stored = await bucket.get(OWNER_KEY);
    const parsed =
      stored === null ? null : NamespaceClaim.safeParse(JSON.parse(new TextDecoder().decode(stored.value)));
    const claim = parsed !== null && parsed.success ? parsed.data : null;
    const jsm = await jetstreamManager(connection);
    const busEvents = await jsm.streams.info(subjects.streams.events).then(
      (info) => info.state.messages,
      () => 0,
    );
    const store = describeStore(this.config.store);
    const binding = decideBinding({
      namespace: subjects.namespace,
      self: { journalId, store, hasHistory },
      claim,
      busEvents,
      nowMs: this.clock.now().getTime(),
      liveWithinMs: LIVE_WITHIN_MS,
    });
    for (const line of binding.lines) this.log.log(line);
    if (binding.action === 'refuse') throw new RloopError('JOURNAL.NAMESPACE_TAKEN', binding.lines.join(' '));
    const now = this.clock.now().toISOString();
    const claimedAt = claim?.journal_id === journalId ? claim.claimed_at : now;
    const write = async (): Promise<void> => {
      const record: NamespaceClaim = {
        journal_id: journalId,
        store,
        claimed_at: claimedAt,
        heartbeat_at: this.clock.now().toISOString(),
      };
      // Which process holds the claim, for people reading the bucket (the producer carries its pid).
      await bucket.put(
        OWNER_KEY,
        new TextEncoder().encode(JSON.stringify({ ...record, host: hostname(), producer: this.service.producer })),
      );
    };
    await write();
    await this.db
      .updateTable('journal_identity')
      .set({ namespace: subjects.namespace })
      .where('journal_id', '=', journalId)
      .execute();
    this.heartbeat = setInterval(() => {
      write().catch((error: unknown) =>
        this.log.warn(`could not refresh the namespace's journal claim: ${describeError(error)}`),
      );
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  onApplicationShutdown(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
  }
}
