// Builders for domain specs: valid contract values with only the interesting fields spelled out.
import {
  type EventOf,
  type Finding,
  type JournaledEvent,
  type Letter,
  type PlanSpec,
  parseEventOrThrow,
} from '@rloop/contracts';
import { CriticCatalogue } from '../config/catalogue.js';
import { fingerprintOf } from '../identity/fingerprint.js';
import type { PanelContext } from '../loop/decide.js';
import { evolveLoop, initialLoopState, type LoopState } from '../loop/state.js';

export const SHA_A = 'a'.repeat(40);
export const SHA_B = 'b'.repeat(40);
export const SHA_C = 'c'.repeat(40);
export const RUN_ID = '01JRUN0000000000000000000A';

export function finding(overrides: Partial<Finding> = {}): Finding {
  const base = {
    id: 'f-1',
    severity: 'critical' as const,
    score: 8,
    category: 'correctness' as const,
    finding_type: 'tsc/TS2322',
    file: 'src/index.ts',
    line_range: { start: 3, end: 3 },
    title: 'Type mismatch',
    current_behaviour: 'a string is assigned to a number',
    expected_behaviour: 'the value is a number',
    observable_test_conditions: ['tsc reports no TS2322 in src/index.ts'],
    forbidden_in_test: ['@ts-ignore'],
    raised_by: 'toolchain/compiler-linter',
    related_findings: [],
    fixable: false,
    related_locations: [],
    ...overrides,
  };
  return {
    ...base,
    fingerprint:
      overrides.fingerprint ??
      fingerprintOf({
        critic_id: base.raised_by,
        file: base.file,
        line_range: base.line_range,
        finding_type: base.finding_type,
      }),
  };
}

export function planSpec(overrides: Partial<PlanSpec> = {}): PlanSpec {
  return {
    slug: 'add-billing',
    title: 'Add billing',
    description: 'Adds invoices',
    effort_level: 'high',
    files: ['src/**/*.ts'],
    repo: { path: '/repo', ref: 'HEAD' },
    test_cmd: 'npm test',
    implementer: { strategy: 'autofix' },
    ...overrides,
  };
}

export const catalogue = CriticCatalogue.parse({
  k: { critical: 3, medium: 5, low: 7, final_sweep: null },
  soft_caps: { critical: 2, medium: 2, low: 1, final_sweep: 1 },
  round_grace_ms: 1000,
  critics: {
    'toolchain/compiler-linter': { evidence: 'toolchain', timeout_ms: 60_000 },
    'security/sast-scanner': { evidence: 'dataflow', timeout_ms: 30_000 },
    'quality/code-reviewer': { evidence: 'llm', requires: 'anthropic', timeout_ms: 120_000 },
    'specialized/database-reviewer': { evidence: 'pattern', timeout_ms: 10_000 },
  },
  core: ['toolchain/compiler-linter', 'security/sast-scanner', 'quality/code-reviewer'],
  dynamic: [{ name: 'db-migration', globs: ['**/migrations/**'], critics: ['specialized/database-reviewer'] }],
});

/** Everything available except the LLM reviewer (no API key), as on a machine without one. */
export const availability = (id: string) =>
  id === 'quality/code-reviewer'
    ? ({ state: 'not_configured', reason: 'ANTHROPIC_API_KEY is not set' } as const)
    : ({ state: 'available' } as const);

let clock = Date.parse('2026-11-30T10:00:00.000Z');
let counter = 0;

/** A valid journaled event with envelope defaults for the test run. */
export function event<T extends JournaledEvent['type']>(
  type: T,
  data: Extract<JournaledEvent, { type: T }>['data'],
  overrides: { event_id?: string; correlation_id?: string } = {},
): Extract<JournaledEvent, { type: T }> {
  clock += 1000;
  counter += 1;
  return parseEventOrThrow(type, {
    event_id: overrides.event_id ?? `01JEVENT${String(counter).padStart(18, '0')}`,
    type,
    schema_version: 1,
    plan: 'add-billing',
    correlation_id: overrides.correlation_id ?? RUN_ID,
    causation_id: null,
    occurred_at: new Date(clock).toISOString(),
    producer: 'test',
    data,
  });
}

/** Folds events in order, numbering stream positions from 1. */
export function given(...events: readonly JournaledEvent[]): LoopState {
  return events.reduce((state, e, i) => evolveLoop(state, e, i + 1), initialLoopState('add-billing'));
}

export function letterFor(
  round: number,
  phase: Letter['phase'],
  findings: Finding[],
  options: { complete?: boolean; mode?: Letter['mode'] } = {},
): Letter {
  const counts = { critical: 0, medium: 0, low: 0 };
  for (const f of findings) counts[f.severity] += 1;
  return {
    letter_id: `d_letter${String(round).padStart(8, '0')}`,
    plan: 'add-billing',
    run_id: RUN_ID,
    round,
    phase,
    k: 3,
    commit: SHA_A,
    mode: options.mode ?? 'loop',
    created_at: '2026-11-30T10:00:00.000Z',
    critics: [
      {
        critic_id: 'toolchain/compiler-linter',
        core: true,
        outcome: options.complete === false ? 'failed' : 'reported',
        findings_total: findings.length,
        findings_kept: findings.length,
      },
    ],
    findings,
    counts,
    complete: options.complete ?? true,
    disagreements: [],
    summary: 'test letter',
  };
}

/** The run's PlanSubmitted (its event id is the run id), with the plan's fields overridden. */
export const submitted = (plan: Partial<PlanSpec> = {}) =>
  event('PlanSubmitted', { plan: planSpec(plan), submission_id: 'sub-1' }, { event_id: RUN_ID });

/** The gate's verdict on SHA_A for src/index.ts in /repo, with the given fields overridden. */
export const gated = (data: Partial<EventOf<'LoopGated'>['data']> = {}) =>
  event('LoopGated', {
    verdict: 'run',
    rules: [],
    commit: SHA_A,
    files: ['src/index.ts'],
    repo_path: '/repo',
    test_cmd: 'npm test',
    ...data,
  });

/** A green baseline on SHA_A (3 of 3 tests pass), with the given fields overridden. */
export const baseline = (data: Partial<EventOf<'BaselineRecorded'>['data']> = {}) =>
  event('BaselineRecorded', {
    commit: SHA_A,
    branch: 'rloop/add-billing',
    tests: { added: 0, passed: 3, failed: 0, total: 3, regressions: 0, warnings: 0 },
    exit_code: 0,
    failing: [],
    duration_ms: 10,
    ...data,
  });

/** A run's start with the defaults above: submitted, gated to run, baselined green. */
export const runStart = (): JournaledEvent[] => [submitted(), gated(), baseline()];

/** Folds events onto a state the way the journal does after committing them: each at the next position. */
export function append(state: LoopState, events: readonly JournaledEvent[]): LoopState {
  return events.reduce((s, e) => evolveLoop(s, e, s.version + 1), state);
}

/** What the panel decides with in a spec: the catalogue and availability above, a fixed clock. */
export const panelContext = (overrides: Partial<PanelContext> = {}): PanelContext => ({
  catalogue,
  availability,
  producer: 'panel@test',
  now: '2026-11-30T12:00:00.000Z',
  ...overrides,
});

/** A report from every critic of the current round, on the round's commit, with the findings given per critic. */
export function reportsFor(
  state: LoopState,
  findingsByCritic: Record<string, Finding[]> = {},
  durationMs = 5,
): JournaledEvent[] {
  const current = state.current;
  if (current === null) throw new Error('no round');
  return current.critics.map((c) =>
    event('FindingsReported', {
      round: current.round,
      critic_id: c.critic_id,
      commit: current.commit,
      findings: findingsByCritic[c.critic_id] ?? [],
      truncated: false,
      duration_ms: durationMs,
    }),
  );
}
