import { describe, expect, it } from '@jest/globals';
import { type EventOf, LoopState, type RloopEvent } from '@rloop/contracts';
import { FleetMetrics } from './index.js';

const ENVELOPE = {
  schema_version: 1,
  plan: 'add-billing',
  correlation_id: '01JRUN0000000000000000000A',
  causation_id: null,
  occurred_at: '2026-11-30T10:00:00.000Z',
  producer: 'spec',
} as const;

/** A loop state under review in the critical phase, its round started and lettered at these times (parsed: the contract the journal announces). */
function reviewing(startedAt: string, letteredAt: string): LoopState {
  const at = { event_id: 'd_event000000001', occurred_at: startedAt };
  return LoopState.parse({
    schema_version: 1,
    plan: 'add-billing',
    run_id: '01JRUN0000000000000000000A',
    status: 'reviewing',
    spec: null,
    submission_id: null,
    verdict: 'run',
    gated: null,
    baseline: null,
    head: null,
    phase: 'critical',
    round: 1,
    cap_bonus: { critical: 0, medium: 0, low: 0, final_sweep: 0 },
    current: {
      round: 1,
      phase: 'critical',
      phase_round: 1,
      k: 3,
      mode: 'loop',
      commit: 'a'.repeat(40),
      started_event_id: at.event_id,
      started_at: startedAt,
      started_position: 4,
      deadline_at: letteredAt,
      critics: [],
      reports: {},
      failures: {},
      letter: {
        letter_id: 'd_letter00000001',
        event_id: 'd_event000000002',
        occurred_at: letteredAt,
        findings: 0,
        counts: { critical: 0, medium: 0, low: 0 },
        complete: true,
      },
      fix_requested: false,
      fix: null,
    },
    last_findings: [],
    escalation: null,
    resumed: null,
    detections: [],
    handled_detections: [],
    best: null,
    previous_failures: null,
    incomplete_rounds: 0,
    outcome_event_id: null,
    version: 5,
    changed: { at: 5, decision: null, before: 4 },
    last_event_id: null,
    updated_at: letteredAt,
  });
}

function committed(types: string[], loopState?: LoopState): EventOf<'JournalCommitted'> {
  return {
    ...ENVELOPE,
    event_id: 'd_committed0001',
    type: 'JournalCommitted',
    data: {
      run_id: null,
      refused: [],
      stream_version: types.length,
      events: types.map((type, i) => ({
        event_id: `01JEVENT00000000000000000${i}`,
        type,
        stream_position: i + 1,
        global_position: String(i + 1),
      })),
      ...(loopState === undefined ? {} : { loop_state: loopState }),
    },
  };
}

async function value(metrics: FleetMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))?.value;
}

describe('loop metrics counted from events', () => {
  it('counts a stored publish, never a duplicate (a replica published the same decision)', async () => {
    const metrics = new FleetMetrics('spec', { processMetrics: false });
    const failed = {
      ...ENVELOPE,
      event_id: '01JEVENT000000000000000001',
      type: 'CriticFailed',
      data: {
        round: 1,
        critic_id: 'security/sast-scanner',
        core: true,
        reason: 'timed_out',
        message: 'late',
        duration_ms: 30_000,
      },
    } as RloopEvent;
    metrics.recordPublished(failed, false);
    metrics.recordPublished(failed, true);
    await expect(
      value(metrics, 'rloop_critic_failures_total', { critic: 'security/sast-scanner', reason: 'timed_out' }),
    ).resolves.toBe(1);
    await expect(
      value(metrics, 'rloop_bus_events_published_total', { type: 'CriticFailed', duplicate: 'true' }),
    ).resolves.toBe(1);
    const usage = {
      ...ENVELOPE,
      event_id: '01JEVENT000000000000000002',
      type: 'UsageRecorded',
      data: {
        round: 1,
        dispatch: 'critic',
        model: 'claude-x',
        input_tokens: 100,
        output_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 50,
        cost_usd: 0.25,
      },
    } as RloopEvent;
    metrics.recordPublished(usage, false);
    await expect(value(metrics, 'rloop_llm_tokens_total', { model: 'claude-x', kind: 'cache_read' })).resolves.toBe(50);
    await expect(value(metrics, 'rloop_llm_cost_usd_total', { model: 'claude-x', dispatch: 'critic' })).resolves.toBe(
      0.25,
    );
  });

  it('counts outcomes and round durations from the committed feed', async () => {
    const metrics = new FleetMetrics('spec', { processMetrics: false });
    metrics.recordCommitted(
      committed(
        ['LetterWritten', 'EscalationRaised'],
        reviewing('2026-11-30T10:00:00.000Z', '2026-11-30T10:00:42.000Z'),
      ),
    );
    metrics.recordCommitted(committed(['LoopStopped']));
    await expect(value(metrics, 'rloop_loop_outcomes_total', { outcome: 'escalated' })).resolves.toBe(1);
    await expect(value(metrics, 'rloop_loop_outcomes_total', { outcome: 'stopped' })).resolves.toBe(1);
    await expect(value(metrics, 'rloop_round_duration_seconds', { phase: 'critical', le: '60' })).resolves.toBe(1);
    await expect(value(metrics, 'rloop_round_duration_seconds', { phase: 'critical', le: '30' })).resolves.toBe(0);
  });

  it('names its series per Prometheus conventions: rloop_ prefix, _total counters, base units', () => {
    const names = new FleetMetrics('spec', { journal: true }).seriesNames();
    for (const name of names) expect(name).toMatch(/^rloop_[a-z0-9_]+$/);
    const metrics = new FleetMetrics('spec', { processMetrics: false, journal: true }).registry.getMetricsAsArray();
    for (const m of metrics) {
      const type = String(m.type);
      if (type === 'counter') expect(m.name).toMatch(/_total$/);
      if (type === 'histogram') expect(m.name).toMatch(/_(seconds|size)$/);
    }
  });
});
