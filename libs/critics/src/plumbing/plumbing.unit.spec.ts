import { describe, expect, it } from '@jest/globals';
import { Finding } from '@rloop/contracts';
import { isSameIssue } from '@rloop/domain';
import {
  CriticNotRunnableError,
  type CriticDefinition,
  defineCritic,
  draftFinding,
  finalizeFindings,
  runCritic,
} from '../index.js';

const draft = (line: number, type = 'test/thing') =>
  draftFinding({
    severity: 'critical',
    category: 'correctness',
    finding_type: type,
    file: 'src/a.ts',
    line_range: { start: line, end: line },
    title: 'a thing',
    current_behaviour: 'it happens',
    expected_behaviour: 'it does not',
    observable_test_conditions: ['calling f() returns 1'],
    forbidden_in_test: ['mocking f'],
  });

const critic = (run: CriticDefinition['run'], extra: Partial<CriticDefinition> = {}): CriticDefinition =>
  defineCritic({
    id: 'test/critic',
    evidence: 'test',
    description: 'a test critic',
    triggers: [],
    timeoutMs: 5_000,
    run,
    ...extra,
  });

describe('finalizeFindings', () => {
  it('adds identity fields and yields contract-valid findings', () => {
    const [finding] = finalizeFindings({ id: 'test/critic' }, [draft(2)], () => 'one\nconst x = 1;\nthree');
    expect(Finding.safeParse(finding).success).toBe(true);
    expect(finding).toMatchObject({
      raised_by: 'test/critic',
      id: `f_${finding?.fingerprint}`,
      severity: 'critical',
      score: 8,
    });
    expect(finding?.location_hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('keeps the location hash when the flagged code moves, so the issue is recognised across rounds', () => {
    const before = finalizeFindings({ id: 'test/critic' }, [draft(2)], () => 'a\nconst x = eval(input);\nb')[0];
    const after = finalizeFindings(
      { id: 'test/critic' },
      [draft(12)],
      () => `${'\n'.repeat(10)}a\nconst x = eval(input);\nb`,
    )[0];
    expect(before?.fingerprint).not.toBe(after?.fingerprint);
    expect(before?.location_hash).toBe(after?.location_hash);
    expect(before !== undefined && after !== undefined && isSameIssue(before, after, 0)).toBe(true);
  });

  it('refuses a draft that breaks the contract instead of dropping it', () => {
    const bad = { ...draft(1), score: 2 };
    expect(() => finalizeFindings({ id: 'test/critic' }, [bad], () => 'x')).toThrow(/invalid finding/);
  });

  it('merges drafts with the same fingerprint', () => {
    const a = { ...draft(1), related_locations: [{ file: 'b.ts', line_range: { start: 1, end: 1 }, note: 'one' }] };
    const b = { ...draft(1), related_locations: [{ file: 'c.ts', line_range: { start: 2, end: 2 }, note: 'two' }] };
    const findings = finalizeFindings({ id: 'test/critic' }, [a, b], () => 'x');
    expect(findings).toHaveLength(1);
    expect(findings[0]?.related_locations.map((l) => l.file)).toEqual(['b.ts', 'c.ts']);
  });
});

describe('runCritic', () => {
  const context = {
    repoDir: '/nonexistent',
    commit: '0'.repeat(40),
    files: ['src/a.ts'],
    phase: 'final_sweep' as const,
  };

  it('reports findings with a duration', async () => {
    const result = await runCritic(
      critic(() => Promise.resolve([draft(1)])),
      context,
    );
    expect(result.status).toBe('reported');
    expect(result.status === 'reported' && result.findings).toHaveLength(1);
  });

  it('fails with timed_out and aborts the critic signal at the deadline', async () => {
    let aborted = false;
    const slow = critic(
      (ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('stopped'));
          });
        }),
    );
    const result = await runCritic(slow, context, { timeoutMs: 30 });
    expect(result).toMatchObject({ status: 'failed', reason: 'timed_out' });
    expect(aborted).toBe(true);
  });

  it('times out a critic that ignores its signal without waiting for it', async () => {
    const stuck = critic(() => new Promise<never>(() => undefined));
    const result = await runCritic(stuck, context, { timeoutMs: 20 });
    expect(result).toMatchObject({ status: 'failed', reason: 'timed_out' });
  });

  it('classifies crashes, not-runnable critics, invalid output and missing configuration', async () => {
    expect(
      await runCritic(
        critic(() => Promise.reject(new Error('boom'))),
        context,
      ),
    ).toMatchObject({ status: 'failed', reason: 'crashed', message: 'boom' });
    expect(
      await runCritic(
        critic(() => Promise.reject(new CriticNotRunnableError('registry unreachable'))),
        context,
      ),
    ).toMatchObject({
      status: 'failed',
      reason: 'not_runnable',
    });
    expect(
      await runCritic(
        critic(() => Promise.resolve([{ ...draft(1), severity: 'low' as const }])),
        context,
      ),
    ).toMatchObject({
      status: 'failed',
      reason: 'invalid_output',
    });
    const unconfigured = critic(() => Promise.resolve([]), {
      notConfiguredReason: () => 'ANTHROPIC_API_KEY is not set',
    });
    expect(await runCritic(unconfigured, context)).toMatchObject({
      status: 'failed',
      reason: 'not_runnable',
      message: 'not configured: ANTHROPIC_API_KEY is not set',
    });
  });

  it('reports a caller cancellation as a failure, not as zero findings', async () => {
    const controller = new AbortController();
    const waiting = critic(
      (ctx) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    const running = runCritic(waiting, { ...context, signal: controller.signal });
    controller.abort();
    expect(await running).toMatchObject({ status: 'failed', reason: 'unavailable' });
  });

  it('rejects malformed critic definitions at definition time', () => {
    expect(() => critic(() => Promise.resolve([]), { id: 'Not Valid' })).toThrow(/critic id/);
  });
});
