import { describe, expect, it } from '@jest/globals';
import { CriticCatalogue } from '../config/catalogue.js';
import { availability, catalogue } from '../testing/builders.test-helpers.js';
import { selectPanel } from './select-panel.js';

describe('panel selection (spec Decision 1)', () => {
  it('given ordinary files, when selecting, then the core critics run and the unconfigured LLM reviewer is left out with its reason', () => {
    const panel = selectPanel(catalogue, ['src/index.ts'], availability);
    expect(panel.critics.map((c) => [c.critic_id, c.core, c.reason])).toEqual([
      ['security/sast-scanner', true, 'core'],
      ['toolchain/compiler-linter', true, 'core'],
    ]);
    expect(panel.not_configured).toEqual([
      { critic_id: 'quality/code-reviewer', reason: 'ANTHROPIC_API_KEY is not set' },
    ]);
    expect(panel.missing_core).toEqual([]);
  });

  it('given a migration among the files, when selecting, then the database reviewer joins because of its trigger', () => {
    const panel = selectPanel(catalogue, ['src/index.ts', 'db/migrations/001_init.sql'], availability);
    expect(panel.critics.find((c) => c.critic_id === 'specialized/database-reviewer')).toEqual({
      critic_id: 'specialized/database-reviewer',
      evidence: 'pattern',
      core: false,
      reason: 'trigger db-migration: db/migrations/001_init.sql',
      timeout_ms: 10_000,
    });
  });

  it('given a core critic without a heartbeat, when selecting, then it is missing (a failure), while a silent dynamic critic is only left out', () => {
    const down = (id: string) =>
      id === 'quality/code-reviewer'
        ? availability(id)
        : id === 'toolchain/compiler-linter' || id === 'specialized/database-reviewer'
          ? ({ state: 'unavailable', reason: 'no heartbeat' } as const)
          : ({ state: 'available' } as const);
    const panel = selectPanel(catalogue, ['db/migrations/1.sql'], down);
    expect(panel.missing_core).toEqual([{ critic_id: 'toolchain/compiler-linter', reason: 'no heartbeat' }]);
    expect(panel.not_configured).toContainEqual({ critic_id: 'specialized/database-reviewer', reason: 'no heartbeat' });
    expect(panel.critics.map((c) => c.critic_id)).toEqual(['security/sast-scanner']);
  });

  describe("a language's own toolchain (a trigger whose critics are core)", () => {
    const withLanguages = CriticCatalogue.parse({
      ...catalogue,
      critics: { ...catalogue.critics, 'toolchain/python': { evidence: 'toolchain', timeout_ms: 180_000 } },
      dynamic: [
        ...catalogue.dynamic,
        { name: 'python', globs: ['**/*.py'], critics: ['toolchain/python'], core: true },
      ],
    });

    it('given a Python file in the plan, when selecting, then the Python toolchain joins as core; given none, it is not dispatched', () => {
      const panel = selectPanel(withLanguages, ['src/index.ts', 'tools/report.py'], availability);
      expect(panel.critics.find((c) => c.critic_id === 'toolchain/python')).toMatchObject({
        core: true,
        reason: 'core for trigger python: tools/report.py',
      });
      expect(selectPanel(withLanguages, ['src/index.ts'], availability).critics.map((c) => c.critic_id)).not.toContain(
        'toolchain/python',
      );
    });

    it('given its service is down, when selecting, then it is a missing core critic (the round fails), not left out', () => {
      const down = (id: string) =>
        id === 'toolchain/python' ? ({ state: 'unavailable', reason: 'no heartbeat' } as const) : availability(id);
      expect(selectPanel(withLanguages, ['tools/report.py'], down).missing_core).toEqual([
        { critic_id: 'toolchain/python', reason: 'no heartbeat' },
      ]);
    });
  });
});
