import { describe, expect, it } from '@jest/globals';
import { PHASES } from '@rloop/contracts';
import { DEFAULT_CRITIC_TIMEOUT_MS, defineCritic } from './define.js';

const run = () => Promise.resolve([]);

describe('defineCritic', () => {
  it('fills in the defaults and freezes the definition', () => {
    const critic = defineCritic({ id: 'team/no-todo', evidence: 'pattern', triggers: ['src/**'], run });
    expect(critic).toMatchObject({
      id: 'team/no-todo',
      evidence: 'pattern',
      description: '',
      triggers: ['src/**'],
      phases: [...PHASES],
      timeoutMs: DEFAULT_CRITIC_TIMEOUT_MS,
    });
    expect(Object.isFrozen(critic)).toBe(true);
  });

  it('keeps the files it covers, so its answers report coverage, and refuses a `covers` that is not a function', () => {
    const covers = (file: string): boolean => file.endsWith('.py');
    expect(defineCritic({ id: 'team/py', evidence: 'pattern', triggers: [], covers, run }).covers).toBe(covers);
    expect(() =>
      defineCritic({
        id: 'team/py',
        evidence: 'pattern',
        triggers: [],
        covers: '**/*.py' as unknown as typeof covers,
        run,
      }),
    ).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'covers' })] }));
  });

  it('names every problem of a bad definition at once', () => {
    expect(() => defineCritic({ id: 'team/x', evidence: '', triggers: [''], phases: [], run })).toThrow(
      expect.objectContaining({
        code: 'CRITIC_SDK.INVALID_CRITIC',
        issues: [
          expect.objectContaining({ path: 'evidence' }),
          expect.objectContaining({ path: 'triggers[0]' }),
          expect.objectContaining({ path: 'phases' }),
        ],
      }),
    );
  });

  it('rejects an id that is not lowercase segments, and a timeout that is not a positive integer', () => {
    expect(() => defineCritic({ id: 'Team X', evidence: 'pattern', triggers: [], run })).toThrow(
      expect.objectContaining({ code: 'CRITIC_SDK.INVALID_CRITIC', issues: [expect.objectContaining({ path: 'id' })] }),
    );
    expect(() => defineCritic({ id: 'team/x', evidence: 'pattern', triggers: [], timeoutMs: 0, run })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'timeoutMs' })] }),
    );
  });
});
