import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger, type LoggerService } from '@nestjs/common';
import {
  JetStreamClient,
  SYSTEM_CLOCK,
  criticHealthKey,
  encodeCriticHealthEntry,
  openCriticHealthBucket,
} from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { CriticCatalogue, DEFAULT_LOOP_CONFIG } from '@rloop/domain';
import { TEST_NATS_URL, type TestNats, connectTestNats, eventually, uniqueNamespace } from '@rloop/testing';
import { ulid } from 'ulid';
import type { PanelConfig, RegistrySettings } from '../config.js';
import { PanelRegistry } from './panel-registry.js';

const quiet: LoggerService = { log: () => undefined, warn: () => undefined, error: () => undefined };

const catalogue = CriticCatalogue.parse({
  k: { critical: 3, medium: 5, low: 7, final_sweep: null },
  soft_caps: { critical: 8, medium: 5, low: 3, final_sweep: 3 },
  critics: { 'team/core': { evidence: 'pattern', host: 'external' } },
  core: ['team/core'],
});

describe('PanelRegistry on the real NATS server', () => {
  const namespace = uniqueNamespace('pr');
  let nats: TestNats;
  let client: JetStreamClient;

  function config(registry: Partial<RegistrySettings>): PanelConfig {
    return {
      bus: {
        servers: [TEST_NATS_URL],
        credentials: null,
        tls: null,
        inboxPrefix: null,
        namespace,
        connect: { timeoutMs: 2_000 },
      },
      logFormat: 'plain',
      logLevel: 'info',
      ops: { http: null, tracesEndpoint: null },
      home: '/tmp',
      configDir: '/tmp',
      catalogue,
      loop: DEFAULT_LOOP_CONFIG,
      anthropicConfigured: false,
      registry: {
        heartbeatIntervalMs: 1_000,
        refreshMs: 100,
        graceMs: 5_000,
        maxSnapshotAgeMs: 60_000,
        retryWaitMs: 12_000,
        ...registry,
      },
      fixDeadlineMs: 600_000,
    };
  }

  async function register(criticId: string, instanceId: string): Promise<void> {
    const bucket = await openCriticHealthBucket(nats.connection, namespace, 1_000);
    const id = ulid();
    const envelope = {
      schema_version: 1,
      plan: '_critics',
      correlation_id: id,
      causation_id: null,
      occurred_at: new Date().toISOString(),
      producer: 'spec',
    } as const;
    const registration: EventOf<'CriticRegistered'> = {
      ...envelope,
      event_id: id,
      type: 'CriticRegistered',
      data: {
        critic_id: criticId,
        instance_id: instanceId,
        evidence: 'pattern',
        description: '',
        triggers: [],
        phases: ['critical'],
        timeout_ms: 1000,
        heartbeat_interval_ms: 1000,
        version: '1',
      },
    };
    const heartbeat: EventOf<'CriticHeartbeat'> = {
      ...envelope,
      event_id: ulid(),
      type: 'CriticHeartbeat',
      data: { critic_id: criticId, instance_id: instanceId, status: 'healthy', in_flight: 0, uptime_ms: 1 },
    };
    await bucket.put(criticHealthKey(criticId, instanceId), encodeCriticHealthEntry({ registration, heartbeat }));
  }

  beforeAll(async () => {
    // The registry logs its waits through Nest's static logger; the assertions below cover them.
    Logger.overrideLogger(false);
    nats = await connectTestNats(namespace);
    client = new JetStreamClient({ service: 'panel-spec', servers: TEST_NATS_URL, namespace }, quiet);
  });

  afterAll(async () => {
    await client.close();
    await nats.cleanup();
  });

  it('holds its start until the catalogue’s critics register (not the whole grace), then dispatches to them', async () => {
    const registry = new PanelRegistry(client, config({ graceMs: 20_000 }), SYSTEM_CLOCK);
    let started = false;
    const init = registry.onModuleInit().then(() => {
      started = true;
    });
    await eventually(
      async () => (await nats.jsm.streams.info(`KV_${nats.subjects.criticsBucket}`).catch(() => null)) !== null,
      { description: 'the bucket' },
    );
    expect(started).toBe(false);

    await register('team/core', 'i-1');
    await init;

    expect((await registry.view(new Date())).availability('team/core')).toEqual({ state: 'available' });
    registry.onApplicationShutdown();
  });

  it('starts anyway after the grace, and then marks a critic that never registered unavailable', async () => {
    const other = {
      ...catalogue,
      critics: { 'team/never': { evidence: 'x', description: '', timeout_ms: 1000, host: 'external' as const } },
      core: ['team/never'],
    };
    const withNever = new PanelRegistry(client, { ...config({ graceMs: 200 }), catalogue: other }, SYSTEM_CLOCK);
    await withNever.onModuleInit();

    expect((await withNever.view(new Date())).availability('team/never')).toEqual({
      state: 'unavailable',
      reason: 'not registered: the team/never critic service is not running (no live heartbeat)',
    });
    withNever.onApplicationShutdown();
  });

  it('reads the bucket again before leaving a critic out, so a critic that just registered is not failed on a stale read', async () => {
    const fresh = {
      ...catalogue,
      critics: { 'team/late': { evidence: 'x', description: '', timeout_ms: 1000, host: 'external' as const } },
      core: ['team/late'],
    };
    // No background refresh within the test: only the read in view() can see the registration.
    const registry = new PanelRegistry(
      client,
      { ...config({ graceMs: 0, refreshMs: 60_000 }), catalogue: fresh },
      SYSTEM_CLOCK,
    );
    await registry.onModuleInit();
    expect(registry.snapshot(new Date()).critics.some((c) => c.critic_id === 'team/late')).toBe(false);

    await register('team/late', 'i-1');

    expect((await registry.view(new Date())).availability('team/late')).toEqual({ state: 'available' });
    registry.onApplicationShutdown();
  });
});
