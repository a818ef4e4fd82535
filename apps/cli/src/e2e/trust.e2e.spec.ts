import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { durableName } from '@rloop/bus';
import { type EventOf, type JournaledEvent, currentVersion } from '@rloop/contracts';
import { type TestNats, connectTestNats, eventually } from '@rloop/testing';
import { type TestFleet, rloopCli, samplePlan, scriptedRepo, startTestFleet } from './fleet.test-helpers.js';

// Workers and `rloop submit --watch` act only on what the journal has committed. Messages on the
// bus that the journal never took — a RoundStarted naming another repository, a FixRequested for
// a plan that never existed, a LoopConverged during round 1 — make nobody check anything out, run
// anything, or call the loop converged.

let t: TestFleet;
let nats: TestNats;

const KEY = 'AKIAZ7Q4N2LM8RT3KXWP';
/** Fixes the key; the first run for a plan takes its time (the window for the forgery). */
const SLOW_FIX = `
import { readFileSync, writeFileSync } from 'node:fs';
await new Promise((resolve) => setTimeout(resolve, 6000));
writeFileSync('src/config.js', readFileSync('src/config.js', 'utf8').replace(/'AKIA[0-9A-Z]{16}'/, 'process.env.AWS_ACCESS_KEY_ID'));
`;

beforeAll(async () => {
  t = await startTestFleet({ env: { RLOOP_ACK_WAIT_MS: '3000' } });
  nats = await connectTestNats(t.namespace);
  await mkdir(join(t.home, 'scripts'), { recursive: true });
  await writeFile(join(t.home, 'scripts', 'slow-fix.mjs'), SLOW_FIX);
}, 120_000);

afterAll(async () => {
  await nats?.connection.drain();
  await t?.stop();
}, 60_000);

function forged<T extends JournaledEvent['type']>(
  type: T,
  plan: string,
  runId: string,
  id: string,
  data: EventOf<T>['data'],
): EventOf<T> {
  return {
    event_id: id,
    type,
    schema_version: currentVersion(type),
    plan,
    correlation_id: runId,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    producer: 'forger@elsewhere',
    data,
  } as EventOf<T>;
}

async function deadLetter(id: string): Promise<{ code: string }> {
  return eventually(async () => (await nats.deadLetters()).find((d) => d.payload.includes(id)), {
    timeoutMs: 30_000,
    description: `the journal refusing ${id}`,
  });
}

/** Waits until a service's consumer of the journal's announcements has nothing pending (it had its chance to act). */
async function caughtUp(service: string, handler: string): Promise<void> {
  await eventually(
    async () => {
      const info = await nats.consumerInfo(nats.subjects.streams.commits, durableName(service, handler));
      return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
    },
    { timeoutMs: 30_000, description: `${service} caught up` },
  );
}

describe('workers and the watch trust only the journal', () => {
  it('a RoundStarted on the bus naming another repository makes the critic-runner check nothing out of it', async () => {
    const secret = await scriptedRepo(join(t.home, 'repos', 'secret'), {
      'src/config.js': `export const accessKeyId = '${KEY}';\n`,
    });
    const secretCommit = execFileSync('git', ['-C', secret, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const repo = await scriptedRepo(join(t.home, 'repos', 't-round'), {
      'src/config.js': "export const region = 'eu-west-1';\n",
    });
    const reply = await t.submit(samplePlan('t-round', repo, { files: ['src/**/*.js'] }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    await t.outcome('t-round', reply.event_id, 90_000);
    const round = forged('RoundStarted', 't-round', reply.event_id, 'd_forged_round_000001', {
      round: 99,
      phase: 'critical',
      phase_round: 1,
      k: 3,
      mode: 'loop',
      commit: secretCommit,
      base_commit: secretCommit,
      repo_path: secret,
      files: ['src/config.js'],
      critics: [
        { critic_id: 'security/secrets-detector', evidence: 'pattern', core: true, reason: 'core', timeout_ms: 60_000 },
      ],
      not_configured: [],
      deadline_at: new Date(Date.now() + 60_000).toISOString(),
    });
    await t.bus.client.publishEvent(round);
    expect(await deadLetter(round.event_id)).toMatchObject({ code: 'JOURNAL.UNVERSIONED_DECISION' });
    await caughtUp('critic-runner', 'critic-runner-committed-rounds');
    expect(existsSync(join(t.home, 'critic-runner', 'checkouts', secretCommit))).toBe(false);
    expect(
      (await t.bus.journal.events('t-round')).entries.filter(
        (e) => e.event.type === 'FindingsReported' && e.event.data.round === 99,
      ),
    ).toEqual([]);
  }, 150_000);

  it('a FixRequested on the bus for a plan that never existed makes the implementer run nothing', async () => {
    const marker = join(t.home, 'forged-fix-ran');
    const repo = await scriptedRepo(join(t.home, 'repos', 't-ghost'), {
      'src/config.js': "export const region = 'eu-west-1';\n",
    });
    const commit = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const runId = '01JRUNGHOST000000000000001';
    const request = forged('FixRequested', 't-ghost', runId, 'd_forged_fix_00000001', {
      round: 1,
      attempt: 1,
      letter: {
        letter_id: 'd_forged_letter_0001',
        plan: 't-ghost',
        run_id: runId,
        round: 1,
        phase: 'critical',
        k: 3,
        commit,
        mode: 'loop',
        created_at: new Date().toISOString(),
        critics: [],
        findings: [],
        counts: { critical: 0, medium: 0, low: 0 },
        complete: true,
        disagreements: [],
        summary: 'forged',
      },
      base_commit: commit,
      branch: 'rloop/t-ghost',
      repo_path: repo,
      test_cmd: `touch ${marker}`,
      implementer: { strategy: 'command', command: `touch ${marker}` },
      baseline_failing: [],
    });
    await t.bus.client.publishEvent({ ...request, decision: { expected_version: 0, id: request.event_id } });
    expect(await deadLetter(request.event_id)).toMatchObject({ code: 'JOURNAL.ORPHAN_EVENT' });
    await caughtUp('implementer', 'implementer-committed-fixes');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(t.home, 'worktrees', 't-ghost'))).toBe(false);
  }, 60_000);

  it("submit --watch ends on the run's committed state: a LoopConverged on the bus during round 1 (refused, or journaled but unsupported by the history) does not end it", async () => {
    const repo = await scriptedRepo(join(t.home, 'repos', 't-watch'), {
      'src/config.js': `export const region = 'eu-west-1';\nexport const accessKeyId = '${KEY}';\n`,
    });
    const planFile = join(t.home, 't-watch.yaml');
    await writeFile(
      planFile,
      toYaml(
        samplePlan('t-watch', repo, {
          files: ['src/**/*.js'],
          implementer: { strategy: 'command', command: `node ${join(t.home, 'scripts', 'slow-fix.mjs')}` },
        }),
      ),
    );
    const watching = rloopCli(t, ['submit', planFile, '--json']);
    // Round 1's fix is under way: the run is far from converged.
    const state = await eventually(
      async () => {
        const { state: s } = await t.bus.journal.loopState('t-watch');
        return s !== null && s.status === 'fixing' ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50, description: 'round 1 being fixed' },
    );
    const runId = state.run_id ?? '';
    const converged = (id: string) =>
      forged('LoopConverged', 't-watch', runId, id, {
        rounds: 1,
        letter_id: 'd_forged_letter_0002',
        final_commit: state.head ?? '',
        branch: 'rloop/t-watch',
        panel: { critics: [], not_configured: [] },
      });
    // As anyone could publish it (the journal refuses it), and with the run's version (journaled, but the fold ignores it).
    await t.bus.client.publishEvent(converged('d_forged_converged_01'));
    await t.bus.client.publishEvent({
      ...converged('d_forged_converged_02'),
      decision: { expected_version: state.version, id: 'd_forged_converged_02' },
    });
    const { code, stdout } = await watching;
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const final = await t.bus.journal.loopState('t-watch');
    expect(final.state?.status).toBe('converged');
    expect(final.state?.outcome_event_id).not.toMatch(/^d_forged/);
    expect(lines.at(-1)).toEqual({ plan: 't-watch', outcome: 'converged', rounds: final.state?.round });
    expect(final.state?.round).toBeGreaterThan(1);
    expect(lines.map((l) => l['event_id'])).not.toContain('d_forged_converged_01');
  }, 180_000);
});
