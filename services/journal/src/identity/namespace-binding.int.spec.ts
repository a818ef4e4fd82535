import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JetStreamClient, type RunningService, ServiceLogger } from '@rloop/bus';
import { JournalClient } from '@rloop/journal-client';
import {
  TEST_NATS_URL,
  type TestDatabase,
  type TestNats,
  connectTestNats,
  createTestDatabase,
  eventually,
  uniqueNamespace,
} from '@rloop/testing';
import { envelopeFactory } from '../testing/envelopes.test-helpers.js';
import { QUIET, runStart, startJournal } from '../testing/journal-harness.test-helpers.js';

// A journal never mixes histories: a journal started on a new, empty database over a namespace
// that carries another journal's runs says what it found and what to do, and journals none of
// those runs' events; a second journal is refused while the first one runs.

const envelope = envelopeFactory({ idPrefix: '01JBIND', producer: 'binding-spec' });
const { submitted } = runStart(envelope);

let namespace: string;
let nats: TestNats;
let client: JetStreamClient;
const databases: TestDatabase[] = [];
const running: RunningService[] = [];

/** A journal on `database` whose log lines go to `lines`. */
async function startLoggedJournal(database: TestDatabase, lines: string[]): Promise<RunningService> {
  const logger = new ServiceLogger('journal', { levels: ['log', 'warn', 'error'], sink: (line) => lines.push(line) });
  const service = await startJournal(namespace, database, logger);
  running.push(service);
  return service;
}

beforeAll(async () => {
  namespace = uniqueNamespace('jb');
  nats = await connectTestNats(namespace);
  client = new JetStreamClient({ service: 'binding-spec', servers: TEST_NATS_URL, namespace }, QUIET);
  await client.connect();
}, 30_000);

afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  await client?.close();
  await nats?.cleanup();
  await Promise.all(databases.map((d) => d.drop()));
}, 30_000);

describe('a journal bound to its namespace', () => {
  it('refuses a second journal while the first runs, and after it stopped, a journal on an empty database takes the namespace over without journaling the old runs', async () => {
    const [first, second] = await Promise.all([createTestDatabase('rloop_bind_a'), createTestDatabase('rloop_bind_b')]);
    databases.push(first, second);
    const firstLines: string[] = [];
    const journalA = await startLoggedJournal(first, firstLines);
    expect(firstLines.join('\n')).toContain(`is now the journal of namespace ${namespace}`);
    const runId = '01JRUNBINDOLD0000000000001';
    await client.publish(submitted('b-old', runId));
    const journal = new JournalClient(client);
    await eventually(async () => ((await journal.loopState('b-old')).state !== null ? true : undefined), {
      description: 'the first journal holding b-old',
    });

    // Another database while the first journal runs: refused, saying why.
    const refusedLines: string[] = [];
    await expect(startLoggedJournal(second, refusedLines)).rejects.toMatchObject({ code: 'JOURNAL.NAMESPACE_TAKEN' });
    expect(refusedLines.join('\n')).toMatch(/which is running .* two journals on one namespace would split its events/);

    // The first journal stops; its claim lapses (a stopped fleet, a new home): the new journal takes over.
    await journalA.stop();
    running.splice(running.indexOf(journalA), 1);
    const stored = await nats.jsm.streams.getMessage(`KV_${nats.subjects.journalBucket}`, {
      last_by_subj: `$KV.${nats.subjects.journalBucket}.owner`,
    });
    const claim = JSON.parse(new TextDecoder().decode(stored?.data)) as Record<string, string>;
    // Its last heartbeat long ago, as after a fleet stopped for a while (rather than waiting out the 90 s).
    await nats.publishRaw(
      `$KV.${nats.subjects.journalBucket}.owner`,
      JSON.stringify({ ...claim, heartbeat_at: '2026-01-01T00:00:00.000Z' }),
    );
    const secondLines: string[] = [];
    await startLoggedJournal(second, secondLines);
    const said = secondLines.join('\n');
    expect(said).toContain(`belonged to journal ${claim['journal_id']}`);
    expect(said).toContain('not journaled here: they are dead-lettered as orphans');
    expect(said).toMatch(/to keep .* history instead, stop this journal and start it on PostgreSQL/);

    // The old run's late events reach the new journal: dead-lettered as orphans, no ghost plan.
    await client.publish(
      envelope('CriticFailed', 'b-old', runId, {
        round: 2,
        critic_id: 'security/sast-scanner',
        core: true,
        reason: 'timed_out',
        message: 'late',
      }),
    );
    const dead = await eventually(async () =>
      (await nats.deadLetters()).find((d) => d.code === 'JOURNAL.ORPHAN_EVENT'),
    );
    expect(dead.subject).toContain('b-old');
    expect((await journal.status()).map((p) => p.plan)).toEqual([]);
  }, 60_000);
});
