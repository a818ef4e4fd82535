import { describe, expect, it } from '@jest/globals';
import { CriticCatalogue } from '@rloop/domain';
import { criticsAwaited } from './startup.js';

const catalogue = CriticCatalogue.parse({
  k: { critical: 3, medium: 5, low: 7, final_sweep: null },
  soft_caps: { critical: 8, medium: 5, low: 3, final_sweep: 3 },
  critics: {
    'a/core': { evidence: 'x' },
    'a/llm': { evidence: 'llm', requires: 'anthropic' },
    'a/dynamic': { evidence: 'x', host: 'external' },
    'a/unused': { evidence: 'x' },
  },
  core: ['a/core', 'a/llm'],
  dynamic: [{ name: 't', globs: ['**'], critics: ['a/dynamic'] }],
});

const alive = (id: string) => ({
  critic_id: id,
  evidence: 'x',
  description: '',
  triggers: [],
  phases: ['critical' as const],
  timeout_ms: 1000,
  heartbeat_interval_ms: 1000,
  health: 'alive' as const,
  last_seen: 'x',
  instances: [],
});

describe('criticsAwaited', () => {
  it('waits for every dispatchable critic this panel can configure that is not alive yet', () => {
    expect(criticsAwaited(catalogue, false, { read_at: 'x', critics: [], invalid: [] })).toEqual([
      'a/core',
      'a/dynamic',
    ]);
    expect(criticsAwaited(catalogue, true, { read_at: 'x', critics: [alive('a/core')], invalid: [] })).toEqual([
      'a/dynamic',
      'a/llm',
    ]);
    expect(
      criticsAwaited(catalogue, false, { read_at: 'x', critics: [alive('a/core'), alive('a/dynamic')], invalid: [] }),
    ).toEqual([]);
  });
});
