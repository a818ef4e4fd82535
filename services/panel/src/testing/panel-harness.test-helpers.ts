import { Test, type TestingModule } from '@nestjs/testing';
import { type CriticCatalogue, DEFAULT_LOOP_CONFIG } from '@rloop/domain';
import { type InMemoryJournal, inMemoryPorts } from '@rloop/journal-client';
import { PanelModule } from '../app.module.js';
import type { PanelConfig } from '../config.js';
import { PanelRegistry } from '../registry/panel-registry.js';

// What the panel's handler specs share: the panel's config, a registry where every
// critic heartbeats, and the panel's module over in-memory ports with a fixed clock.

/** The panel's configuration for a spec (the default loop config, no LLM key). */
export function panelConfig(catalogue: CriticCatalogue, overrides: Partial<PanelConfig> = {}): PanelConfig {
  return {
    catalogue,
    loop: DEFAULT_LOOP_CONFIG,
    anthropicConfigured: false,
    registry: { heartbeatIntervalMs: 1000, refreshMs: 500, graceMs: 0, maxSnapshotAgeMs: 5000, retryWaitMs: 12_000 },
    ...overrides,
  } as unknown as PanelConfig;
}

/**
 * The panel's module over in-memory ports (the journal's folds, the client's reply validation),
 * the clock fixed at `now`, and a critic registry (NATS KV, covered by panel-registry.int.spec.ts)
 * in which every catalogued critic is alive.
 */
export function compilePanel(journal: InMemoryJournal, config: PanelConfig, now: string): Promise<TestingModule> {
  const aliveRegistry = {
    view: () => Promise.resolve({ catalogue: config.catalogue, availability: () => ({ state: 'available' as const }) }),
    coreUnavailable: () => [],
  };
  return Test.createTestingModule({
    imports: [
      inMemoryPorts(journal, { now: () => new Date(now) }, { service: 'panel', producer: 'panel@spec' }),
      PanelModule.forRoot(config),
    ],
  })
    .overrideProvider(PanelRegistry)
    .useValue(aliveRegistry)
    .compile();
}
