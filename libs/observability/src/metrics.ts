import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type EventOf, type RloopEvent } from '@rloop/contracts';

/** Seconds buckets for work that takes from milliseconds to tens of minutes (critics, fixes, rounds). */
const WORK_BUCKETS = [0.05, 0.25, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
/** Seconds buckets for bus and database operations. */
const FAST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000];

/** Outcomes counted by rloop_loop_outcomes_total: how a run ended, or that it went to people. */
const OUTCOME_OF: Readonly<Record<string, string>> = {
  LoopConverged: 'converged',
  LoopBypassed: 'bypassed',
  LoopStopped: 'stopped',
  PlanRejected: 'rejected',
  EscalationRaised: 'escalated',
};

/**
 * The Prometheus metrics of one service (prom-client, its own registry, `service` on every
 * series). Loop metrics are counted where the event is produced (a publish the server stored, so
 * replicas deciding the same step count it once); delivery metrics by the consumer that saw them.
 */
export class FleetMetrics {
  readonly registry = new Registry();
  readonly roundsStarted: Counter<'phase'>;
  readonly roundDuration: Histogram<'phase'>;
  readonly criticDuration: Histogram<'critic' | 'outcome'>;
  readonly criticFailures: Counter<'critic' | 'reason'>;
  readonly letters: Counter<'phase' | 'complete'>;
  readonly letterFindings: Counter<'severity'>;
  readonly fixes: Counter<'outcome' | 'strategy'>;
  readonly fixDuration: Histogram<'strategy'>;
  readonly escalations: Counter<'reason'>;
  readonly loopOutcomes: Counter<'outcome'>;
  readonly llmTokens: Counter<'model' | 'dispatch' | 'kind'>;
  readonly llmCost: Counter<'model' | 'dispatch'>;
  readonly published: Counter<'type' | 'duplicate'>;
  readonly deliveries: Counter<'consumer'>;
  readonly redeliveries: Counter<'consumer'>;
  readonly settled: Counter<'consumer' | 'settlement'>;
  readonly handlerDuration: Histogram<'consumer'>;
  /** The journal's own (null in other services, so they do not export empty series). */
  readonly journalAppendDuration: Histogram | null;
  readonly journalAppendBatchSize: Histogram | null;

  /** `journal`: also the append metrics; `processMetrics`: prom-client's process and Node.js metrics (default true). */
  constructor(service: string, options: { readonly processMetrics?: boolean; readonly journal?: boolean } = {}) {
    this.registry.setDefaultLabels({ service });
    const registers = [this.registry];
    this.roundsStarted = new Counter({
      name: 'rloop_rounds_started_total',
      help: 'Review rounds started, by phase.',
      labelNames: ['phase'],
      registers,
    });
    this.roundDuration = new Histogram({
      name: 'rloop_round_duration_seconds',
      help: "From RoundStarted to the round's letter, by phase.",
      labelNames: ['phase'],
      buckets: WORK_BUCKETS,
      registers,
    });
    this.criticDuration = new Histogram({
      name: 'rloop_critic_duration_seconds',
      help: 'How long a critic took on a round, by critic and outcome (reported or the failure reason).',
      labelNames: ['critic', 'outcome'],
      buckets: WORK_BUCKETS,
      registers,
    });
    this.criticFailures = new Counter({
      name: 'rloop_critic_failures_total',
      help: 'CriticFailed events, by critic and reason.',
      labelNames: ['critic', 'reason'],
      registers,
    });
    this.letters = new Counter({
      name: 'rloop_letters_written_total',
      help: 'Letters written, by phase and whether every core critic reported.',
      labelNames: ['phase', 'complete'],
      registers,
    });
    this.letterFindings = new Counter({
      name: 'rloop_letter_findings_total',
      help: 'Findings in written letters, by severity.',
      labelNames: ['severity'],
      registers,
    });
    this.fixes = new Counter({
      name: 'rloop_fixes_total',
      help: 'Fix attempts, by outcome (committed = applied, reverted, no_change, failed) and strategy.',
      labelNames: ['outcome', 'strategy'],
      registers,
    });
    this.fixDuration = new Histogram({
      name: 'rloop_fix_duration_seconds',
      help: 'How long a fix attempt took (strategy and tests), by strategy.',
      labelNames: ['strategy'],
      buckets: WORK_BUCKETS,
      registers,
    });
    this.escalations = new Counter({
      name: 'rloop_escalations_total',
      help: 'Escalations raised to people, by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.loopOutcomes = new Counter({
      name: 'rloop_loop_outcomes_total',
      help: 'How runs ended (converged, bypassed, stopped, rejected) or went to people (escalated), from the committed feed.',
      labelNames: ['outcome'],
      registers,
    });
    this.llmTokens = new Counter({
      name: 'rloop_llm_tokens_total',
      help: 'LLM tokens billed, by model, dispatch and kind (input, output, cache_creation, cache_read).',
      labelNames: ['model', 'dispatch', 'kind'],
      registers,
    });
    this.llmCost = new Counter({
      name: 'rloop_llm_cost_usd_total',
      help: 'LLM spend in US dollars, by model and dispatch.',
      labelNames: ['model', 'dispatch'],
      registers,
    });
    this.published = new Counter({
      name: 'rloop_bus_events_published_total',
      help: 'Events published, by type; duplicate="true" when the server already had the event id.',
      labelNames: ['type', 'duplicate'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'rloop_bus_deliveries_total',
      help: 'Messages handed to a handler, by durable consumer.',
      labelNames: ['consumer'],
      registers,
    });
    this.redeliveries = new Counter({
      name: 'rloop_bus_redeliveries_total',
      help: 'Messages handed to a handler again (delivery count above 1), by durable consumer.',
      labelNames: ['consumer'],
      registers,
    });
    this.settled = new Counter({
      name: 'rloop_bus_messages_settled_total',
      help: 'Messages settled by a consumer: acked, retried, parked (RetryLater), waiting (a dependency down) or dead_lettered.',
      labelNames: ['consumer', 'settlement'],
      registers,
    });
    this.handlerDuration = new Histogram({
      name: 'rloop_bus_handler_duration_seconds',
      help: 'Handler calls (one event or one batch), by durable consumer.',
      labelNames: ['consumer'],
      buckets: FAST_BUCKETS.concat(WORK_BUCKETS.filter((b) => b > 10)),
      registers,
    });
    const journal = options.journal ?? false;
    this.journalAppendDuration = journal
      ? new Histogram({
          name: 'rloop_journal_append_duration_seconds',
          help: 'One journal transaction that appended events, projections and commit included.',
          buckets: FAST_BUCKETS,
          registers,
        })
      : null;
    this.journalAppendBatchSize = journal
      ? new Histogram({
          name: 'rloop_journal_append_batch_size',
          help: 'Events appended per journal transaction.',
          buckets: BATCH_BUCKETS,
          registers,
        })
      : null;
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'rloop_' });
  }

  /** Counts what a stored publish says about the loop (nothing for a duplicate: someone counted it). */
  recordPublished(event: RloopEvent, duplicate: boolean): void {
    this.published.inc({ type: event.type, duplicate: String(duplicate) });
    if (duplicate) return;
    switch (event.type) {
      case 'RoundStarted':
        this.roundsStarted.inc({ phase: event.data.phase });
        return;
      case 'FindingsReported':
        this.criticDuration.observe(
          { critic: event.data.critic_id, outcome: 'reported' },
          event.data.duration_ms / 1000,
        );
        return;
      case 'CriticFailed':
        this.criticFailures.inc({ critic: event.data.critic_id, reason: event.data.reason });
        if (event.data.duration_ms !== undefined)
          this.criticDuration.observe(
            { critic: event.data.critic_id, outcome: event.data.reason },
            event.data.duration_ms / 1000,
          );
        return;
      case 'LetterWritten': {
        const letter = event.data.letter;
        this.letters.inc({ phase: letter.phase, complete: String(letter.complete) });
        for (const severity of ['critical', 'medium', 'low'] as const)
          if (letter.counts[severity] > 0) this.letterFindings.inc({ severity }, letter.counts[severity]);
        return;
      }
      case 'FixApplied':
        this.fixes.inc({ outcome: event.data.outcome, strategy: event.data.strategy });
        this.fixDuration.observe({ strategy: event.data.strategy }, event.data.duration_ms / 1000);
        return;
      case 'EscalationRaised':
        this.escalations.inc({ reason: event.data.reason });
        return;
      case 'UsageRecorded': {
        const labels = { model: event.data.model, dispatch: event.data.dispatch };
        this.llmTokens.inc({ ...labels, kind: 'input' }, event.data.input_tokens);
        this.llmTokens.inc({ ...labels, kind: 'output' }, event.data.output_tokens);
        this.llmTokens.inc({ ...labels, kind: 'cache_creation' }, event.data.cache_creation_input_tokens);
        this.llmTokens.inc({ ...labels, kind: 'cache_read' }, event.data.cache_read_input_tokens);
        this.llmCost.inc(labels, event.data.cost_usd);
        return;
      }
      default:
        return;
    }
  }

  /**
   * Counts loop outcomes and round durations from the journal's committed feed: it lists every
   * journaled event once (a re-announcement has the same id and is dropped by the server), stops
   * recorded by the CLI included. Called by one service only (the panel), so nothing counts twice.
   */
  recordCommitted(event: EventOf<'JournalCommitted'>): void {
    for (const committed of event.data.events) {
      const outcome = OUTCOME_OF[committed.type];
      if (outcome !== undefined) this.loopOutcomes.inc({ outcome });
    }
    if (!event.data.events.some((e) => e.type === 'LetterWritten')) return;
    const current = event.data.loop_state?.current;
    if (current === null || current === undefined || current.letter === null) return;
    const started = Date.parse(current.started_at);
    const lettered = Date.parse(current.letter.occurred_at);
    if (Number.isFinite(started) && Number.isFinite(lettered) && lettered >= started) {
      this.roundDuration.observe({ phase: current.phase }, (lettered - started) / 1000);
    }
  }

  /** Every metric name this registry exports (histograms with their _bucket, _sum and _count series). */
  seriesNames(): string[] {
    return this.registry
      .getMetricsAsArray()
      .flatMap((m) =>
        String(m.type) === 'histogram' ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name],
      );
  }
}
