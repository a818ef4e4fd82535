// A fix nobody can serve ends: a plan given by URL whose repository refuses the implementer's push
// (a pre-receive hook declines it, as a protected branch would) is retried with backoff and, past
// RLOOP_FIX_DEADLINE_MS, escalated with reason implementer_failed — never left in "fixing".
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GitDaemon, startGitDaemon } from '@rloop/testing';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

let t: TestFleet;
let daemon: GitDaemon;
let served: string;

beforeAll(async () => {
  served = await mkdtemp(join(tmpdir(), 'rloop-served-'));
  daemon = await startGitDaemon(served);
  t = await startTestFleet({
    env: { RLOOP_FIX_DEADLINE_MS: '5000' },
    trust: (trust) => ({
      ...trust,
      repositories: {
        ...(trust['repositories'] as Record<string, unknown>),
        url: { schemes: ['git'], hosts: ['127.0.0.1'], local_addresses: true },
      },
    }),
  });
}, 120_000);

afterAll(async () => {
  await t.stop();
  await daemon.stop();
  await rm(served, { recursive: true, force: true });
}, 120_000);

describe('a fix request that cannot be served', () => {
  it('is retried, then escalated with reason implementer_failed saying why, once RLOOP_FIX_DEADLINE_MS has passed', async () => {
    const work = await t.sampleRepo('fixable', 'refused');
    const bare = join(served, 'refused.git');
    execFileSync('git', ['clone', '-q', '--bare', work, bare]);
    const hook = join(bare, 'hooks', 'pre-receive');
    await writeFile(hook, '#!/bin/sh\necho "pushes to this repository are closed" >&2\nexit 1\n');
    await chmod(hook, 0o755);
    const reply = await t.submit({
      ...samplePlan('unserved-fix', '/unused'),
      repo: { url: daemon.urlOf('refused.git'), ref: 'main' },
    });
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const state = await t.outcome('unserved-fix', reply.event_id, 180_000);
    expect(state.status).toBe('escalated');
    const events = (await t.bus.journal.events('unserved-fix')).entries.map((e) => e.event);
    const escalations = events.filter((e) => e.type === 'EscalationRaised');
    expect(escalations.map((e) => e.type === 'EscalationRaised' && e.data.reason)).toEqual(['implementer_failed']);
    const detail = escalations[0]?.type === 'EscalationRaised' ? escalations[0].data.report.trigger.detail : '';
    expect(detail).toContain('was not made within 5000 ms');
    expect(detail).toMatch(/push/);
    // Nothing was applied: the fix never became a FixApplied, and the branch never reached the repository.
    expect(events.some((e) => e.type === 'FixApplied')).toBe(false);
    expect(execFileSync('git', ['-C', bare, 'for-each-ref', 'refs/heads/rloop/'], { encoding: 'utf8' })).toBe('');
  }, 240_000);
});
