import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import { JetStreamClient, openCriticHealthBucket, readCriticRegistry } from '@rloop/bus';
import { type EventOf, type RloopEvent, parseEvent } from '@rloop/contracts';
import { pruneReadOnlyCheckouts } from '@rloop/git';
import {
  TEST_NATS_URL,
  type TestNats,
  connectTestNats,
  eventually,
  startGitDaemon,
  uniqueNamespace,
} from '@rloop/testing';
import { ulid } from 'ulid';
import {
  type RunningCriticService,
  type ServiceCritic,
  defineCritic,
  draftFinding,
  reportEventId,
  runCriticService,
} from './index.js';

const CRITIC_ID = 'examples/spec-marker';

/** Flags every line containing MARKER; waits for its deadline on a file named slow.txt. */
const critic: ServiceCritic = defineCritic({
  id: CRITIC_ID,
  evidence: 'pattern',
  triggers: ['**/*.txt'],
  description: 'test critic',
  run: async ({ repoDir, files, signal }) => {
    if (files.includes('slow.txt')) {
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return [];
    }
    const { readFile } = await import('node:fs/promises');
    const drafts = [];
    for (const file of files) {
      const lines = (await readFile(join(repoDir, file), 'utf8')).split('\n');
      for (const [i, line] of lines.entries()) {
        if (!line.includes('MARKER')) continue;
        drafts.push(
          draftFinding({
            severity: 'low',
            category: 'readability',
            finding_type: 'spec/marker',
            file,
            line_range: { start: i + 1, end: i + 1 },
            title: 'a marker is left in the file',
            current_behaviour: 'the line holds MARKER',
            expected_behaviour: 'no MARKER in the file',
            observable_test_conditions: [`${file} has no line with MARKER`],
            forbidden_in_test: [],
          }),
        );
      }
    }
    return drafts;
  },
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).trim();
}

function collectingLogger(lines: string[]): LoggerService {
  const put = (message: unknown): void => void lines.push(String(message));
  return { log: put, warn: put, error: put, debug: put, verbose: put };
}

describe('runCriticService on the real NATS server', () => {
  const namespace = uniqueNamespace('sdk');
  let nats: TestNats;
  let publisher: JetStreamClient;
  let home: string;
  let repo: string;
  let commit: string;
  const lines: string[] = [];
  const services: RunningCriticService[] = [];

  function round(overrides: Partial<EventOf<'RoundStarted'>['data']> = {}, plan = 'sdk-plan'): EventOf<'RoundStarted'> {
    const id = ulid();
    return {
      event_id: id,
      type: 'RoundStarted',
      schema_version: 1,
      plan,
      correlation_id: ulid(),
      causation_id: null,
      occurred_at: new Date().toISOString(),
      producer: 'sdk-spec',
      data: {
        round: 1,
        phase: 'critical',
        phase_round: 1,
        k: 3,
        mode: 'loop',
        commit,
        base_commit: commit,
        repo_path: repo,
        files: ['a.txt'],
        critics: [{ critic_id: CRITIC_ID, evidence: 'pattern', core: true, reason: 'core', timeout_ms: 10_000 }],
        not_configured: [],
        deadline_at: new Date(Date.now() + 60_000).toISOString(),
        ...overrides,
      },
    };
  }

  async function answers(plan: string): Promise<RloopEvent[]> {
    const stored = [
      ...(await nats.messages(nats.subjects.streams.events, `${nats.namespace}.v1.events.findings_reported.${plan}.*`)),
      ...(await nats.messages(nats.subjects.streams.events, `${nats.namespace}.v1.events.critic_failed.${plan}.*`)),
    ];
    return stored.flatMap((m) => {
      const parsed = parseEvent(m.json());
      return parsed.ok ? [parsed.event] : [];
    });
  }

  async function start(instanceId: string): Promise<RunningCriticService> {
    const service = await runCriticService(critic, {
      natsUrl: TEST_NATS_URL,
      namespace,
      instanceId,
      heartbeatIntervalMs: 500,
      workRoot: join(home, 'work'),
      handleSignals: false,
      logger: collectingLogger(lines),
    });
    services.push(service);
    return service;
  }

  beforeAll(async () => {
    nats = await connectTestNats(namespace);
    home = await mkdtemp(join(tmpdir(), 'rloop-sdk-'));
    repo = join(home, 'repo');
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    await writeFile(join(repo, 'a.txt'), 'one\nMARKER two\nthree\n');
    await writeFile(join(repo, 'slow.txt'), 'slow\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    commit = git(repo, 'rev-parse', 'HEAD');
    publisher = new JetStreamClient({ service: 'sdk-spec', servers: TEST_NATS_URL, namespace }, collectingLogger([]));
    await start('spec-1');
  }, 30_000);

  afterAll(async () => {
    for (const service of services) await service.stop();
    await publisher?.close();
    await nats?.cleanup();
    await pruneReadOnlyCheckouts(join(home, 'work'), []);
    await rm(home, { recursive: true, force: true });
  }, 30_000);

  it('registers the critic in the health bucket, alive, with its evidence and triggers', async () => {
    const bucket = await openCriticHealthBucket(nats.connection, namespace);
    const snapshot = await readCriticRegistry(bucket);
    expect(snapshot.critics).toEqual([
      expect.objectContaining({
        critic_id: CRITIC_ID,
        evidence: 'pattern',
        triggers: ['**/*.txt'],
        health: 'alive',
        heartbeat_interval_ms: 500,
      }),
    ]);
    const registered = await nats.messages(
      nats.subjects.streams.critics,
      nats.subjects.event('CriticRegistered', CRITIC_ID),
    );
    expect(registered).toHaveLength(1);
  });

  it('answers a round it is dispatched to with FindingsReported under the deterministic report id, once', async () => {
    const event = round({}, 'sdk-found');
    await publisher.publish(event);
    // The same round again (a second announcement of it): the answer's id is the same, so it is stored once.
    await publisher.publish({ ...event, event_id: ulid() });

    const [answer] = await eventually(
      async () => {
        const found = await answers('sdk-found');
        return found.length > 0 ? found : undefined;
      },
      { description: 'the report' },
    );
    await eventually(() => lines.filter((l) => l.includes('sdk-found round 1: reported')).length === 2, {
      description: 'both announcements handled',
    });

    expect(await answers('sdk-found')).toHaveLength(1);
    expect(answer).toMatchObject({
      type: 'FindingsReported',
      event_id: reportEventId(event, CRITIC_ID),
      causation_id: event.event_id,
      correlation_id: event.correlation_id,
      producer: `critic:${CRITIC_ID}@spec-1`,
    });
    if (answer?.type !== 'FindingsReported') throw new Error('expected FindingsReported');
    expect(answer.data.findings).toEqual([
      expect.objectContaining({
        file: 'a.txt',
        line_range: { start: 2, end: 2 },
        raised_by: CRITIC_ID,
        finding_type: 'spec/marker',
      }),
    ]);
  });

  it('leaves rounds it is not on, and rounds past their deadline, unanswered', async () => {
    await publisher.publish(
      round(
        { critics: [{ critic_id: 'other/critic', evidence: 'x', core: true, reason: 'core', timeout_ms: 1000 }] },
        'sdk-other',
      ),
    );
    await publisher.publish(round({ deadline_at: new Date(Date.now() - 1000).toISOString() }, 'sdk-late'));

    await eventually(() => lines.some((l) => l.includes('sdk-late round 1: deadline')), {
      description: 'the late round seen',
    });
    await eventually(
      async () =>
        (await nats.consumerInfo(nats.subjects.streams.events, services[0]?.consumer ?? '')).num_ack_pending === 0,
      { description: 'everything acked' },
    );

    expect(await answers('sdk-other')).toEqual([]);
    expect(await answers('sdk-late')).toEqual([]);
  });

  it('reports CriticFailed timed_out past the dispatch timeout, and not_runnable when the commit cannot be read here', async () => {
    await publisher.publish(
      round(
        {
          files: ['slow.txt'],
          critics: [{ critic_id: CRITIC_ID, evidence: 'pattern', core: false, reason: 'trigger', timeout_ms: 200 }],
        },
        'sdk-slow',
      ),
    );
    // A commit this host has never checked out, in a repository that is not here.
    await publisher.publish(round({ repo_path: join(home, 'nowhere'), commit: 'e'.repeat(40) }, 'sdk-remote'));

    const [slow] = await eventually(
      async () => ((await answers('sdk-slow')).length > 0 ? answers('sdk-slow') : undefined),
      { description: 'the timeout' },
    );
    const [remote] = await eventually(
      async () => ((await answers('sdk-remote')).length > 0 ? answers('sdk-remote') : undefined),
      { description: 'the checkout failure' },
    );

    expect(slow).toMatchObject({
      type: 'CriticFailed',
      data: { reason: 'timed_out', core: false, critic_id: CRITIC_ID },
    });
    expect(remote).toMatchObject({
      type: 'CriticFailed',
      data: { reason: 'not_runnable', core: true, message: expect.stringContaining('from this host') as unknown },
    });
  });

  it('reads a plan given by URL from its own cache, fetched by sha (no disk shared with the gate)', async () => {
    // The gate's path is on another host; only the repository's URL reaches this one.
    const daemon = await startGitDaemon(home);
    try {
      await publisher.publish(
        round({ repo_path: join(home, 'gate-host-only'), repo_url: daemon.urlOf('repo') }, 'sdk-url'),
      );

      const [answer] = await eventually(
        async () => ((await answers('sdk-url')).length > 0 ? answers('sdk-url') : undefined),
        { description: 'the report from the URL' },
      );

      if (answer?.type !== 'FindingsReported')
        throw new Error(`expected FindingsReported, got ${JSON.stringify(answer)}`);
      expect(answer.data.findings).toEqual([
        expect.objectContaining({ file: 'a.txt', line_range: { start: 2, end: 2 }, finding_type: 'spec/marker' }),
      ]);
    } finally {
      await daemon.stop();
    }
  });

  it('shares the work between two replicas: every round reviewed and answered once', async () => {
    await start('spec-2');
    const plans = Array.from({ length: 8 }, (_, i) => `sdk-shared-${i}`);
    for (const plan of plans) await publisher.publish(round({}, plan));

    const all = await eventually(
      async () => {
        const found = (await Promise.all(plans.map((p) => answers(p)))).flat();
        return found.length === plans.length ? found : undefined;
      },
      { timeoutMs: 20_000, description: 'every shared round answered' },
    );

    expect(new Set(all.map((e) => e.plan)).size).toBe(plans.length);
    // The server hands a shared durable's messages to the replicas' waiting pulls in turn.
    expect(new Set(all.map((e) => e.producer))).toEqual(
      new Set([`critic:${CRITIC_ID}@spec-1`, `critic:${CRITIC_ID}@spec-2`]),
    );
    // Reviewed once each: no replica ran a round the other answered.
    expect(lines.filter((l) => l.includes('sdk-shared-') && l.includes('reported'))).toHaveLength(plans.length);
  });

  it('withdraws on stop: its entry leaves the bucket at once and a draining heartbeat is published', async () => {
    const second = services.find((s) => s.instanceId === 'spec-2');
    await second?.stop();
    const bucket = await openCriticHealthBucket(nats.connection, namespace);

    const snapshot = await readCriticRegistry(bucket);

    expect(snapshot.critics[0]?.instances.map((i) => i.instance_id)).toEqual(['spec-1']);
    const beats = (
      await nats.messages(nats.subjects.streams.critics, nats.subjects.event('CriticHeartbeat', CRITIC_ID))
    ).map((m) => m.json() as EventOf<'CriticHeartbeat'>);
    expect(beats.some((b) => b.data.instance_id === 'spec-2' && b.data.status === 'draining')).toBe(true);
  });

  it('fails to start with one clear error when NATS cannot be reached', async () => {
    const error = await runCriticService(critic, {
      natsUrl: 'nats://127.0.0.1:1',
      namespace,
      connectTimeoutMs: 300,
      handleSignals: false,
      logger: collectingLogger([]),
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'CRITIC_SDK.CONNECT_FAILED',
      message: expect.stringContaining('cannot reach NATS at nats://127.0.0.1:1') as unknown,
    });
  });
});
