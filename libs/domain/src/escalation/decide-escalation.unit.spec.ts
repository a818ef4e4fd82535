import { describe, expect, it } from '@jest/globals';
import type { CriticFailureReason, Heuristic, JournaledEvent, Phase } from '@rloop/contracts';
import {
  RUN_ID,
  SHA_A,
  SHA_B,
  catalogue,
  event,
  finding,
  given,
  letterFor,
  runStart,
} from '../testing/builders.test-helpers.js';
import { budgetTrigger, decideEscalation, detectionIsLive, escalationEvent } from './decide-escalation.js';

// When does a loop escalate? One table: a run's history (given), decideEscalation on its state
// (when), the trigger that fires or none (then). Soft caps of the test catalogue: critical 2,
// final_sweep 1.

const CORE = ['security/sast-scanner', 'toolchain/compiler-linter'] as const;

const start = runStart;

interface RoundSpec {
  readonly phase?: Phase;
  readonly phase_round?: number;
  /** Critics that fail, and why (the others report). */
  readonly failed?: Readonly<Record<string, CriticFailureReason>>;
  /** Findings in the letter (critical, by the compiler-linter). */
  readonly findings?: number;
  /** Whether the letter is written (default yes). */
  readonly letter?: boolean;
  readonly mode?: 'loop' | 'single_pass';
}

function roundEvents(round: number, spec: RoundSpec = {}): JournaledEvent[] {
  const phase = spec.phase ?? 'critical';
  const failed = spec.failed ?? {};
  const findings = Array.from({ length: spec.findings ?? 0 }, (_, i) =>
    finding({ title: `issue ${i}`, line_range: { start: 10 * (i + 1), end: 10 * (i + 1) } }),
  );
  const events: JournaledEvent[] = [
    event('RoundStarted', {
      round,
      phase,
      phase_round: spec.phase_round ?? round,
      k: 3,
      mode: spec.mode ?? 'loop',
      commit: SHA_B,
      base_commit: SHA_A,
      repo_path: '/repo',
      files: ['src/index.ts'],
      critics: CORE.map((critic_id) => ({
        critic_id,
        evidence: 'toolchain',
        core: true,
        reason: 'core',
        timeout_ms: 1000,
      })),
      not_configured: [],
      deadline_at: '2026-11-30T12:00:00.000Z',
    }),
    ...CORE.map((critic_id) =>
      failed[critic_id] === undefined
        ? event('FindingsReported', {
            round,
            critic_id,
            commit: SHA_B,
            findings: critic_id === 'toolchain/compiler-linter' ? findings : [],
            truncated: false,
            duration_ms: 5,
          })
        : event('CriticFailed', {
            round,
            critic_id,
            core: true,
            reason: failed[critic_id],
            message: `${critic_id} is down`,
          }),
    ),
  ];
  if (spec.letter === false) return events;
  const complete = Object.keys(failed).length === 0;
  return [
    ...events,
    event('LetterWritten', {
      letter: { ...letterFor(round, phase, findings, { complete, mode: spec.mode ?? 'loop' }), commit: SHA_B },
    }),
  ];
}

function detected(round: number, heuristic: Heuristic): JournaledEvent {
  return event('LoopDetected', {
    heuristic,
    round,
    fingerprints: [],
    critic_ids: ['toolchain/compiler-linter'],
    message: `${heuristic} in round ${round}`,
    evidence: {},
  });
}

interface Case {
  readonly given: string;
  readonly history: () => JournaledEvent[];
  readonly then: { readonly kind: string; readonly heuristic?: Heuristic; readonly detail?: RegExp } | null;
}

const CASES: readonly Case[] = [
  {
    given: 'a round under review with findings within the soft cap',
    history: () => [...start(), ...roundEvents(1, { findings: 2 })],
    then: null,
  },
  { given: 'a clean complete letter', history: () => [...start(), ...roundEvents(1)], then: null },
  {
    given: 'findings left after the phase used its soft cap',
    history: () => [...start(), ...roundEvents(3, { findings: 2 })],
    then: { kind: 'soft_cap', detail: /critical phase still has 2 finding\(s\) after 2 round\(s\)/ },
  },
  {
    given: 'a final sweep past its cap that found a critical (it goes back to the critical phase instead)',
    history: () => [...start(), ...roundEvents(1, { phase: 'final_sweep', phase_round: 2, findings: 1 })],
    then: null,
  },
  {
    given: 'a clean complete letter past the soft cap (the phase ends)',
    history: () => [...start(), ...roundEvents(3)],
    then: null,
  },
  {
    given: 'a single-pass round past the cap',
    history: () => [...start(), ...roundEvents(3, { findings: 2, mode: 'single_pass' })],
    then: null,
  },
  {
    given: 'a core critic failing for another reason in every round past the cap',
    history: () => [...start(), ...roundEvents(3, { failed: { 'security/sast-scanner': 'crashed' } })],
    then: { kind: 'critic_failures', detail: /a core critic failed in 3 rounds of the critical phase/ },
  },
  {
    given: 'a core critic failing for another reason within the cap',
    history: () => [...start(), ...roundEvents(1, { failed: { 'security/sast-scanner': 'crashed' } })],
    then: null,
  },
  {
    given: 'a core critic not runnable in two rounds in a row',
    history: () => [
      ...start(),
      ...roundEvents(1, { failed: { 'security/sast-scanner': 'not_runnable' } }),
      ...roundEvents(2, { failed: { 'security/sast-scanner': 'not_runnable' } }),
    ],
    then: {
      kind: 'critic_failures',
      detail: /core critic security\/sast-scanner could not run \(not_runnable\) in rounds 1 and 2/,
    },
  },
  {
    given: 'a core critic not runnable once, then unauthorised',
    history: () => [
      ...start(),
      ...roundEvents(1, { failed: { 'security/sast-scanner': 'not_runnable' } }),
      ...roundEvents(2, { failed: { 'security/sast-scanner': 'unauthorised' } }),
    ],
    then: null,
  },
  {
    given: 'a heuristic that fired in the current round',
    history: () => [...start(), ...roundEvents(1, { findings: 1 }), detected(1, 'persistent_issue')],
    then: { kind: 'heuristic', heuristic: 'persistent_issue', detail: /persistent_issue in round 1/ },
  },
  {
    given: 'two heuristics that fired in the current round',
    history: () => [...start(), ...roundEvents(1, { findings: 1 }), detected(1, 'oscillation'), detected(1, 'stall')],
    then: {
      kind: 'heuristic',
      heuristic: 'oscillation',
      detail: /oscillation in round 1 — also stall: stall in round 1/,
    },
  },
  {
    given: 'a heuristic that fired while the letter is still being written',
    history: () => [...start(), ...roundEvents(1, { letter: false }), detected(1, 'stall')],
    then: { kind: 'heuristic', heuristic: 'stall' },
  },
  {
    given: 'a heuristic beside findings past the soft cap',
    history: () => [...start(), ...roundEvents(3, { findings: 2 }), detected(3, 'flat_trend')],
    then: { kind: 'soft_cap', heuristic: 'flat_trend', detail: /soft cap 2\); flat trend: flat_trend in round 3/ },
  },
  {
    given: 'a heuristic beside a clean complete letter (the phase ends)',
    history: () => [...start(), ...roundEvents(1), detected(1, 'oscillation')],
    then: null,
  },
  {
    given: 'a heuristic of an earlier round',
    history: () => [
      ...start(),
      ...roundEvents(1, { findings: 1 }),
      detected(1, 'stall'),
      ...roundEvents(2, { findings: 1 }),
    ],
    then: null,
  },
  {
    given: 'a heuristic beside a repeated infrastructure failure (the heuristic wins)',
    history: () => [
      ...start(),
      ...roundEvents(1, { failed: { 'security/sast-scanner': 'unavailable' } }),
      ...roundEvents(2, { failed: { 'security/sast-scanner': 'unavailable' } }),
      detected(2, 'stall'),
    ],
    then: { kind: 'heuristic', heuristic: 'stall' },
  },
];

describe('decideEscalation: when does a loop escalate', () => {
  it.each(CASES)('given $given, when deciding, then it escalates on $then.kind', ({ history, then }) => {
    const escalation = decideEscalation(given(...history()), { catalogue });
    if (then === null) {
      expect(escalation).toBeNull();
      return;
    }
    expect(escalation?.trigger.kind).toBe(then.kind);
    expect(escalation?.trigger.heuristic).toBe(then.heuristic);
    if (then.detail !== undefined) expect(escalation?.trigger.detail).toMatch(then.detail);
  });

  it('given a plan with no run, when deciding, then nothing escalates', () => {
    expect(decideEscalation(given(), { catalogue })).toBeNull();
  });

  it('given a detection the caller names, when deciding, then it escalates on that one before the pending ones', () => {
    const state = given(...start(), ...roundEvents(1, { findings: 1 }), detected(1, 'stall'));
    const escalation = decideEscalation(state, {
      catalogue,
      detection: { heuristic: 'implementer_wall', detail: 'tried three ways', event_id: 'd_named00000000000' },
    });
    expect(escalation).toMatchObject({
      causation_id: 'd_named00000000000',
      trigger: {
        kind: 'heuristic',
        heuristic: 'implementer_wall',
        detail: 'tried three ways — also stall: stall in round 1',
      },
    });
  });
});

describe('budget stops and stale detections', () => {
  it('given a budget stop, when raised by two replicas, then both build the same EscalationRaised with reason budget', () => {
    const state = given(...start(), ...roundEvents(1, { findings: 1, letter: false }));
    const meta = {
      plan: 'add-billing',
      run_id: RUN_ID,
      causation_id: RUN_ID,
      producer: 'critic-runner@1',
      now: '2026-11-30T12:00:00.000Z',
    };
    const a = escalationEvent(state, meta, budgetTrigger('the per-plan LLM budget of $5.00 is reached'), {
      round: 1,
      source: 'critics',
    });
    const b = escalationEvent(
      state,
      { ...meta, producer: 'critic-runner@2' },
      budgetTrigger('the per-plan LLM budget of $5.00 is reached'),
      { round: 1, source: 'critics' },
    );
    expect(a.event_id).toBe(b.event_id);
    expect(a.data).toMatchObject({
      reason: 'budget',
      round: 1,
      report: { trigger: { kind: 'budget', detail: 'the per-plan LLM budget of $5.00 is reached' } },
    });
    expect(escalationEvent(state, meta, budgetTrigger('x'), { round: 1, source: 'implementer' }).event_id).not.toBe(
      a.event_id,
    );
  });

  it.each([
    { given: 'the current round of the current run', detection: { run_id: RUN_ID, round: 1 }, live: true },
    { given: 'a round that is over', detection: { run_id: RUN_ID, round: 0 }, live: false },
    { given: 'another run', detection: { run_id: 'd_otherrun0000000', round: 1 }, live: false },
  ])('given a detection of $given, when asked whether to journal it, then live is $live', ({ detection, live }) => {
    const state = given(...start(), ...roundEvents(1, { findings: 1 }));
    expect(detectionIsLive(state, detection)).toBe(live);
  });

  it('given a loop that ended, when asked whether to journal its detection, then it is stale', () => {
    const state = given(...start(), ...roundEvents(1, { findings: 1 }), event('LoopStopped', { by: 'someone' }));
    expect(detectionIsLive(state, { run_id: RUN_ID, round: 1 })).toBe(false);
    expect(detectionIsLive(undefined, { run_id: RUN_ID, round: 1 })).toBe(false);
  });
});
