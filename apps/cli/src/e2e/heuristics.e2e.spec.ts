import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type EventOf, type JournaledEvent, parseEvent } from '@rloop/contracts';
import type { LoopState } from '@rloop/domain';
import { eventually } from '@rloop/testing';
import { type TestFleet, rloopCli, samplePlan, scriptedRepo, startTestFleet } from './fleet.test-helpers.js';

// The four loops run side by side and the first test waits for its loop's end (up to 100 s on a
// loaded machine): a test must not time out before the wait it makes does.
jest.setTimeout(120_000);

// Loops whose implementer is a script that behaves badly on purpose; each must escalate naming
// the right heuristic. The only finding is a hard-coded AWS key (the secrets detector, a core
// critic, reports it deterministically on its line).

let t: TestFleet;

const KEY_A = 'AKIAZ7Q4N2LM8RT3KXWP';
const KEY_B = 'AKIAQ3W8E5R2T7Y4U9IP';
const CONFIG_JS = [
  ...Array.from({ length: 10 }, (_, i) => `// configuration note ${i + 1}`),
  "export const region = 'eu-west-1';",
  `export const accessKeyId = '${KEY_A}';`,
  '',
].join('\n');
const OTHER_JS = 'export const backupKeyId = process.env.BACKUP_KEY_ID;\n';
const NOTES_JS = 'export const notes = [];\n';

/** Node scripts run as the plan's `implementer.command` (in the worktree, with RLOOP_ROUND set). */
const SCRIPTS: Readonly<Record<string, string>> = {
  // Fixes the key in one file while putting another key in the other, then undoes it: A, B, A, …
  oscillate: `
import { readFileSync, writeFileSync } from 'node:fs';
const odd = Number(process.env.RLOOP_ROUND) % 2 === 1;
const swap = (file, pattern, line) => writeFileSync(file, readFileSync(file, 'utf8').replace(pattern, line));
swap('src/config.js', /^export const accessKeyId = .*$/m, odd ? 'export const accessKeyId = process.env.AWS_ACCESS_KEY_ID;' : "export const accessKeyId = '${KEY_A}';");
swap('src/other.js', /^export const backupKeyId = .*$/m, odd ? "export const backupKeyId = '${KEY_B}';" : 'export const backupKeyId = process.env.BACKUP_KEY_ID;');
`,
  // A different approach each round (other lines changed, the key's line reworded), never the fix.
  wall: `
import { readFileSync, writeFileSync } from 'node:fs';
const round = Number(process.env.RLOOP_ROUND);
const lines = readFileSync('src/config.js', 'utf8').split('\\n');
lines[round - 1] = '// configuration note ' + round + ' (reworked in attempt ' + round + ')';
lines[11] = "export const accessKeyId = '${KEY_A}'; // attempt " + round;
writeFileSync('src/config.js', lines.join('\\n'));
`,
  // Busy elsewhere, never touches the finding.
  untouched: `
import { appendFileSync } from 'node:fs';
appendFileSync('src/notes.js', '// round ' + process.env.RLOOP_ROUND + ' tidied the notes\\n');
`,
};

async function scriptedPlan(slug: string, script: 'oscillate' | 'wall' | 'untouched' | 'nothing'): Promise<string> {
  const repo = await scriptedRepo(join(t.home, 'repos', slug), {
    'src/config.js': CONFIG_JS,
    'src/other.js': OTHER_JS,
    'src/notes.js': NOTES_JS,
  });
  const command = script === 'nothing' ? 'true' : `node ${join(t.home, 'scripts', `${script}.mjs`)}`;
  const reply = await t.submit(
    samplePlan(slug, repo, {
      title: `Scripted ${script} implementer`,
      files: ['src/**/*.js'],
      test_cmd: 'node --test',
      implementer: { strategy: 'command', command },
    }),
  );
  if (reply.status !== 'accepted') throw new Error(`plan ${slug} was not accepted: ${JSON.stringify(reply)}`);
  return reply.event_id;
}

async function eventsOf(plan: string): Promise<JournaledEvent[]> {
  return (await t.bus.journal.events(plan)).entries.map((e) => e.event);
}

function only<T extends JournaledEvent['type']>(events: readonly JournaledEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

const runs = new Map<string, Promise<LoopState>>();

beforeAll(async () => {
  t = await startTestFleet();
  await mkdir(join(t.home, 'scripts'), { recursive: true });
  for (const [name, body] of Object.entries(SCRIPTS)) await writeFile(join(t.home, 'scripts', `${name}.mjs`), body);
  // The four loops run side by side in the one fleet.
  for (const [slug, script] of [
    ['h-oscillate', 'oscillate'],
    ['h-wall', 'wall'],
    ['h-untouched', 'untouched'],
    ['h-stall', 'nothing'],
  ] as const) {
    const runId = await scriptedPlan(slug, script);
    const outcome = t.outcome(slug, runId, 100_000);
    // Awaited by the tests; this keeps an early failure from being an unhandled rejection meanwhile.
    outcome.catch(() => undefined);
    runs.set(slug, outcome);
  }
}, 120_000);

afterAll(async () => {
  await t?.stop();
}, 60_000);

async function escalated(
  slug: string,
): Promise<{ state: LoopState; events: JournaledEvent[]; escalation: EventOf<'EscalationRaised'> }> {
  const state = await runs.get(slug);
  if (state === undefined) throw new Error(`no run for ${slug}`);
  const events = await eventsOf(slug);
  expect(state.status).toBe('escalated');
  const escalation = only(events, 'EscalationRaised').at(-1);
  if (escalation === undefined) throw new Error(`${slug} has no EscalationRaised`);
  return { state, events, escalation };
}

describe('scripted implementers that get stuck escalate naming the right heuristic', () => {
  it('an implementer that oscillates (fixes one key by adding another, then undoes it) escalates with oscillation', async () => {
    const { events, escalation } = await escalated('h-oscillate');
    const detected = only(events, 'LoopDetected');
    expect(detected.map((d) => [d.data.heuristic, d.data.round])).toEqual([['oscillation', 3]]);
    expect(detected[0]?.data.message).toContain('came back in round 3');
    expect(detected[0]?.data.evidence['cycles']).toHaveLength(1);
    expect(escalation.data).toMatchObject({
      reason: 'heuristic',
      round: 3,
      report: { trigger: { kind: 'heuristic', heuristic: 'oscillation' } },
    });
    // The LoopDetected is journaled before the panel's decision that acts on it.
    expect(events.indexOf(detected[0] as JournaledEvent)).toBeLessThan(events.indexOf(escalation));
    const timeline = escalation.data.report.findings.find((f) => f.file === 'src/config.js');
    expect(timeline?.rounds).toEqual([
      { round: 1, present: true },
      { round: 2, present: false },
      { round: 3, present: true },
    ]);
    expect(escalation.data.markdown).toContain('Rounds (● present, ○ absent): 1● 2○ 3●');
  });

  it('an implementer that hits the wall (a different change each round, the key stays) escalates with implementer_wall and shows each attempt', async () => {
    const { events, escalation } = await escalated('h-wall');
    expect(only(events, 'LoopDetected').map((d) => d.data.heuristic)).toEqual(['implementer_wall']);
    expect(escalation.data).toMatchObject({
      reason: 'heuristic',
      round: 4,
      report: { trigger: { heuristic: 'implementer_wall' } },
    });
    const timeline = escalation.data.report.findings.find((f) => f.file === 'src/config.js');
    expect(timeline?.attempts.map((a) => a.round)).toEqual([1, 2, 3]);
    for (const attempt of timeline?.attempts ?? []) expect(attempt.diff).toContain(`attempt ${attempt.round}`);
    expect(escalation.data.markdown).toContain('```diff');
    expect(escalation.data.report.recommended_action).toContain('plan may need a rethink');
  });

  it('an implementer that leaves the finding untouched escalates with persistent_issue after three rounds', async () => {
    const { events, escalation } = await escalated('h-untouched');
    expect(only(events, 'LoopDetected').map((d) => [d.data.heuristic, d.data.round])).toEqual([
      ['persistent_issue', 3],
    ]);
    expect(escalation.data.report.trigger).toMatchObject({ kind: 'heuristic', heuristic: 'persistent_issue' });
    expect(escalation.data.report.trigger.detail).toContain('3 consecutive rounds');
  });

  it('an implementer that changes nothing escalates with stall after two rounds', async () => {
    const { events, escalation } = await escalated('h-stall');
    // Two rounds in a row that changed nothing; a fix that failed on the infrastructure (a test run
    // timed out on a loaded machine) is not the implementer's and does not count, so it can be later.
    const unchanged = only(events, 'FixApplied').filter((f) => f.data.outcome === 'no_change');
    expect(unchanged.length).toBeGreaterThanOrEqual(2);
    expect(only(events, 'LoopDetected').map((d) => [d.data.heuristic, d.data.round])).toEqual([
      ['stall', unchanged[1]?.data.round],
    ]);
    expect(
      only(events, 'FixApplied')
        .filter((f) => f.data.round < (unchanged[1]?.data.round ?? 0))
        .every((f) => f.data.commit === null),
    ).toBe(true);
    expect(escalation.data.report.trigger).toMatchObject({ kind: 'heuristic', heuristic: 'stall' });
  });
});

describe('people act on escalations with the rloop command', () => {
  it('resume records the decision and the loop goes on; stop ends it; both refuse when the loop is not in a state for it', async () => {
    await escalated('h-untouched');
    const running = await rloopCli(t, ['stop', 'h-nope']);
    expect(running).toMatchObject({ code: 1, stderr: 'rloop: no plan h-nope in the journal\n' });

    const resumed = await rloopCli(t, [
      'resume',
      'h-untouched',
      '--note',
      'looked at it, go on',
      '--raise-cap',
      '2',
      '--by',
      'ops@test',
    ]);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('resumed h-untouched');
    const events = await eventually(
      async () => {
        const all = await eventsOf('h-untouched');
        return all.some((e) => e.type === 'RoundStarted' && e.data.round === 4) ? all : undefined;
      },
      { timeoutMs: 15_000, description: 'round 4 of h-untouched after the resume' },
    );
    const resume = only(events, 'LoopResumed')[0];
    expect(resume?.data).toMatchObject({ note: 'looked at it, go on', raise_cap: 2, by: 'ops@test' });

    const stopped = await rloopCli(t, ['stop', 'h-untouched', '--note', 'enough']);
    expect(stopped.code).toBe(0);
    expect((await t.bus.journal.loopState('h-untouched')).state?.status).toBe('stopped');
    const twice = await rloopCli(t, ['stop', 'h-untouched']);
    expect(twice).toMatchObject({
      code: 1,
      stderr: 'rloop: h-untouched has already ended (stopped): there is nothing to stop\n',
    });
    const late = await rloopCli(t, ['resume', 'h-untouched']);
    expect(late).toMatchObject({
      code: 1,
      stderr:
        'rloop: h-untouched is stopped, not escalated: there is nothing to resume (the loop has ended; submit the plan again for a new run)\n',
    });
  }, 60_000);

  it('the journal exports the spec shape with the detection, and calibrate counts the heuristics', async () => {
    await Promise.all([...runs.values()]);
    const yaml = await rloopCli(t, ['journal', 'h-oscillate', '--format', 'yaml']);
    expect(yaml.code).toBe(0);
    const doc = parseYaml(yaml.stdout) as {
      plan: string;
      started_at: string;
      phase: string;
      rounds: Record<string, unknown>[];
    };
    expect(doc).toMatchObject({ plan: 'h-oscillate', phase: 'critical' });
    expect(Object.keys(doc.rounds[0] ?? {})).toEqual(
      expect.arrayContaining([
        'round',
        'phase',
        'timestamp',
        'critics_dispatched',
        'letter_id',
        'findings_by_critic',
        'fixes_applied',
        'tests_added',
        'tests_result',
        'convergence_delta',
      ]),
    );
    expect(doc.rounds[2]).toMatchObject({
      round: 3,
      loop_detected: [{ heuristic: 'oscillation' }],
      escalated: { reason: 'heuristic', heuristic: 'oscillation' },
    });

    const calibrated = await rloopCli(t, ['calibrate', '--json']);
    expect(calibrated.code).toBe(0);
    const report = JSON.parse(calibrated.stdout) as {
      runs: number;
      heuristics: Record<string, { fired: number; runs: number }>;
    };
    expect(report.runs).toBeGreaterThanOrEqual(4);
    for (const h of ['oscillation', 'implementer_wall', 'persistent_issue', 'stall'])
      expect(report.heuristics[h]?.fired).toBeGreaterThanOrEqual(1);
    const text = await rloopCli(t, ['calibrate']);
    expect(text.stdout).toContain('Rounds each phase needed to come clean');

    const follow = await rloopCli(t, ['escalations', '--plan', 'h-wall', '--json']);
    const parsed = parseEvent(JSON.parse(follow.stdout.trim().split('\n')[0] ?? '{}'));
    expect(parsed.ok && parsed.event.type === 'EscalationRaised').toBe(true);
  }, 60_000);
});
