import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import type { EventContext } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { defineCritic, reportEventId } from '@rloop/critic-sdk';
import { RepoPolicy } from '@rloop/critics';
import {
  InMemoryJournal,
  coreCatalogue,
  deliveryTo,
  inMemoryPorts,
  runStartEvents,
  startRoundOne,
} from '@rloop/journal-client';
import { CriticRunnerModule } from '../app.module.js';
import type { CriticRunnerConfig } from '../config.js';
import { HostedCriticsPresence } from '../registry/hosted-presence.js';
import type { RegistrySettings } from '../registry/registry-config.js';
import { RoundsController } from './rounds.controller.js';

// The critic-runner's round handler through Nest's DI, with the publisher and the journal client's
// requester as in-memory ports, a fixed clock and a real git repository for the round's checkout.
const PLAN = 'add-billing';
const RUN = '01JRUN0000000000000000000A';
const HOSTED = 'spec/marker';
const ELSEWHERE = 'team/elsewhere';
const at = (second: number): string => new Date(Date.parse('2026-11-30T10:00:00.000Z') + second * 1000).toISOString();

const catalogue = coreCatalogue({
  [HOSTED]: { evidence: 'pattern', timeout_ms: 30_000 },
  [ELSEWHERE]: { evidence: 'pattern', timeout_ms: 30_000 },
});

let runs = 0;
const marker = defineCritic({
  id: HOSTED,
  evidence: 'pattern',
  triggers: [],
  run: () => {
    runs += 1;
    return Promise.resolve([]);
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

const delivery = (deliveries = 1): EventContext => deliveryTo('critic-runner-committed-rounds', deliveries);

/** The bus decorators hand a handler's throw to the server as a value ({ error }); the value it returned otherwise. */
const outcome = (value: unknown): unknown =>
  (value as { error?: unknown } | undefined)?.error === undefined ? value : (value as { error: unknown }).error;

describe('the critic-runner answers a journaled round (handler through Nest DI)', () => {
  let home: string;
  let repo: string;
  let commit: string;
  let module: TestingModule | null = null;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'rloop-runner-'));
    repo = join(home, 'repo');
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    await writeFile(join(repo, 'a.ts'), 'export {};\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    commit = git(repo, 'rev-parse', 'HEAD');
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  afterEach(async () => {
    await module?.close();
    module = null;
  });

  /** A run of `repoPath` whose round 1 the panel started (decideNext itself), the RoundStarted last in the stream. */
  function runWithRoundStarted(journal: InMemoryJournal, repoPath = repo, pinned = commit): EventOf<'RoundStarted'> {
    journal.append(
      ...runStartEvents({
        plan: PLAN,
        runId: RUN,
        commit: pinned,
        at,
        repoPath,
        planSpec: { files: ['**/*.ts'] },
        gate: { files: ['a.ts'] },
      }),
    );
    return startRoundOne(journal, PLAN, catalogue, at(3));
  }

  async function handler(journal: InMemoryJournal, nowSecond: number): Promise<RoundsController> {
    const config = {
      workRoot: join(home, 'work'),
      maxFileBytes: null,
      repoPolicy: RepoPolicy.parse({}),
      anthropic: null,
    } as Partial<CriticRunnerConfig> as CriticRunnerConfig;
    module = await Test.createTestingModule({
      imports: [
        inMemoryPorts(
          journal,
          { now: () => new Date(at(nowSecond)) },
          { service: 'critic-runner', producer: 'critic-runner@spec' },
        ),
        CriticRunnerModule.forRoot(config, [marker], {} as RegistrySettings),
      ],
    })
      // The registry heartbeat needs NATS; the round handler does not use it.
      .overrideProvider(HostedCriticsPresence)
      .useValue({})
      .compile();
    return module.get(RoundsController);
  }

  it('given a round with a critic hosted here and one hosted elsewhere, when its RoundStarted is announced, then only the hosted one runs and answers, under its report id, stamped by the clock and the identity', async () => {
    const journal = new InMemoryJournal();
    const started = runWithRoundStarted(journal);
    const controller = await handler(journal, 5);
    const before = runs;
    expect(outcome(await controller.onCommitted(journal.announce(PLAN), delivery()))).toEqual(
      new Map([[HOSTED, 'reported']]),
    );
    expect(runs).toBe(before + 1);
    expect(journal.published.map((e) => [e.type, e.event_id, e.producer, e.occurred_at])).toEqual([
      ['FindingsReported', reportEventId(started, HOSTED), 'critic-runner@spec', at(5)],
    ]);
  });

  it('given the critic already answered, when the announcement is redelivered, then it is not run again and nothing is published', async () => {
    const journal = new InMemoryJournal();
    const started = runWithRoundStarted(journal);
    const first = await handler(journal, 5);
    await first.onCommitted(journal.announce(PLAN), delivery());
    await module?.close();
    // The journal stores what the first delivery published.
    for (const event of journal.published.splice(0)) if (event.type === 'FindingsReported') journal.append(event);
    const controller = await handler(journal, 6);
    const before = runs;
    // The announcement of the RoundStarted (now followed by the report) comes back.
    const announcement = journal.announce(PLAN, 2);
    expect(announcement.data.events.map((e) => e.event_id)).toContain(started.event_id);
    expect(outcome(await controller.onCommitted(announcement, delivery(2)))).toEqual(
      new Map([[HOSTED, 'already_answered']]),
    );
    expect(runs).toBe(before);
    expect(journal.published).toEqual([]);
  });

  it("given the clock is past the round's deadline, when its RoundStarted is announced, then nothing is reviewed (the synthesizer times the critic out)", async () => {
    const journal = new InMemoryJournal();
    const started = runWithRoundStarted(journal);
    const controller = await handler(journal, (Date.parse(started.data.deadline_at) - Date.parse(at(0))) / 1000 + 1);
    const before = runs;
    expect(outcome(await controller.onCommitted(journal.announce(PLAN), delivery()))).toEqual(
      new Map([[HOSTED, 'expired']]),
    );
    expect(runs).toBe(before);
    expect(journal.published).toEqual([]);
  });

  it('given the run\'s commit cannot be read on this host, when its RoundStarted is announced, then the hosted critic answers CriticFailed not_runnable (never "0 findings")', async () => {
    const journal = new InMemoryJournal();
    runWithRoundStarted(journal, join(home, 'nowhere'), 'e'.repeat(40));
    const controller = await handler(journal, 5);
    expect(outcome(await controller.onCommitted(journal.announce(PLAN), delivery()))).toEqual(
      new Map([[HOSTED, 'failed']]),
    );
    expect(
      journal.published.map((e) => [
        e.type,
        e.type === 'CriticFailed' ? [e.data.critic_id, e.data.reason, e.data.core] : null,
      ]),
    ).toEqual([['CriticFailed', [HOSTED, 'not_runnable', true]]]);
  });
});
