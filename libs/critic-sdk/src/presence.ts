import { Logger, type LoggerService } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  CRITIC_HEALTH_DEFAULTS,
  type CriticHealthEntry,
  type EventPublisher,
  type KvBucket,
  criticHealthKey,
  effectiveHeartbeatMs,
  encodeCriticHealthEntry,
  openCriticHealthBucket,
} from '@rloop/bus';
import { type EventOf, type Phase, RESERVED_PLAN_KEYS, currentVersion, describeError } from '@rloop/contracts';
import { ulid } from 'ulid';

/** What a critic announces about itself. */
export interface AnnouncedCritic {
  readonly id: string;
  readonly evidence: string;
  readonly description: string;
  readonly triggers: readonly string[];
  readonly phases: readonly Phase[];
  readonly timeoutMs: number;
}

export interface CriticPresenceOptions {
  readonly connection: NatsConnection;
  readonly publisher: EventPublisher;
  readonly namespace: string;
  /** The critics this process answers for (critic-runner hosts several). */
  readonly critics: readonly AnnouncedCritic[];
  /** This process: one registry entry per critic and instance. */
  readonly instanceId: string;
  /** The envelopes' producer, e.g. `critic:team/no-todo@host:123`. */
  readonly producer: string;
  /** Asked for; shortened when the registry bucket's TTL is shorter than three of them. */
  readonly heartbeatIntervalMs?: number;
  /** The registry bucket's copies on a cluster (RLOOP_STREAM_REPLICAS); unset leaves an existing bucket's. */
  readonly replicas?: number | null;
  readonly version?: string;
  /** Rounds being worked on now, per critic (reported in heartbeats). */
  readonly inFlight?: (criticId: string) => number;
  readonly logger?: LoggerService;
  /** The clock for uptime and envelopes (tests pass their own). */
  readonly now?: () => Date;
}

type Status = EventOf<'CriticHeartbeat'>['data']['status'];

/**
 * A critic process's presence in the registry: announces each critic (CriticRegistered on the
 * critics channel), then every heartbeat interval publishes a CriticHeartbeat and rewrites the
 * instance's entry in the health bucket, which expires a few intervals after the process goes
 * quiet. `withdraw()` says "draining" and removes the entries at once, so the panel stops
 * dispatching to this instance before it stops.
 */
export class CriticPresence {
  private readonly registrations = new Map<string, EventOf<'CriticRegistered'>>();
  private readonly started: number;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private withdrawn = false;
  private readonly log: LoggerService;
  private readonly now: () => Date;

  private constructor(
    private readonly options: CriticPresenceOptions,
    private readonly bucket: KvBucket,
    /** The interval actually used (see `heartbeatIntervalMs` in the options). */
    readonly heartbeatIntervalMs: number,
  ) {
    this.now = options.now ?? (() => new Date());
    this.started = this.now().getTime();
    this.log = options.logger ?? new Logger('CriticPresence');
  }

  /** Opens the registry bucket, announces every critic, writes the first heartbeat and keeps beating. */
  static async start(options: CriticPresenceOptions): Promise<CriticPresence> {
    const requested = options.heartbeatIntervalMs ?? CRITIC_HEALTH_DEFAULTS.heartbeatIntervalMs;
    const bucket = await openCriticHealthBucket(
      options.connection,
      options.namespace,
      requested,
      options.replicas ?? null,
    );
    const interval = effectiveHeartbeatMs(requested, bucket.maxAgeMs);
    const presence = new CriticPresence(options, bucket, interval);
    if (interval !== requested) {
      presence.log.warn(
        `heartbeat every ${interval} ms instead of ${requested} ms: the registry bucket ${bucket.bucket} expires entries after ${bucket.maxAgeMs} ms`,
      );
    }
    await presence.announce();
    await presence.beat();
    presence.schedule();
    return presence;
  }

  /** The critics announced, by id. */
  get critics(): readonly string[] {
    return [...this.registrations.keys()];
  }

  /** One heartbeat for every critic: the event on the critics channel and the registry entry. */
  async beat(status: Status = 'healthy'): Promise<void> {
    for (const registration of this.registrations.values()) {
      const criticId = registration.data.critic_id;
      const heartbeat: EventOf<'CriticHeartbeat'> = {
        ...this.envelope(registration.event_id),
        type: 'CriticHeartbeat',
        schema_version: currentVersion('CriticHeartbeat'),
        data: {
          critic_id: criticId,
          instance_id: this.options.instanceId,
          status,
          in_flight: this.options.inFlight?.(criticId) ?? 0,
          uptime_ms: Math.max(0, this.now().getTime() - this.started),
        },
      };
      await this.options.publisher.publish(heartbeat);
      const entry: CriticHealthEntry = { registration, heartbeat };
      if (status === 'draining') await this.bucket.delete(criticHealthKey(criticId, this.options.instanceId));
      else await this.bucket.put(criticHealthKey(criticId, this.options.instanceId), encodeCriticHealthEntry(entry));
    }
  }

  /**
   * Stops heartbeating, publishes a last "draining" heartbeat and deletes this instance's entries.
   * Idempotent. If NATS is gone the entries expire by themselves within the bucket's TTL.
   */
  async withdraw(): Promise<void> {
    if (this.withdrawn) return;
    this.withdrawn = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.beating;
    try {
      await this.beat('draining');
    } catch (error) {
      this.log.warn(
        `could not withdraw ${this.critics.join(', ')} from the registry (${describeError(error)}); the entries expire within ${this.bucket.maxAgeMs} ms`,
      );
    }
  }

  private async announce(): Promise<void> {
    for (const critic of this.options.critics) {
      const id = ulid(this.now().getTime());
      const registration: EventOf<'CriticRegistered'> = {
        ...this.envelope(id),
        event_id: id,
        type: 'CriticRegistered',
        schema_version: currentVersion('CriticRegistered'),
        data: {
          critic_id: critic.id,
          instance_id: this.options.instanceId,
          evidence: critic.evidence,
          description: critic.description.slice(0, 2000),
          triggers: [...critic.triggers],
          phases: [...critic.phases],
          timeout_ms: critic.timeoutMs,
          heartbeat_interval_ms: this.heartbeatIntervalMs,
          version: (this.options.version ?? '0.0.0').slice(0, 64),
        },
      };
      await this.options.publisher.publish(registration);
      this.registrations.set(critic.id, registration);
    }
  }

  /** Envelope fields; heartbeats belong to their registration (its id is their correlation id). */
  private envelope(registrationId: string) {
    return {
      event_id: ulid(this.now().getTime()),
      plan: RESERVED_PLAN_KEYS.critics,
      correlation_id: registrationId,
      causation_id: null,
      occurred_at: this.now().toISOString(),
      producer: this.options.producer.slice(0, 200),
    };
  }

  private schedule(delayMs: number = this.heartbeatIntervalMs): void {
    if (this.withdrawn) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      this.beating = this.beat().then(
        () => undefined,
        (error: unknown) => {
          // The bus reconnects by itself; a missed heartbeat only shortens the entry's life.
          this.log.warn(`heartbeat of ${this.critics.join(', ')} failed: ${describeError(error)}`);
        },
      );
      // At a steady rate: a beat that hung on a publish timeout (NATS restarting) must not push the
      // next one a whole interval further, or the panel would count the critics gone.
      void this.beating.finally(() => this.schedule(Math.max(0, this.heartbeatIntervalMs - (Date.now() - started))));
    }, delayMs);
    // The bus connection keeps a service alive; the heartbeat alone must not keep a finished process up.
    this.timer.unref();
  }
}
