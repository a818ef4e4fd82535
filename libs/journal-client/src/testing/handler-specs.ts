import { EventContext } from '@rloop/bus';
import type { EventOf, PlanSpec } from '@rloop/contracts';
import { journaledEvent } from './in-memory-journal.js';

// What handler specs over the in-memory ports share besides the journal: a run's first three
// events, a delivery to a consumer, and what a handler threw.

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
