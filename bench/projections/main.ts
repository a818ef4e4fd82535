/**
 * Benchmark: the cost of one round's projection update and of the panel's decisions at round 500
 * against round 5. Target: at most 1.5× — the projections are incremental (each update folds the
 * new events into a bounded state and memory), never a replay of the plan's history.
 *
 * Two measures, each the median over many rounds:
 *  1. fold + decide (pure): one round's events (RoundStarted, three FindingsReported, LetterWritten,
 *     FixRequested, FixApplied) folded through evolveLoop and evolveMemory — the heuristics run
 *     here — plus the JSON round trip of the loop state and memory the journal stores per plan, and
 *     decideNext on the state after the letter and after the fix;
 *  2. store (PostgreSQL): appending that round to the plan's stream and catching a checkpointed
 *     subscription up over it, whose handler reads the plan's state and memory rows, folds and
 *     writes them back with the round-history row — the journal projection's I/O pattern.
 *
 * Run: npx tsc -b bench/projections/tsconfig.json && node bench/.out/projections/main.js
 * (needs the PostgreSQL of the test environment, like the integration tests).
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { type Finding, type JournaledEvent, type Letter, parseEventOrThrow } from '@rloop/contracts';
import {
  CriticCatalogue,
  LoopConfig,
  type LoopMemory,
  type LoopState,
  decideNext,
  evolveLoop,
  evolveMemory,
  fingerprintOf,
  initialLoopMemory,
  initialLoopState,
  needsLetter,
} from '@rloop/domain';
import { type EventStoreClient, type NewEvent, createEventStore } from '@rloop/event-store';
import { createTestDatabase } from '@rloop/testing';

const SMALL = 5;
const LARGE = 500;
const SAMPLES = 21;
const PURE_REPEATS = 50;
const TARGET_RATIO = 1.5;
const PLAN = 'bench-plan';
/** Each measured plan is its own run (event ids are unique across the store's streams). */
let runId = '01JBENCHRUN000000000000000';
const CRITICS = ['toolchain/compiler-linter', 'security/sast-scanner', 'quality/duplicate-code-detector'] as const;
const BASE = 'a'.repeat(40);

// Thresholds out of reach so the loop keeps going (what is measured is the fold, not an escalation).
const config = LoopConfig.parse({
  persistent_issue: { rounds: 100_000 },
  implementer_wall: { attempts: 100_000 },
  oscillation: { reappearances: 100_000 },
  stall: { rounds: 100_000 },
});
const catalogue = CriticCatalogue.parse({
  k: { critical: 3, medium: 5, low: 7, final_sweep: null },
  soft_caps: { critical: 100_000, medium: 5, low: 3, final_sweep: 3 },
  round_grace_ms: 1000,
  critics: Object.fromEntries(CRITICS.map((id) => [id, { evidence: 'toolchain', timeout_ms: 60_000 }])),
  core: [...CRITICS],
});
const availability = () => ({ state: 'available' }) as const;

function sha(n: number): string {
  return n.toString(16).padStart(40, '0');
}

let counter = 0;
function event<T extends JournaledEvent['type']>(
  type: T,
  data: Extract<JournaledEvent, { type: T }>['data'],
  at: number,
  id?: string,
): Extract<JournaledEvent, { type: T }> {
  counter += 1;
  return parseEventOrThrow(type, {
    event_id: id ?? `01JBENCH${String(counter).padStart(18, '0')}`,
    type,
    schema_version: 1,
    plan: PLAN,
    correlation_id: runId,
    causation_id: null,
    occurred_at: new Date(Date.UTC(2026, 10, 30) + at * 1000).toISOString(),
    producer: 'bench',
    data,
  });
}

/**
 * Findings of round r: the same set every round (so round 5 and round 500 track the same issues):
 * a stuck one that drifts a line or two, one that comes and goes, one that drifts per critic.
 */
function findingsOf(round: number): Finding[] {
  const make = (critic: string, type: string, file: string, line: number, score: number): Finding => {
    const range = { start: line, end: line };
    return {
      id: `${critic}:${type}:${file}:${line}`,
      fingerprint: fingerprintOf({ critic_id: critic, file, line_range: range, finding_type: type }),
      severity: 'critical',
      score,
      category: 'correctness',
      finding_type: type,
      file,
      line_range: range,
      title: `${type} in ${file}`,
      current_behaviour: 'it is wrong',
      expected_behaviour: 'it is right',
      observable_test_conditions: ['a test shows it'],
      forbidden_in_test: [],
      raised_by: critic,
      related_findings: [],
      fixable: false,
      related_locations: [],
    };
  };
  return [
    make(CRITICS[0], 'tsc/TS2322', 'src/stuck.ts', 40 + (round % 3), 9),
    ...(round % 2 === 0 ? [make(CRITICS[0], 'eslint/no-unused-vars', 'src/flaky.ts', 10, 8)] : []),
    make(CRITICS[1], 'sast/sql-injection', 'src/db.ts', 20 + (round % 2), 10),
    make(CRITICS[2], 'duplicate/block', 'src/dup.ts', 5 + (round % 4), 7),
  ];
}

function letterOf(round: number, findings: Finding[]): Letter {
  return {
    letter_id: `d_letter${String(round).padStart(10, '0')}`,
    plan: PLAN,
    run_id: runId,
    round,
    phase: 'critical',
    k: 3,
    commit: sha(round),
    mode: 'loop',
    created_at: '2026-11-30T10:00:00.000Z',
    critics: CRITICS.map((id) => ({
      critic_id: id,
      core: true,
      outcome: 'reported',
      findings_total: findings.filter((f) => f.raised_by === id).length,
      findings_kept: findings.filter((f) => f.raised_by === id).length,
    })),
    findings,
    counts: { critical: findings.length, medium: 0, low: 0 },
    complete: true,
    disagreements: [],
    summary: `round ${round}`,
  };
}

function prologue(): JournaledEvent[] {
  return [
    event(
      'PlanSubmitted',
      {
        plan: {
          slug: PLAN,
          title: 'Bench',
          description: '',
          effort_level: 'high',
          files: ['src/**'],
          repo: { path: '/repo', ref: 'HEAD' },
          test_cmd: 'npm test',
          implementer: { strategy: 'autofix' },
        },
        submission_id: 'bench',
      },
      0,
      runId,
    ),
    event(
      'LoopGated',
      { verdict: 'run', rules: [], commit: BASE, files: ['src/a.ts'], repo_path: '/repo', test_cmd: 'npm test' },
      1,
    ),
    event(
      'BaselineRecorded',
      {
        commit: BASE,
        branch: `rloop/${PLAN}`,
        tests: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
        exit_code: 0,
        failing: [],
        duration_ms: 1,
      },
      2,
    ),
  ];
}

/** The events of round r, split where the panel decides (after the letter, after the fix). */
function roundEvents(round: number): { review: JournaledEvent[]; fix: JournaledEvent[]; letter: Letter } {
  const findings = findingsOf(round);
  const letter = letterOf(round, findings);
  const at = round * 10;
  const review: JournaledEvent[] = [
    event(
      'RoundStarted',
      {
        round,
        phase: 'critical',
        phase_round: round,
        k: 3,
        mode: 'loop',
        commit: sha(round),
        base_commit: BASE,
        repo_path: '/repo',
        files: ['src/a.ts'],
        critics: CRITICS.map((id) => ({
          critic_id: id,
          evidence: 'toolchain',
          core: true,
          reason: 'core',
          timeout_ms: 60_000,
        })),
        not_configured: [],
        deadline_at: '2026-12-01T00:00:00.000Z',
      },
      at,
    ),
    ...CRITICS.map((critic, i) =>
      event(
        'FindingsReported',
        {
          round,
          critic_id: critic,
          commit: sha(round),
          findings: findings.filter((f) => f.raised_by === critic),
          truncated: false,
          duration_ms: 5,
        },
        at + 1 + i,
      ),
    ),
    event('LetterWritten', { letter }, at + 5),
  ];
  const stuck = findings[0] as Finding;
  const fix: JournaledEvent[] = [
    event(
      'FixRequested',
      {
        round,
        attempt: round,
        letter,
        base_commit: sha(round),
        branch: `rloop/${PLAN}`,
        repo_path: '/repo',
        test_cmd: 'npm test',
        implementer: { strategy: 'autofix' },
        baseline_failing: [],
      },
      at + 6,
    ),
    event(
      'FixApplied',
      {
        round,
        letter_id: letter.letter_id,
        strategy: 'autofix',
        outcome: 'committed',
        fixes_applied: [
          {
            file: stuck.file,
            fixed_findings: [stuck.id],
            lines_changed: 2,
            hunks: [{ start: stuck.line_range.start, end: stuck.line_range.start + (round % 5) }],
          },
        ],
        tests_added: [],
        tests_result: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
        base_commit: sha(round),
        commit: sha(round + 1),
        diff_stats: { files_changed: 1, insertions: 1, deletions: 1 },
        duration_ms: 1,
        patch: `diff --git a/${stuck.file} b/${stuck.file}\n@@ -${stuck.line_range.start} +${stuck.line_range.start} @@\n-old ${round}\n+new ${round}`,
      },
      at + 7,
    ),
  ];
  return { review, fix, letter };
}

interface Folded {
  state: LoopState;
  memory: LoopMemory;
  position: number;
}

function fold(folded: Folded, events: readonly JournaledEvent[]): Folded {
  let { state, memory, position } = folded;
  for (const e of events) {
    position += 1;
    state = evolveLoop(state, e, position);
    memory = evolveMemory(memory, e, position, config).memory;
  }
  return { state, memory, position };
}

/** The history up to (not including) round `upTo`, folded once (not measured). */
function history(upTo: number): Folded {
  let folded: Folded = fold(
    { state: initialLoopState(PLAN), memory: initialLoopMemory(PLAN), position: 0 },
    prologue(),
  );
  for (let r = 1; r < upTo; r += 1) {
    const { review, fix } = roundEvents(r);
    folded = fold(fold(folded, review), fix);
  }
  return folded;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** One round's projection update and the panel's two decisions, from the state before round `round`. */
function pureRound(before: Folded, round: number): number {
  const { review, fix, letter } = roundEvents(round);
  // The findings come and go, so best-round retention would re-review instead: measured here is the fix path.
  const ctx = { catalogue, availability, producer: 'bench', now: '2026-11-30T12:00:00.000Z', retention: false };
  const started = performance.now();
  for (let i = 0; i < PURE_REPEATS; i += 1) {
    // What the journal reads and writes per plan per batch: the state and the memory as JSON.
    const loaded: Folded = {
      state: JSON.parse(JSON.stringify(before.state)) as LoopState,
      memory: JSON.parse(JSON.stringify(before.memory)) as LoopMemory,
      position: before.position,
    };
    const reviewed = fold(loaded, review);
    if (needsLetter(reviewed.state) !== letter.letter_id) throw new Error('the state does not ask for the letter');
    if (decideNext(reviewed.state, { ...ctx, letter })[0]?.type !== 'FixRequested')
      throw new Error('expected a fix request');
    const fixed = fold(reviewed, fix);
    if (decideNext(fixed.state, ctx)[0]?.type !== 'RoundStarted') throw new Error('expected the next round');
    JSON.stringify(fixed.state);
    JSON.stringify(fixed.memory);
  }
  return (performance.now() - started) / PURE_REPEATS;
}

function measurePure(at: number): { median: number; stateBytes: number; memoryBytes: number } {
  runId = `01JBENCHPURE${String(at).padStart(14, '0')}`;
  let folded = history(at);
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s += 1) {
    const round = at + s;
    samples.push(pureRound(folded, round));
    const { review, fix } = roundEvents(round);
    folded = fold(fold(folded, review), fix);
  }
  return {
    median: median(samples),
    stateBytes: JSON.stringify(folded.state).length,
    memoryBytes: JSON.stringify(folded.memory).length,
  };
}

// ── The store side ───────────────────────────────────────────────────────────────────────────

function toNew(e: JournaledEvent): NewEvent {
  return {
    eventId: e.event_id,
    type: e.type,
    schemaVersion: e.schema_version,
    data: e.data,
    metadata: {
      occurred_at: e.occurred_at,
      producer: e.producer,
      correlation_id: e.correlation_id,
      causation_id: e.causation_id,
    },
  };
}

async function measureStore(store: EventStoreClient, at: number): Promise<number> {
  const stream = `${PLAN}-${at}`;
  const subscription = `bench-${at}`;
  runId = `01JBENCHSTORE${String(at).padStart(13, '0')}`;
  const handler = async (
    tx: Parameters<Parameters<EventStoreClient['catchUp']>[1]>[0],
    batch: readonly {
      streamId: string;
      type: string;
      data: unknown;
      metadata: Record<string, unknown>;
      eventId: string;
      streamPosition: number;
      schemaVersion: number;
    }[],
  ): Promise<void> => {
    const rows = await sql<{
      state: LoopState;
      memory: LoopMemory;
      position: number;
    }>`SELECT state, memory, position FROM bench_projection WHERE plan = ${stream}`.execute(tx.db);
    const row = rows.rows[0];
    let folded: Folded =
      row === undefined
        ? { state: initialLoopState(PLAN), memory: initialLoopMemory(PLAN), position: 0 }
        : { state: row.state, memory: row.memory, position: row.position };
    let lastRound: string | null = null;
    for (const stored of batch) {
      const e = parseEventOrThrow(stored.type as JournaledEvent['type'], {
        event_id: stored.eventId,
        type: stored.type,
        schema_version: stored.schemaVersion,
        plan: PLAN,
        correlation_id: stored.metadata['correlation_id'],
        causation_id: stored.metadata['causation_id'] ?? null,
        occurred_at: stored.metadata['occurred_at'],
        producer: stored.metadata['producer'],
        data: stored.data,
      });
      const step = evolveMemory(folded.memory, e, stored.streamPosition, config);
      folded = {
        state: evolveLoop(folded.state, e, stored.streamPosition),
        memory: step.memory,
        position: stored.streamPosition,
      };
      if (step.round !== null) lastRound = JSON.stringify(step.round);
    }
    await sql`INSERT INTO bench_projection (plan, state, memory, position) VALUES (${stream}, ${JSON.stringify(folded.state)}::jsonb, ${JSON.stringify(folded.memory)}::jsonb, ${folded.position})
      ON CONFLICT (plan) DO UPDATE SET state = EXCLUDED.state, memory = EXCLUDED.memory, position = EXCLUDED.position`.execute(
      tx.db,
    );
    if (lastRound !== null) {
      await sql`INSERT INTO bench_rounds (plan, round, row) VALUES (${stream}, ${folded.state.round}, ${lastRound}::jsonb)
        ON CONFLICT (plan, round) DO UPDATE SET row = EXCLUDED.row`.execute(tx.db);
    }
  };
  await store.append(stream, prologue().map(toNew), { expectedVersion: 'any' });
  // The history, appended and projected once (not measured).
  for (let r = 1; r < at; r += 1) {
    const { review, fix } = roundEvents(r);
    await store.append(stream, [...review, ...fix].map(toNew), { expectedVersion: 'any' });
  }
  await store.catchUp(subscription, handler, { batchSize: 1000 });
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s += 1) {
    const { review, fix } = roundEvents(at + s);
    const started = performance.now();
    await store.append(stream, review.map(toNew), { expectedVersion: 'any' });
    await store.catchUp(subscription, handler, { batchSize: 1000 });
    await store.append(stream, fix.map(toNew), { expectedVersion: 'any' });
    await store.catchUp(subscription, handler, { batchSize: 1000 });
    samples.push(performance.now() - started);
  }
  return median(samples);
}

function fmt(ms: number): string {
  return `${ms.toFixed(3)} ms`;
}

// A throwaway pass first, so neither size pays for the JIT warming up.
measurePure(SMALL + 1);
const small = measurePure(SMALL);
const large = measurePure(LARGE);
const pureRatio = large.median / small.median;
process.stdout.write(
  `fold + decide per round: round ${SMALL} ${fmt(small.median)}, round ${LARGE} ${fmt(large.median)} → ratio ${pureRatio.toFixed(2)} (state ${small.stateBytes}→${large.stateBytes} B, memory ${small.memoryBytes}→${large.memoryBytes} B)\n`,
);

const database = await createTestDatabase('rloop_bench');
const store = await createEventStore({ databaseUrl: database.url });
let storeRatio: number;
try {
  await sql`CREATE TABLE bench_projection (plan text PRIMARY KEY, state jsonb NOT NULL, memory jsonb NOT NULL, position integer NOT NULL)`.execute(
    store.db,
  );
  await sql`CREATE TABLE bench_rounds (plan text NOT NULL, round integer NOT NULL, row jsonb NOT NULL, PRIMARY KEY (plan, round))`.execute(
    store.db,
  );
  await measureStore(store, SMALL + 1);
  const storeSmall = await measureStore(store, SMALL);
  const storeLarge = await measureStore(store, LARGE);
  storeRatio = storeLarge / storeSmall;
  process.stdout.write(
    `store append + projection per round: round ${SMALL} ${fmt(storeSmall)}, round ${LARGE} ${fmt(storeLarge)} → ratio ${storeRatio.toFixed(2)}\n`,
  );
} finally {
  await store.close();
  await database.drop();
}

const worst = Math.max(pureRatio, storeRatio);
const ok = worst <= TARGET_RATIO;
process.stdout.write(`${ok ? 'PASS' : 'FAIL'}: worst ratio ${worst.toFixed(2)} (target ≤ ${TARGET_RATIO})\n`);
process.exitCode = ok ? 0 : 1;
