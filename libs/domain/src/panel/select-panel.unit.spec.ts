import { describe, expect, it } from '@jest/globals';
import { availability, catalogue } from '../testing/builders.test-helpers.js';
import { selectPanel } from './select-panel.js';

describe('panel selection (spec Decision 1)', () => {
  it('given ordinary files, when selecting, then the core critics run and the unconfigured LLM reviewer is left out with its reason', () => {
    const panel = selectPanel(catalogue, ['src/index.ts'], availability);
    expect(panel.critics.map((c) => [c.critic_id, c.core, c.reason])).toEqual([
      ['security/sast-scanner', true, 'core'],
      ['toolchain/compiler-linter', true, 'core'],
    ]);
    expect(panel.not_configured).toEqual([{ critic_id: 'quality/code-reviewer', reason: 'ANTHROPIC_API_KEY is not set' }]);
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
    const down = (id: string) => (id === 'quality/code-reviewer' ? availability(id) : id === 'toolchain/compiler-linter' || id === 'specialized/database-reviewer' ? ({ state: 'unavailable', reason: 'no heartbeat' } as const) : ({ state: 'available' } as const));
    const panel = selectPanel(catalogue, ['db/migrations/1.sql'], down);
    expect(panel.missing_core).toEqual([{ critic_id: 'toolchain/compiler-linter', reason: 'no heartbeat' }]);
    expect(panel.not_configured).toContainEqual({ critic_id: 'specialized/database-reviewer', reason: 'no heartbeat' });
    expect(panel.critics.map((c) => c.critic_id)).toEqual(['security/sast-scanner']);
  });
});
