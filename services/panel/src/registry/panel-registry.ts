import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  type CriticRegistrySnapshot,
  JetStreamClient,
  type KvBucket,
  type StoredHealthEntry,
  decodeCriticHealthEntry,
  openCriticHealthBucket,
  summariseRegistry,
} from '@rloop/bus';
import { TransientError, describeError } from '@rloop/contracts';
import type { PanelConfig } from '../config.js';
import { type PanelView, panelView } from '../deciding/availability.js';
import { PANEL_CONFIG } from '../tokens.js';
import { criticsAwaited } from './startup.js';

/**
 * The panel's view of the critic registry (the health bucket): read at start, refreshed in the
 * background, and read again before a decision would leave a critic out (see view()). A decision
 * takes one snapshot and stays a pure function of it.
 *
 * Start-up: critics register within their own start time, and the fleet's services start together,
 * so a panel that decided at once could fail a round "because" critic-runner was still booting. The
 * panel therefore does not bind its consumers (module init blocks) until every critic the catalogue
 * can dispatch here is alive, or the grace (RLOOP_PANEL_REGISTRY_GRACE_MS) has passed — whichever is first. After a restart
 * in a running fleet the critics are already registered and the wait is one bucket read.
 */
@Injectable()
export class PanelRegistry implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('CriticRegistry');
  private bucket: KvBucket | null = null;
  private entries: readonly StoredHealthEntry[] = [];
  private invalid: CriticRegistrySnapshot['invalid'] = [];
  private lastRead: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly reportedInvalid = new Set<string>();

  constructor(
    @Inject(JetStreamClient) private readonly client: JetStreamClient,
    @Inject(PANEL_CONFIG) private readonly config: PanelConfig,
    // Injected (not new Date()): the snapshot's health and age are judged at a time a spec can fix.
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    const { heartbeatIntervalMs, refreshMs, graceMs } = this.config.registry;
    this.bucket = await openCriticHealthBucket(
      await this.client.connect(),
      this.config.bus.namespace,
      heartbeatIntervalMs,
      this.client.options.streams.replicas,
    );
    await this.refresh();
    const started = this.clock.now().getTime();
    let missing = criticsAwaited(
      this.config.catalogue,
      this.config.anthropicConfigured,
      this.snapshot(this.clock.now()),
    );
    if (missing.length > 0 && graceMs > 0)
      this.log.log(`waiting up to ${graceMs} ms for critics to register: ${missing.join(', ')}`);
    const waited = (): number => this.clock.now().getTime() - started;
    while (missing.length > 0 && waited() < graceMs) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(refreshMs, graceMs - waited()))));
      await this.refresh();
      missing = criticsAwaited(this.config.catalogue, this.config.anthropicConfigured, this.snapshot(this.clock.now()));
    }
    if (missing.length > 0)
      this.log.warn(
        `still not registered after ${graceMs} ms (rounds will mark them unavailable): ${missing.join(', ')}`,
      );
    this.schedule();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The registry as of the last read, with health judged at `now`. */
  snapshot(now: Date): CriticRegistrySnapshot {
    return summariseRegistry(this.entries, now, this.invalid);
  }

  /**
   * What decideNext needs, from the registry. The background read may be up to `refreshMs` old, so
   * before a decision would leave out a critic the catalogue can dispatch (a CriticFailed for a core
   * critic), or when the last read is too old, the bucket is read again: a round never fails on a
   * stale snapshot. A read that fails is a retryable error (the decision is made later).
   */
  async view(now: Date): Promise<PanelView> {
    const age = this.lastRead === null ? Infinity : now.getTime() - this.lastRead;
    const missing = criticsAwaited(this.config.catalogue, this.config.anthropicConfigured, this.snapshot(now));
    if (missing.length > 0 || age > this.config.registry.maxSnapshotAgeMs) {
      try {
        await this.refresh();
      } catch (error) {
        throw new TransientError(
          'PANEL.REGISTRY_UNREADABLE',
          `cannot read the critic registry (${describeError(error)}); deciding later`,
          { cause: error },
        );
      }
    }
    return panelView(this.config.catalogue, this.config.anthropicConfigured, this.snapshot(now));
  }

  /** Core critics (the ones whose absence makes a round incomplete) with no live instance in the last read, sorted. */
  coreUnavailable(now: Date): string[] {
    const core = new Set(this.config.catalogue.core);
    return criticsAwaited(this.config.catalogue, this.config.anthropicConfigured, this.snapshot(now)).filter((id) =>
      core.has(id),
    );
  }

  private async refresh(): Promise<void> {
    if (this.bucket === null) return;
    const entries: StoredHealthEntry[] = [];
    const invalid: { key: string; issues: CriticRegistrySnapshot['invalid'][number]['issues'] }[] = [];
    for (const kv of await this.bucket.entries()) {
      const decoded = decodeCriticHealthEntry(kv.value);
      if (decoded.ok) {
        entries.push({ key: kv.key, entry: decoded.entry, storedAt: kv.storedAt });
        continue;
      }
      invalid.push({ key: kv.key, issues: decoded.issues });
      if (!this.reportedInvalid.has(kv.key)) {
        this.reportedInvalid.add(kv.key);
        this.log.warn(
          `registry entry ${kv.key} is not a critic health entry, ignored: ${decoded.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
        );
      }
    }
    this.entries = entries;
    this.invalid = invalid;
    this.lastRead = this.clock.now().getTime();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.refresh().then(
        () => this.schedule(),
        (error: unknown) => {
          this.log.warn(`reading the critic registry failed: ${describeError(error)}; retrying`);
          this.schedule();
        },
      );
    }, this.config.registry.refreshMs);
    this.timer.unref();
  }
}
