import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent } from '@rloop/contracts';
import {
  RUN_ID,
  SHA_A,
  SHA_B,
  append,
  baseline as baselineRun,
  event,
  finding,
  gated as gatedRun,
  given,
  letterFor,
  panelContext,
  reportsFor,
  submitted as submittedRun,
} from '../testing/builders.test-helpers.js';
import { decideNext } from './decide.js';
import { stampDecision } from './envelope.js';
import { baselineWork, fixWork, roundWork } from './work.js';

const ctx = panelContext();
const submitted = () =>
  submittedRun({ test_cmd: 'npm test -- --ci', implementer: { strategy: 'command', command: 'fix-it' } });
const gated = () => gatedRun({ repo_path: '/repos/billing', test_cmd: 'npm test -- --ci' });
const baseline = () => baselineRun({ failing: ['flaky'] });

describe('workers take their work from the committed state, never from the message that asked', () => {
  it("given a run gated on a repository, when its round is reviewed, then the repository and files are the LoopGated ones, whatever the round's event names", () => {
    let state = given(submitted(), gated(), baseline());
    const [started] = decideNext(state, ctx) as [JournaledEvent];
    const forged = {
      ...started,
      data: { ...(started.data as object), repo_path: '/somewhere/else', files: ['secrets.env'] },
    } as JournaledEvent;
    state = append(state, stampDecision([forged], state.version));
    expect(roundWork(state, started.event_id)).toMatchObject({
      runId: RUN_ID,
      repoPath: '/repos/billing',
      baseCommit: SHA_A,
      files: ['src/index.ts'],
    });
  });

  it('given a round that is over or another round, when its work is asked for, then there is none', () => {
    const state = given(submitted(), gated(), baseline());
    expect(roundWork(state, '01JNOSUCHROUND00000000001')).toBeNull();
    expect(baselineWork(state)).toBeNull();
  });

  it("given a run waiting for its baseline, when the implementer asks, then it records the gated commit with the plan's test command", () => {
    expect(baselineWork(given(submitted(), gated()))).toEqual({
      slug: 'add-billing',
      runId: RUN_ID,
      repoPath: '/repos/billing',
      commit: SHA_A,
      testCmd: 'npm test -- --ci',
      gatedEventId: expect.any(String),
    });
  });

  it('given a fix requested on a letter, when the implementer asks, then the command, test command, branch and baseline failures come from the run', () => {
    let state = given(submitted(), gated(), baseline());
    state = append(state, decideNext(state, ctx));
    const letter = { ...letterFor(1, 'critical', [finding()]), commit: SHA_B };
    state = append(state, [...reportsFor(state, {}, 1), event('LetterWritten', { letter })]);
    state = append(state, decideNext(state, { ...ctx, letter }));
    expect(state.status).toBe('fixing');
    expect(fixWork(state, letter)).toMatchObject({
      round: 1,
      letter,
      base_commit: SHA_A,
      branch: 'rloop/add-billing',
      repo_path: '/repos/billing',
      test_cmd: 'npm test -- --ci',
      implementer: { strategy: 'command', command: 'fix-it' },
      baseline_failing: ['flaky'],
    });
    expect(fixWork(state, { ...letter, letter_id: 'd_another_letter_0' })).toBeNull();
  });
});
