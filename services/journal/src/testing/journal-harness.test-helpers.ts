import type { LoggerService } from '@nestjs/common';
import { JetStreamClient, type RunningService, startService } from '@rloop/bus';
import type { EventOf } from '@rloop/contracts';
import { JournalClient } from '@rloop/journal-client';
import {
  TEST_NATS_URL,
  type TestDatabase,
  type TestNats,
  connectTestNats,
  createTestDatabase,
  uniqueNamespace,
} from '@rloop/testing';
import { JournalModule } from '../app.module.js';
import { loadJournalConfig } from '../config.js';
import { openJournalStore } from '../open-store.js';
import type { Envelope } from './envelopes.test-helpers.js';

/** A logger that says nothing: the specs assert on events and rows, not on log lines. */
export const QUIET: LoggerService = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

/** The commit every spec run is gated and baselined on. */
export const SHA = 'a'.repeat(40);

/** Starts the journal service on a database and namespace; closes its store when the start fails. */
export async function startJournal(
  namespace: string,
  database: TestDatabase,
  logger: LoggerService = QUIET,
): Promise<RunningService> {
  const config = loadJournalConfig({ NATS_URL: TEST_NATS_URL, RLOOP_NAMESPACE: namespace, DATABASE_URL: database.url });
  const store = await openJournalStore(config);
  try {
    return await startService({
      name: 'journal',
      module: JournalModule.forRoot(config, store),
      bus: config.bus,
      logger,
      handleSignals: false,
      exitOnFailure: false,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
}

export interface JournalHarness {
  readonly namespace: string;
  readonly database: TestDatabase;
  readonly service: RunningService;
  /** The spec's own bus client, publishing as `producer`. */
  readonly client: JetStreamClient;
  readonly journal: JournalClient;
  /** Reads the namespace's streams (commits, dead letters) and removes them at the end. */
  readonly nats: TestNats;
  /** Stops everything started and drops the database. */
  stop(): Promise<void>;
}

export interface JournalHarnessOptions {
  /** Prefix of the fresh database's name. */
  readonly database: string;
  /** Prefix of the fresh namespace. */
  readonly namespace: string;
  /** The bus service name the spec publishes as. */
  readonly producer: string;
}

/** A journal on a fresh database and namespace, with a client to publish and query through. */
export async function startJournalHarness(options: JournalHarnessOptions): Promise<JournalHarness> {
  const namespace = uniqueNamespace(options.namespace);
  const database = await createTestDatabase(options.database);
  let service: RunningService | undefined;
  let client: JetStreamClient | undefined;
  let nats: TestNats | undefined;
  const stop = async (): Promise<void> => {
    await client?.close();
    await service?.stop();
    await nats?.cleanup();
    await database.drop();
  };
  try {
    service = await startJournal(namespace, database);
    client = new JetStreamClient({ service: options.producer, servers: TEST_NATS_URL, namespace }, QUIET);
    await client.connect();
    nats = await connectTestNats(namespace);
    return { namespace, database, service, client, journal: new JournalClient(client), nats, stop };
  } catch (error) {
    // afterAll never sees a harness that failed to start: clean up here.
    await stop().catch(() => undefined);
    throw error;
  }
}

export interface RunStartOptions {
  /** The plan's files (PlanSubmitted), and the gate's unless `gatedFiles` says otherwise. */
  readonly files?: readonly string[];
  readonly gatedFiles?: readonly string[];
}

/** What the gate decided for a run on `files`: run it. */
export function gating(files: readonly string[]): EventOf<'LoopGated'>['data'] {
  return { verdict: 'run', rules: [], commit: SHA, files: [...files], repo_path: '/r', test_cmd: 'true' };
}

/** The events that start a run, built with a spec's envelope factory (its ids and producer). */
export function runStart(envelope: Envelope, options: RunStartOptions = {}) {
  const files = options.files ?? ['a.js'];
  const gatedFiles = options.gatedFiles ?? files;
  return {
    submitted: (plan: string, runId: string): EventOf<'PlanSubmitted'> =>
      envelope(
        'PlanSubmitted',
        plan,
        runId,
        {
          plan: {
            slug: plan,
            title: 'T',
            description: '',
            effort_level: 'high',
            files: [...files],
            repo: { path: '/r', ref: 'HEAD' },
            test_cmd: 'true',
            implementer: { strategy: 'autofix' },
          },
          submission_id: runId,
        },
        runId,
      ),
    /** The gate's verdict as a bare fact, as the projections store it (no decision version). */
    gatedFact: (plan: string, runId: string): EventOf<'LoopGated'> =>
      envelope('LoopGated', plan, runId, gating(gatedFiles)),
    /** The gate's decision, made on the run's first version (its PlanSubmitted); its id is the event's unless given. */
    gated: (plan: string, runId: string, decisionId?: string): EventOf<'LoopGated'> => {
      const event = envelope('LoopGated', plan, runId, gating(gatedFiles));
      return { ...event, decision: { expected_version: 1, id: decisionId ?? event.event_id } };
    },
    baseline: (plan: string, runId: string): EventOf<'BaselineRecorded'> =>
      envelope('BaselineRecorded', plan, runId, {
        commit: SHA,
        branch: `rloop/${plan}`,
        tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
        exit_code: 0,
        failing: [],
        duration_ms: 1,
      }),
  };
}
