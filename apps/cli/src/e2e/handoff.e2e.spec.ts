import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventOf, JournaledEvent } from '@rloop/contracts';
import type { LoopState } from '@rloop/domain';
import { eventually } from '@rloop/testing';
import { type TestFleet, rloopCli, samplePlan, scriptedRepo, startTestFleet } from './fleet.test-helpers.js';

// Issue 15 §4 and §6 through the real fleet, with scripted implementers (`command` strategy):
// - a loop that gets worse after round 2 escalates, and the implementer leaves rloop/<slug> at
//   round 2's commit (the last one kept at refs/rloop/<slug>/last), saying so in BranchHandedOff
//   and in `rloop report`;
// - two critics that disagree (quality/duplicate-code-detector wants two copies to exist once,
//   quality/complexity wants each split up — a shipped known conflict) on the same lines: the
//   letter carries the disagreement, and when it comes back in the next round the loop escalates
//   with critic_disagreement and both asks.

let t: TestFleet;

const KEY_A = 'AKIAZ7Q4N2LM8RT3KXWP';
const KEY_B = 'AKIAQ3W8E5R2T7Y4U9IP';
const CONFIG_JS = [
  "export const region = 'eu-west-1';",
  `export const accessKeyId = '${KEY_A}';`,
  `export const backupKeyId = '${KEY_B}';`,
  '',
].join('\n');

/** Two copies of one function too complex for quality/complexity (cyclomatic and cognitive 18). */
function pricing(name: string): string {
  const kinds = [
    'apple',
    'pear',
    'plum',
    'fig',
    'kiwi',
    'lime',
    'date',
    'sloe',
    'yuzu',
    'nashi',
    'quince',
    'medlar',
    'guava',
    'mango',
    'papaya',
    'lychee',
    'olive',
  ];
  return [
    '/**',
    ' * @param {string} kind',
    ' * @param {number} count',
    ' * @returns {number}',
    ' */',
    `export function ${name}(kind, count) {`,
    '  let price = 0;',
    ...kinds.map((k, i) => `  if (kind === '${k}') price += ${i + 3};`),
    '  return price * count;',
    '}',
    '',
  ].join('\n');
}

const SCRIPTS: Readonly<Record<string, string>> = {
  // Round 1 removes one key (better); every later round adds a key in another file (worse).
  worsen: `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const round = Number(process.env.RLOOP_ROUND);
if (round === 1) {
  writeFileSync('src/config.js', readFileSync('src/config.js', 'utf8').replace(/^export const accessKeyId = .*$/m, 'export const accessKeyId = process.env.AWS_ACCESS_KEY_ID;'));
} else {
  appendFileSync('src/extra.js', "export const key" + round + " = 'AKIAW5X2C7V4B9N3M6K" + 'ABCDEFGHJKLMNPQR'[round] + "';\\n");
}
`,
  // Busy elsewhere: never settles the disagreement.
  elsewhere: `
import { appendFileSync } from 'node:fs';
appendFileSync('src/notes.js', '// round ' + process.env.RLOOP_ROUND + ' tidied the notes\\n');
`,
};

/** Submits a scripted plan; resolves once it is accepted, with the run's outcome still to come (wrapped: an async function would wait for it). */
async function submit(
  slug: string,
  files: Readonly<Record<string, string>>,
  script: keyof typeof SCRIPTS,
): Promise<{ readonly outcome: Promise<LoopState> }> {
  const repo = await scriptedRepo(join(t.home, 'repos', slug), files);
  const reply = await t.submit(
    samplePlan(slug, repo, {
      title: `Scripted ${script} implementer`,
      files: ['src/**/*.js'],
      implementer: { strategy: 'command', command: `node ${join(t.home, 'scripts', `${script}.mjs`)}` },
    }),
  );
  if (reply.status !== 'accepted') throw new Error(`plan ${slug} was not accepted: ${JSON.stringify(reply)}`);
  const outcome = t.outcome(slug, reply.event_id, 240_000);
  // Awaited by the tests; this keeps an early failure from being an unhandled rejection meanwhile.
  outcome.catch(() => undefined);
  return { outcome };
}

async function eventsOf(plan: string): Promise<JournaledEvent[]> {
  return (await t.bus.journal.events(plan)).entries.map((e) => e.event);
}

function only<T extends JournaledEvent['type']>(events: readonly JournaledEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

function rev(repo: string, ref: string): string {
  return execFileSync('git', ['-C', repo, 'rev-parse', ref], { encoding: 'utf8' }).trim();
}

let worse: Promise<LoopState>;
let disagree: Promise<LoopState>;

beforeAll(async () => {
  // Seven services importing their toolchains at once: on a loaded shared host one took over the default 60 s to say it is ready.
  t = await startTestFleet({ readyTimeoutMs: 180_000 });
  await mkdir(join(t.home, 'scripts'), { recursive: true });
  for (const [name, body] of Object.entries(SCRIPTS)) await writeFile(join(t.home, 'scripts', `${name}.mjs`), body);
  ({ outcome: worse } = await submit(
    'ho-worse',
    { 'src/config.js': CONFIG_JS, 'src/extra.js': 'export const extra = 1;\n' },
    'worsen',
  ));
  ({ outcome: disagree } = await submit(
    'cd-disagree',
    {
      'src/config.js': "export const region = 'eu-west-1';\n",
      'src/pricing.js': `${pricing('priceOfFruit')}\n${pricing('costOfFruit')}`,
      'src/notes.js': 'export const notes = [];\n',
    },
    'elsewhere',
  ));
}, 300_000);

afterAll(async () => {
  await t?.stop();
}, 60_000);

describe('best-round handoff', () => {
  it('a loop that gets worse after round 2 escalates with its branch at round 2, the last commit kept under refs/rloop/<slug>/last, and the report says which round and why', async () => {
    const state = await worse;
    expect(state.status).toBe('escalated');
    let seen: JournaledEvent[] = [];
    const events = await eventually(
      async () => {
        seen = await eventsOf('ho-worse');
        return seen.some((e) => e.type === 'BranchHandedOff') ? seen : undefined;
      },
      { timeoutMs: 90_000, description: 'the BranchHandedOff of ho-worse' },
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}; journal: ${seen.map((e) => e.type).join(', ')}; implementer: ${t.lines
          .filter((l) => l.startsWith('implementer') && /Handoff|ERROR|WARN/.test(l))
          .slice(-10)
          .join(' | ')}`,
      );
    });
    const letters = only(events, 'LetterWritten').map((e) => e.data.letter);
    expect(letters.slice(0, 3).map((l) => l.counts.critical)).toEqual([2, 1, 2]);
    const round2 = letters.find((l) => l.round === 2);
    const [handoff] = only(events, 'BranchHandedOff');
    const escalation = only(events, 'EscalationRaised')[0];
    if (round2 === undefined || handoff === undefined || escalation === undefined)
      throw new Error('no round 2 letter, handoff or escalation');
    // The best round is round 2's commit (a round that re-reviewed that same commit ties, and the latest wins).
    expect(handoff.data).toMatchObject({
      trigger: { kind: 'escalated', event_id: escalation.data.escalation_id },
      branch: 'rloop/ho-worse',
      best_commit: round2.commit,
      counts: { critical: 1 },
      moved: true,
      last_ref: 'refs/rloop/ho-worse/last',
    });
    const repo = join(t.home, 'repos', 'ho-worse');
    expect(rev(repo, 'refs/heads/rloop/ho-worse')).toBe(round2.commit);
    expect(rev(repo, 'refs/rloop/ho-worse/last')).toBe(handoff.data.last_commit);
    expect(handoff.data.last_commit).not.toBe(round2.commit);
    expect(handoff.data.reason).toContain('had the fewest open findings (1 critical');
    expect(escalation.data.report.recommended_action).toContain("leaves `rloop/ho-worse` at the best round's commit");

    const report = await rloopCli(t, ['report', 'ho-worse', '--format', 'md']);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('## Where the branch is left');
    expect(report.stdout).toContain(
      `rloop/ho-worse is left at round ${handoff.data.best_round} (${round2.commit.slice(0, 12)})`,
    );
  }, 300_000);
});

describe('critic disagreement, by default', () => {
  it('two critics asking for opposite changes on the same lines: the letter surfaces it, and when it repeats the loop escalates with both asks', async () => {
    const state = await disagree;
    expect(state.status).toBe('escalated');
    const events = await eventsOf('cd-disagree');
    const letters = only(events, 'LetterWritten').map((e) => e.data.letter);
    const first = letters.find((l) => l.disagreements.length > 0);
    if (first === undefined)
      throw new Error(
        `no letter of cd-disagree has a disagreement: ${JSON.stringify(letters.map((l) => [l.round, l.phase, l.findings.map((f) => f.finding_type)]))}`,
      );
    expect(first.phase).toBe('medium');
    expect(first.disagreements[0]?.critic_ids.sort()).toEqual([
      'quality/complexity',
      'quality/duplicate-code-detector',
    ]);
    expect(first.disagreements[0]?.file).toBe('src/pricing.js');
    expect(first.summary).toContain('between critics');

    const detected = only(events, 'LoopDetected');
    expect(detected.map((d) => [d.data.heuristic, d.data.round])).toEqual([['critic_disagreement', first.round + 1]]);
    const escalation = only(events, 'EscalationRaised')[0];
    expect(escalation?.data).toMatchObject({
      reason: 'heuristic',
      round: first.round + 1,
      report: { trigger: { kind: 'heuristic', heuristic: 'critic_disagreement' } },
    });
    const sides = escalation?.data.report.disagreement ?? [];
    expect([...new Set(sides.map((s) => s.critic_id))].sort()).toEqual([
      'quality/complexity',
      'quality/duplicate-code-detector',
    ]);
    expect(escalation?.data.markdown).toContain('quality/duplicate-code-detector');
  }, 300_000);
});
