import { EventContext } from '@rloop/bus';
import type { EventOf, PlanSpec } from '@rloop/contracts';
import { CriticCatalogue, decideNext } from '@rloop/domain';
import { type InMemoryJournal, journaledEvent } from './in-memory-journal.js';

// What handler specs over the in-memory ports share besides the journal: a catalogue, a run's
// first events up to its round 1, a delivery to a consumer, and what a handler threw.

/** A catalogue of these core critics (k 3/5/7, soft caps default 2/2/1/1, no dynamic critics). */
export function coreCatalogue(
  critics: Readonly<Record<string, { readonly evidence: string; readonly timeout_ms: number }>>,
  softCaps = { critical: 2, medium: 2, low: 1, final_sweep: 1 },
): CriticCatalogue {
  return CriticCatalogue.parse({
    k: { critical: 3, medium: 5, low: 7, final_sweep: null },
    soft_caps: softCaps,
    round_grace_ms: 1000,
    critics,
    core: Object.keys(critics),
    dynamic: [],
  });
}

export interface RunStartOptions {
  readonly plan: string;
  readonly runId: string;
  /** The commit the run is gated and baselined on. */
  readonly commit: string;
  /** occurred_at of the n-th event (0: PlanSubmitted, 1: LoopGated, 2: BaselineRecorded). */
  readonly at: (n: number) => string;
  /** The repository path of the plan and the gate. Default '/repo'. */
  readonly repoPath?: string;
  /** The plan's and the gate's test command. Default 'npm test'. */
  readonly testCmd?: string;
  readonly submissionId?: string;
  /** Fields of the plan that differ from an "Add billing" plan on src/**\/*.ts. */
  readonly planSpec?: Partial<PlanSpec>;
  /** Fields of the gate's verdict that differ from "run" on src/index.ts. */
  readonly gate?: Partial<EventOf<'LoopGated'>['data']>;
}

/** A run submitted (its PlanSubmitted's id is the run id), gated to run and baselined green (1 of 1 tests). */
export function runStartEvents(
  options: RunStartOptions,
): [EventOf<'PlanSubmitted'>, EventOf<'LoopGated'>, EventOf<'BaselineRecorded'>] {
  const { plan, runId, commit, at, repoPath = '/repo', testCmd = 'npm test' } = options;
  const envelope = (n: number, eventId?: string) => ({
    plan,
    runId,
    at: at(n),
    ...(eventId === undefined ? {} : { eventId }),
  });
  return [
    journaledEvent(
      'PlanSubmitted',
      {
        plan: {
          slug: plan,
          title: 'Add billing',
          description: 'Adds invoices',
          effort_level: 'high',
          files: ['src/**/*.ts'],
          repo: { path: repoPath, ref: 'HEAD' },
          test_cmd: testCmd,
          implementer: { strategy: 'autofix' },
          ...options.planSpec,
        },
        submission_id: options.submissionId ?? 'sub-1',
      },
      envelope(0, runId),
    ),
    journaledEvent(
      'LoopGated',
      {
        verdict: 'run',
        rules: [],
        commit,
        files: ['src/index.ts'],
        repo_path: repoPath,
        test_cmd: testCmd,
        ...options.gate,
      },
      envelope(1),
    ),
    journaledEvent(
      'BaselineRecorded',
      {
        commit,
        branch: `rloop/${plan}`,
        tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
        exit_code: 0,
        failing: [],
        duration_ms: 1,
      },
      envelope(2),
    ),
  ];
}

/**
 * Appends round 1 of `plan` as the panel starts it (decideNext on the journal's state, every
 * critic available, decided at `now`) and returns its RoundStarted.
 */
export function startRoundOne(
  journal: InMemoryJournal,
  plan: string,
  catalogue: CriticCatalogue,
  now: string,
): EventOf<'RoundStarted'> {
  const [started] = decideNext(journal.state(plan), {
    catalogue,
    availability: () => ({ state: 'available' }),
    producer: 'panel@spec',
    now,
  });
  if (started?.type !== 'RoundStarted') throw new Error(`expected a RoundStarted, got ${started?.type}`);
  journal.append(started);
  return started;
}

/** The n-th delivery of a message to `consumer`. */
export function deliveryTo(consumer: string, deliveries = 1): EventContext {
  return new EventContext([
    { consumer, stream: 'S', subject: 's', streamSequence: 1, deliveries, headers: {} },
    () => undefined,
  ]);
}

/** The bus decorators hand a handler's throw to the server as a value ({ error }); undefined when it returned normally. */
export function thrownBy(outcome: unknown): unknown {
  return (outcome as { error?: unknown } | undefined)?.error;
}
