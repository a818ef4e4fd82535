import { describe, expect, it } from '@jest/globals';
import type { CriticRegistrySnapshot, RegisteredCritic } from '@rloop/bus';
import { CriticCatalogue, selectPanel } from '@rloop/domain';
import { effectiveCatalogue, panelView, registeredTriggerName, retryWaitMs } from './availability.js';

const catalogue = CriticCatalogue.parse({
  k: { critical: 3, medium: 5, low: 7, final_sweep: null },
  soft_caps: { critical: 8, medium: 5, low: 3, final_sweep: 3 },
  critics: {
    'toolchain/compiler-linter': { evidence: 'toolchain' },
    'quality/code-reviewer': { evidence: 'llm', requires: 'anthropic' },
    'team/external-core': { evidence: 'pattern', host: 'external' },
    'team/external-dynamic': { evidence: 'pattern', host: 'external' },
  },
  core: ['toolchain/compiler-linter', 'quality/code-reviewer', 'team/external-core'],
  dynamic: [{ name: 'sql', globs: ['**/*.sql'], critics: ['team/external-dynamic'] }],
});

function registered(
  id: string,
  health: 'alive' | 'stale',
  overrides: Partial<RegisteredCritic> = {},
): RegisteredCritic {
  return {
    critic_id: id,
    evidence: 'pattern',
    description: '',
    triggers: [],
    phases: ['critical'],
    timeout_ms: 30_000,
    heartbeat_interval_ms: 1000,
    health,
    last_seen: '2026-01-01T00:00:00.000Z',
    instances: [
      {
        instance_id: 'i',
        health,
        status: 'healthy',
        in_flight: 0,
        uptime_ms: 1,
        version: '1',
        last_seen: '2026-01-01T00:00:00.000Z',
      },
    ],
    ...overrides,
  };
}

function snapshot(...critics: RegisteredCritic[]): CriticRegistrySnapshot {
  return { read_at: '2026-01-01T00:00:01.000Z', critics, invalid: [] };
}

describe('panelView', () => {
  it('dispatches a critic only while it heartbeats, and says why it does not', () => {
    const view = panelView(
      catalogue,
      false,
      snapshot(registered('toolchain/compiler-linter', 'alive'), registered('team/external-core', 'stale')),
    );
    expect(view.availability('toolchain/compiler-linter')).toEqual({ state: 'available' });
    expect(view.availability('team/external-core')).toEqual({
      state: 'unavailable',
      reason: 'no heartbeat from team/external-core since 2026-01-01T00:00:00.000Z (expected every 1000 ms)',
    });
    expect(view.availability('team/external-dynamic')).toEqual({
      state: 'unavailable',
      reason: 'not registered: the team/external-dynamic critic service is not running (no live heartbeat)',
    });
  });

  it('keeps a critic that needs an API key not configured, even when it is registered', () => {
    const view = panelView(catalogue, false, snapshot(registered('quality/code-reviewer', 'alive')));
    expect(view.availability('quality/code-reviewer')).toEqual({
      state: 'not_configured',
      reason: 'ANTHROPIC_API_KEY is not set',
    });
    expect(
      panelView(catalogue, true, snapshot(registered('quality/code-reviewer', 'alive'))).availability(
        'quality/code-reviewer',
      ),
    ).toEqual({ state: 'available' });
  });

  it('names a built-in critic with no live runner, and one that is draining', () => {
    const draining = registered('team/external-core', 'stale', {
      instances: [
        {
          instance_id: 'i',
          health: 'stale',
          status: 'draining',
          in_flight: 0,
          uptime_ms: 1,
          version: '1',
          last_seen: 'x',
        },
      ],
    });
    const view = panelView(catalogue, false, snapshot(draining));
    expect(view.availability('toolchain/compiler-linter')).toMatchObject({
      state: 'unavailable',
      reason: 'not registered: no critic-runner hosting toolchain/compiler-linter is alive',
    });
    expect(view.availability('team/external-core')).toMatchObject({
      state: 'unavailable',
      reason: 'team/external-core is shutting down (every instance is draining)',
    });
  });

  it('turns a missing core critic into missing_core and leaves a missing dynamic one out (with selectPanel)', () => {
    const view = panelView(catalogue, false, snapshot(registered('toolchain/compiler-linter', 'alive')));
    const selection = selectPanel(view.catalogue, ['db/1.sql'], view.availability);
    expect(selection.critics.map((c) => c.critic_id)).toEqual(['toolchain/compiler-linter']);
    expect(selection.missing_core.map((c) => c.critic_id)).toEqual(['team/external-core']);
    expect(selection.not_configured.map((c) => c.critic_id)).toEqual([
      'quality/code-reviewer',
      'team/external-dynamic',
    ]);
  });
});

describe('effectiveCatalogue', () => {
  it('adds a critic that registered itself with triggers as a dynamic, external, never-core critic', () => {
    const joined = registered('team/todo', 'alive', { triggers: ['**/*.py'], timeout_ms: 500, evidence: 'pattern' });
    const effective = effectiveCatalogue(catalogue, snapshot(joined));
    expect(effective.critics['team/todo']).toEqual({
      evidence: 'pattern',
      description: '',
      timeout_ms: 1000,
      host: 'external',
    });
    expect(effective.dynamic.at(-1)).toEqual({
      name: registeredTriggerName('team/todo'),
      globs: ['**/*.py'],
      critics: ['team/todo'],
      core: false,
    });
    expect(effective.core).toEqual(catalogue.core);
    const view = panelView(
      catalogue,
      false,
      snapshot(joined, registered('toolchain/compiler-linter', 'alive'), registered('team/external-core', 'alive')),
    );
    expect(
      selectPanel(view.catalogue, ['app/x.py'], view.availability).critics.find((c) => c.critic_id === 'team/todo'),
    ).toMatchObject({ core: false, reason: 'trigger registered team/todo: app/x.py' });
    expect(
      selectPanel(view.catalogue, ['app/x.ts'], view.availability).critics.some((c) => c.critic_id === 'team/todo'),
    ).toBe(false);
  });

  it('puts a critic registered with no triggers on every panel, and leaves the catalogue’s own entries alone', () => {
    const effective = effectiveCatalogue(
      catalogue,
      snapshot(registered('team/always', 'alive'), registered('team/external-core', 'alive', { evidence: 'other' })),
    );
    expect(effective.dynamic.at(-1)).toMatchObject({ globs: ['**'], critics: ['team/always'] });
    expect(effective.critics['team/external-core']?.evidence).toBe('pattern');
    expect(effectiveCatalogue(catalogue, snapshot())).toBe(catalogue);
  });
});

describe('retryWaitMs', () => {
  const settings = { retryWaitMs: 60_000, heartbeatIntervalMs: 5_000 };
  const letterAt = Date.parse('2026-01-01T00:00:00.000Z');
  const reviewing = (letter: { findings: number; complete: boolean }) => ({
    status: 'reviewing' as const,
    current: {
      letter: {
        letter_id: 'l',
        event_id: 'e',
        occurred_at: '2026-01-01T00:00:00.000Z',
        findings: letter.findings,
        counts: { critical: letter.findings, medium: 0, low: 0 },
        complete: letter.complete,
      },
    } as NonNullable<Parameters<typeof retryWaitMs>[0]['current']>,
  });

  it('holds back the retry of an empty, incomplete round while critics are missing, a heartbeat at a time, up to the bound', () => {
    expect(
      retryWaitMs(
        reviewing({ findings: 0, complete: false }),
        ['toolchain/compiler-linter'],
        letterAt + 1_000,
        settings,
      ),
    ).toBe(5_000);
    expect(
      retryWaitMs(
        reviewing({ findings: 0, complete: false }),
        ['toolchain/compiler-linter'],
        letterAt + 58_000,
        settings,
      ),
    ).toBe(2_000);
    expect(
      retryWaitMs(
        reviewing({ findings: 0, complete: false }),
        ['toolchain/compiler-linter'],
        letterAt + 60_000,
        settings,
      ),
    ).toBeNull();
  });

  it('decides at once when every critic heartbeats, the round had findings or was complete, or no round is under review', () => {
    expect(retryWaitMs(reviewing({ findings: 0, complete: false }), [], letterAt + 1_000, settings)).toBeNull();
    expect(retryWaitMs(reviewing({ findings: 2, complete: false }), ['x'], letterAt + 1_000, settings)).toBeNull();
    expect(retryWaitMs(reviewing({ findings: 0, complete: true }), ['x'], letterAt + 1_000, settings)).toBeNull();
    expect(
      retryWaitMs(
        { ...reviewing({ findings: 0, complete: false }), status: 'fixing' },
        ['x'],
        letterAt + 1_000,
        settings,
      ),
    ).toBeNull();
    expect(retryWaitMs({ status: 'reviewing', current: null }, ['x'], letterAt + 1_000, settings)).toBeNull();
  });
});
