import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import type { RloopEvent } from '@rloop/contracts';
import { parseEvent } from '@rloop/contracts';
import { eventually } from '@rloop/testing';
import { followEvents } from '../bus/connect.js';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

let t: TestFleet;
let fixableRepo: string;
let unfixableRepo: string;

beforeAll(async () => {
  // Small soft caps keep the unfixable loop short; the rules are the same.
  t = await startTestFleet({
    catalogue: (c) => ({ ...c, soft_caps: { critical: 2, medium: 2, low: 2, final_sweep: 2 } }),
  });
  fixableRepo = await t.sampleRepo('fixable');
  unfixableRepo = await t.sampleRepo('unfixable');
}, 120_000);

afterAll(async () => {
  await t?.stop();
}, 60_000);

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}

async function runEvents(plan: string): Promise<RloopEvent[]> {
  const { entries } = await t.bus.journal.events(plan);
  return entries.map((e) => e.event);
}

describe('the refinement loop, end to end on the real NATS and PostgreSQL', () => {
  it('converges on a fixable repository: fixes committed on rloop/<slug>, its tests pass, the user branch untouched', async () => {
    const reply = await t.submit(samplePlan('e2e-fixable', fixableRepo));
    expect(reply).toMatchObject({ status: 'accepted', plan: 'e2e-fixable', duplicate: false });
    if (reply.status !== 'accepted') return;
    const state = await t.outcome('e2e-fixable', reply.event_id);
    expect(state.status).toBe('converged');
    const events = await runEvents('e2e-fixable');
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['PlanSubmitted', 'LoopGated', 'BaselineRecorded', 'RoundStarted']);
    expect(types.at(-1)).toBe('LoopConverged');
    expect(types).toContain('PhaseAdvanced');
    const fixes = events.filter((e): e is Extract<RloopEvent, { type: 'FixApplied' }> => e.type === 'FixApplied');
    expect(fixes.length).toBeGreaterThan(0);
    expect(fixes.every((f) => f.data.tests_result.failed === 0 && f.data.tests_result.regressions === 0)).toBe(true);
    const head = git(fixableRepo, 'rev-parse', 'rloop/e2e-fixable');
    expect(head).toBe(fixes.filter((f) => f.data.commit !== null).at(-1)?.data.commit);
    expect(
      git(fixableRepo, 'log', '--format=%s', 'main..rloop/e2e-fixable')
        .split('\n')
        .every((s) => s.startsWith('rloop: round')),
    ).toBe(true);
    expect(git(fixableRepo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(git(fixableRepo, 'status', '--porcelain')).toBe('');
    const converged = events.at(-1);
    if (converged?.type !== 'LoopConverged') throw new Error('expected LoopConverged last');
    // Without an API key the LLM critics (the core reviewer, and the billing trigger's) are left out, and said so.
    expect(converged.data.panel.not_configured).toContainEqual({
      critic_id: 'quality/code-reviewer',
      reason: 'ANTHROPIC_API_KEY is not set',
    });
    expect(converged.data.panel.critics).toEqual(
      expect.arrayContaining(['toolchain/compiler-linter', 'security/sast-scanner', 'quality/duplicate-code-detector']),
    );
    expect(converged.data.final_commit).toBe(head);
  }, 180_000);

  it('escalates an unfixable repository with a stuck-issue report naming its findings', async () => {
    const reply = await t.submit(samplePlan('e2e-unfixable', unfixableRepo, { effort_level: 'xhigh' }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const state = await t.outcome('e2e-unfixable', reply.event_id);
    expect(state.status).toBe('escalated');
    const escalations = await t.bus.journal.escalations({ plan: 'e2e-unfixable', open: true });
    expect(escalations).toHaveLength(1);
    const parsed = parseEvent(escalations[0]?.event);
    if (!parsed.ok || parsed.event.type !== 'EscalationRaised') throw new Error('expected an EscalationRaised event');
    const report = parsed.event.data.report;
    expect(parsed.event.data.reason).toBe('soft_cap');
    const types = report.findings.map((f) => `${f.file}:${f.title}`).join('\n');
    expect(types).toMatch(/src\/report\.ts/);
    expect(parsed.event.data.markdown).toContain('src/report.ts');
    expect(report.recommended_action).toContain('rloop resume e2e-unfixable');
  }, 180_000);

  it('gives a bypassed plan one single-pass review and ends it as bypassed, without fixing anything', async () => {
    const repo = await t.sampleRepo('fixable', 'bypassed');
    const reply = await t.submit(samplePlan('e2e-bypassed', repo, { title: 'Quick fix: rounding in invoices' }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const state = await t.outcome('e2e-bypassed', reply.event_id);
    expect(state.status).toBe('bypassed');
    const events = await runEvents('e2e-bypassed');
    expect(events.map((e) => e.type).filter((type) => type !== 'FindingsReported' && type !== 'CriticFailed')).toEqual([
      'PlanSubmitted',
      'LoopGated',
      'RoundStarted',
      'LetterWritten',
      'LoopBypassed',
    ]);
    const gated = events[1];
    expect(gated?.type === 'LoopGated' && gated.data.verdict).toBe('bypass');
    expect(() => git(repo, 'rev-parse', '--verify', '--quiet', 'rloop/e2e-bypassed')).toThrow();
  }, 120_000);

  it("honours the repository's .rloop.yaml and rloop-ignore comments at the plan's commit within the operator's policy, and journals every dismissal", async () => {
    const repo = await t.sampleRepo('fixable', 'repo-config');
    const money = join(repo, 'src', 'money.ts');
    await writeFile(
      money,
      (await readFile(money, 'utf8')).replace(
        '  let cents = Math.round',
        '  // rloop-ignore eslint/prefer-const -- mutated by the rounding plugin\n  let cents = Math.round',
      ),
    );
    await writeFile(
      join(repo, '.rloop.yaml'),
      'critics:\n  security/sast-scanner: off\nrules:\n  eslint/no-var: low\nexclude: ["src/billing/**"]\n',
    );
    git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qam', 'configure the review');
    git(repo, 'add', '.rloop.yaml');
    git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'add .rloop.yaml');
    const reply = await t.submit(samplePlan('e2e-repo-config', repo, { title: 'Quick fix: configured review' }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    expect((await t.outcome('e2e-repo-config', reply.event_id)).status).toBe('bypassed');
    const events = await runEvents('e2e-repo-config');
    const written = events.find((e): e is Extract<RloopEvent, { type: 'LetterWritten' }> => e.type === 'LetterWritten');
    const letter = written?.data.letter;
    // The comment with a reason dismissed its finding; the lowering rule and the core critic's switch-off were refused.
    expect(letter?.suppressed).toEqual([
      expect.objectContaining({
        file: 'src/money.ts',
        finding_type: 'eslint/prefer-const',
        kind: 'inline',
        reason: 'mutated by the rounding plugin',
      }),
    ]);
    expect(letter?.findings.map((f) => [f.file, f.finding_type, f.severity])).toContainEqual([
      'src/money.ts',
      'eslint/no-var',
      'critical',
    ]);
    expect(letter?.findings.some((f) => f.file.startsWith('src/billing/'))).toBe(false);
    expect(letter?.critics.find((c) => c.critic_id === 'security/sast-scanner')?.outcome).toBe('reported');
    expect(letter?.repo_config).toMatchObject({ config: '.rloop.yaml', excluded_files: 1 });
    expect(letter?.repo_config?.refused).toEqual(
      expect.arrayContaining([
        '.rloop.yaml critics.security/sast-scanner: off — a core critic always runs',
        ".rloop.yaml rules.eslint/no-var: low — the operator's policy lets a repository only raise severities",
      ]),
    );
    // Journaled with the critic's own report, not only in the letter.
    const report = events.find(
      (e) => e.type === 'FindingsReported' && e.data.critic_id === 'toolchain/compiler-linter',
    );
    expect(report?.type === 'FindingsReported' && (report.data.suppressed ?? []).map((x) => x.fingerprint)).toEqual(
      (letter?.suppressed ?? []).map((x) => x.fingerprint),
    );
  }, 120_000);

  it('answers malformed, non-UTF-8 and oversized bodies with reasons, and turns a plain publish of a bad plan into PlanRejected', async () => {
    const ask = async (body: Uint8Array) =>
      JSON.parse(
        new TextDecoder().decode(
          (await t.bus.connection.request(t.bus.subjects.planSubmit, body, { timeout: 30_000 })).data,
        ),
      ) as unknown;
    expect(await ask(new TextEncoder().encode('{"slug": "x",'))).toMatchObject({
      status: 'rejected',
      errors: [{ path: '(body)', message: expect.stringMatching(/^the plan is not valid JSON/) }],
    });
    expect(await ask(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toEqual({
      status: 'rejected',
      errors: [{ path: '(body)', message: 'the plan is not valid UTF-8' }],
    });
    expect(await ask(new Uint8Array(300 * 1024).fill(0x20))).toMatchObject({
      status: 'rejected',
      errors: [{ path: '(body)', message: expect.stringContaining('the limit is') }],
    });
    const follow = await followEvents(t.bus, {
      filter: t.bus.subjects.event('PlanRejected', 'e2e-plain-publish'),
      onlyNew: true,
    });
    t.bus.connection.publish(
      t.bus.subjects.planSubmit,
      new TextEncoder().encode(
        JSON.stringify(samplePlan('e2e-plain-publish', fixableRepo, { effort_level: 'enormous' })),
      ),
    );
    for await (const event of follow.events) {
      expect(event).toMatchObject({
        type: 'PlanRejected',
        plan: 'e2e-plain-publish',
        data: { errors: [{ path: 'effort_level' }] },
      });
      break;
    }
    await follow.stop();
  }, 60_000);

  it('rejects a malformed plan naming every problem, and a second loop for a running slug', async () => {
    const rejected = await t.submit({
      slug: 'Bad.Slug',
      title: '',
      effort_level: 'huge',
      files: ['/etc/passwd'],
      repo: { path: fixableRepo },
      test_cmd: '',
    });
    expect(rejected.status).toBe('rejected');
    if (rejected.status !== 'rejected') return;
    expect(rejected.errors.map((e) => e.path).sort()).toEqual(['effort_level', 'slug', 'test_cmd', 'title']);

    const missingRef = await t.submit(
      samplePlan('e2e-missing-ref', fixableRepo, {
        repo: { path: fixableRepo, ref: 'no-such-branch' },
        files: ['nope/**'],
      }),
    );
    expect(missingRef).toEqual({
      status: 'rejected',
      plan: 'e2e-missing-ref',
      errors: [{ path: 'repo.ref', message: expect.stringContaining('no-such-branch') }],
    });

    const repo = await t.sampleRepo('unfixable', 'long-running');
    const first = await t.submit(samplePlan('e2e-running', repo, { submission_id: 'ci-run-1' }));
    const again = await t.submit(samplePlan('e2e-running', repo, { submission_id: 'ci-run-1' }));
    expect(first.status).toBe('accepted');
    expect(again).toEqual({ ...first, duplicate: true });
    if (first.status !== 'accepted') return;
    await t.outcome('e2e-running', first.event_id).catch(() => undefined);
    const state = (await t.bus.journal.loopState('e2e-running')).state;
    if (state?.status === 'escalated') {
      const duplicate = await t.submit(samplePlan('e2e-running', repo, { submission_id: 'ci-run-2' }));
      expect(duplicate).toMatchObject({
        status: 'rejected',
        errors: [{ path: 'slug', message: expect.stringContaining('already has a loop running') }],
      });
    } else {
      throw new Error(`expected e2e-running to wait escalated, got ${state?.status}`);
    }
  }, 180_000);

  it('lets one of several submissions racing for a free slug start the loop, and rejects the others naming it', async () => {
    const repo = await t.sampleRepo('fixable', 'racing');
    const plan = (n: number): Record<string, unknown> =>
      samplePlan('e2e-racing', repo, { title: 'Quick fix: racing submissions', submission_id: `race-${n}` });
    const replies = await Promise.all([1, 2, 3, 4].map((n) => t.submit(plan(n))));

    const accepted = replies.filter((r) => r.status === 'accepted');
    expect(accepted).toHaveLength(1);
    const winner = accepted[0]?.event_id;
    expect(replies.filter((r) => r.status === 'rejected')).toEqual(
      Array.from({ length: 3 }, () => ({
        status: 'rejected',
        plan: 'e2e-racing',
        errors: [{ path: 'slug', message: expect.stringContaining('already has a loop running') }],
      })),
    );
    // The journal agrees: one run gated and ended, a PlanRejected for each of the others, no second loop.
    const events = await eventually(
      async () => {
        const all = (await t.bus.journal.events('e2e-racing', { scope: 'all' })).entries.map((e) => e.event);
        return all.filter((e) => e.type === 'PlanRejected').length === 3 && all.some((e) => e.type === 'LoopBypassed')
          ? all
          : undefined;
      },
      { timeoutMs: 60_000, description: 'the racing runs to settle' },
    );
    expect(events.filter((e) => e.type === 'PlanSubmitted')).toHaveLength(4);
    expect(events.filter((e) => e.type === 'LoopGated').map((e) => e.correlation_id)).toEqual([winner]);
    expect(new Set(events.filter((e) => e.type === 'PlanRejected').map((e) => e.correlation_id))).not.toContain(winner);
    expect((await t.bus.journal.loopState('e2e-racing')).state).toMatchObject({ run_id: winner, status: 'bypassed' });
  }, 90_000);
});

const RLOOP = fileURLToPath(new URL('../../bin/rloop.js', import.meta.url));

/** Runs the real `rloop` command against the test fleet. */
function rloop(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RLOOP, ...args], {
      env: {
        ...process.env,
        NATS_URL: 'nats://127.0.0.1:4222',
        RLOOP_NAMESPACE: t.namespace,
        RLOOP_HOME: t.home,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the rloop command against the fleet', () => {
  it('submit --json prints each event of the run and a summary line, and exits 0 on convergence; status, journal and letter read it back', async () => {
    const repo = await t.sampleRepo('fixable', 'cli');
    const planFile = join(t.home, 'cli-plan.yaml');
    await writeFile(planFile, toYaml(samplePlan('e2e-cli', repo)));
    const submitted = await rloop(['submit', planFile, '--json']);
    expect(submitted.code).toBe(0);
    const lines = submitted.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({ plan: 'e2e-cli', outcome: 'converged' });
    expect(lines[0]).toMatchObject({ type: 'PlanSubmitted', plan: 'e2e-cli' });
    await t.outcome('e2e-cli', String(lines[0]?.['event_id']));

    const status = await rloop(['status', 'e2e-cli', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ plan: 'e2e-cli', status: 'converged' });
    const yaml = await rloop(['journal', 'e2e-cli', '--format', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/^plan: e2e-cli$/m);
    expect(yaml.stdout).toMatch(/convergence_delta:/);
    const letterId = (lines.find((l) => l['type'] === 'LetterWritten')?.['data'] as { letter: { letter_id: string } })
      .letter.letter_id;
    const letter = await rloop(['letter', letterId, '--format', 'md']);
    expect(letter.stdout).toMatch(new RegExp(`^# Letter ${letterId}`));
    const missing = await rloop(['letter', 'd_no_such_letter_0000']);
    expect(missing).toMatchObject({ code: 1, stderr: 'rloop: no letter d_no_such_letter_0000 in the journal\n' });
  }, 120_000);

  it('exits 1 with the reasons for a rejected plan, and 2 for an escalated loop', async () => {
    const bad = join(t.home, 'bad-plan.yaml');
    await writeFile(bad, toYaml({ slug: 'Bad Slug', title: 'x' }));
    const rejected = await rloop(['submit', bad]);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('rejected:');
    expect(rejected.stderr).toContain('slug:');

    const repo = await t.sampleRepo('unfixable', 'cli-unfixable');
    const planFile = join(t.home, 'cli-unfixable.yaml');
    await writeFile(planFile, toYaml(samplePlan('e2e-cli-unfixable', repo)));
    const escalated = await rloop(['submit', planFile, '--watch']);
    expect(escalated.code).toBe(2);
    // It ends with the one-screen summary, and the report is where the summary says.
    const summary =
      /e2e-cli-unfixable: escalated — critical \d+( → \d+)* in \d+ rounds?; \d+ commits? on rloop\/e2e-cli-unfixable; report: (\S+)\n/.exec(
        escalated.stderr,
      );
    expect(summary).not.toBeNull();
    await expect(readFile(join(t.home, 'reports', 'e2e-cli-unfixable', 'report.md'), 'utf8')).resolves.toContain(
      '# e2e-cli-unfixable: escalated',
    );
  }, 120_000);

  it('says in one line how to start NATS when it cannot reach it', async () => {
    const result = await rloop(['status'], { NATS_URL: 'nats://127.0.0.1:4299' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'rloop: cannot reach NATS at nats://127.0.0.1:4299 — start it with `nats-server -js` (JetStream on), or point NATS_URL / --nats-url at yours\n',
    );
  }, 30_000);

  it('says how to start the fleet when NATS answers but no service of the fleet does', async () => {
    const hint =
      ' — is the fleet running? start it with `rloop up`, or point --namespace / RLOOP_NAMESPACE at the one it uses\n';
    const status = await rloop(['status', '--namespace', 'rloop-nobody']);
    expect(status).toMatchObject({
      code: 1,
      stderr: `rloop: no service answers rloop-nobody.v1.journal.status${hint}`,
    });
    const planFile = join(t.home, 'nobody-plan.yaml');
    await writeFile(planFile, toYaml(samplePlan('e2e-nobody', fixableRepo)));
    const submitted = await rloop(['submit', planFile], { RLOOP_NAMESPACE: 'rloop-nobody' });
    expect(submitted).toMatchObject({
      code: 1,
      stderr: `rloop: no service answers rloop-nobody.v1.plans.submit${hint}`,
    });
  }, 30_000);
});
