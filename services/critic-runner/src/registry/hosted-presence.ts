import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { JetStreamClient } from '@rloop/bus';
import { CriticPresence } from '@rloop/critic-sdk';
import type { CriticDefinition } from '@rloop/critics';
import { PHASES } from '@rloop/contracts';
import type { CriticRunnerConfig } from '../config.js';
import { CRITIC_RUNNER_CONFIG, HOSTED_CRITICS } from '../tokens.js';
import type { RegistrySettings } from './registry-config.js';

/** Injection token of the runner's registry settings. */
export const REGISTRY_SETTINGS = Symbol.for('rloop.critic-runner.registry');

/**
 * Registers the critics this runner hosts exactly as a critic service does (CriticRegistered, then
 * a heartbeat and a registry entry per critic every interval), so the panel dispatches to them only
 * while a runner is alive. `withdraw()` runs first on shutdown, before the runner stops pulling.
 */
@Injectable()
export class HostedCriticsPresence implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('CriticRegistry');
  private presence: CriticPresence | null = null;

  constructor(
    @Inject(JetStreamClient) private readonly client: JetStreamClient,
    @Inject(CRITIC_RUNNER_CONFIG) private readonly config: CriticRunnerConfig,
    @Inject(HOSTED_CRITICS) private readonly critics: ReadonlyMap<string, CriticDefinition>,
    @Inject(REGISTRY_SETTINGS) private readonly settings: RegistrySettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.critics.size === 0) {
      this.log.warn('the catalogue names no built-in critic this runner hosts: nothing to register');
      return;
    }
    this.presence = await CriticPresence.start({
      connection: await this.client.connect(),
      publisher: this.client,
      namespace: this.config.bus.namespace,
      critics: [...this.critics.values()].map((critic) => ({
        id: critic.id,
        evidence: this.config.catalogue.critics[critic.id]?.evidence ?? critic.evidence,
        description: critic.description,
        triggers: critic.triggers,
        // Built-in critics report every severity; the synthesizer keeps the phase's top-K.
        phases: PHASES,
        timeoutMs: this.config.catalogue.critics[critic.id]?.timeout_ms ?? critic.timeoutMs,
      })),
      instanceId: this.settings.instanceId,
      producer: this.settings.instanceId,
      heartbeatIntervalMs: this.settings.heartbeatIntervalMs,
      replicas: this.client.options.streams.replicas,
      version: this.settings.version,
      logger: this.log,
    });
    this.log.log(
      `registered ${this.presence.critics.length} hosted critic(s) as ${this.settings.instanceId} (heartbeat every ${this.presence.heartbeatIntervalMs} ms)`,
    );
  }

  /** Says "draining" and removes this runner's entries, so the panel stops dispatching to it. Idempotent. */
  async withdraw(): Promise<void> {
    await this.presence?.withdraw();
  }

  async onApplicationShutdown(): Promise<void> {
    // Normally done already (main.ts withdraws before stopping); a no-op then.
    await this.withdraw();
  }
}
