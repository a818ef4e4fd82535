import { Controller, Inject } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { OnRequest, decodeJsonBody } from '@rloop/bus';
import {
  JOURNAL_QUERIES,
  type JournalQuery,
  type JournalReply,
  NotFoundError,
  ValidationError,
  parseLoopState,
  toIssues,
} from '@rloop/contracts';
import {
  type LoopMemory,
  type LoopState,
  type RoundHistoryRow,
  type RunSummaryRow,
  findingTimelines,
  patchOfFile,
} from '@rloop/domain';
import type { EventStoreClient, StoredEvent } from '@rloop/event-store';
import { toEnvelope } from '../projections/envelope.js';
import { ProjectionCatchUp } from '../projections/catch-up.js';
import { PROJECTION_TABLES, type JournalTables } from '../projections/schema.js';
import { EVENT_STORE } from '../tokens.js';
import { planOfStream, runStreamsPattern } from '../streams.js';

const MAX_QUERY_BYTES = 64 * 1024;
/** A page of events stays well under NATS's default 1 MiB payload limit. */
const MAX_PAGE_BYTES = 512 * 1024;

function parseQuery<Q extends JournalQuery>(
  query: Q,
  body: Uint8Array,
): ReturnType<(typeof JOURNAL_QUERIES)[Q]['request']['parse']> {
  const raw = decodeJsonBody(body, MAX_QUERY_BYTES);
  const parsed = JOURNAL_QUERIES[query].request.safeParse(raw);
  if (!parsed.success)
    throw new ValidationError(
      'JOURNAL.INVALID_QUERY',
      `journal.${query}: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      toIssues(parsed.error),
    );
  return parsed.data as ReturnType<(typeof JOURNAL_QUERIES)[Q]['request']['parse']>;
}

/**
 * The journal's read side, over core NATS request/reply (`<ns>.v1.journal.<query>`): loop states
 * for the deciders, events, letters and escalations for the CLI. Everything it answers is committed.
 */
@Controller()
export class QueriesController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStoreClient,
    @Inject(ProjectionCatchUp) private readonly projections: ProjectionCatchUp,
  ) {}

  private get db(): Kysely<JournalTables> {
    return this.store.db as unknown as Kysely<JournalTables>;
  }

  @OnRequest('journal.loop_state')
  async loopState(body: Uint8Array): Promise<JournalReply<'loop_state'>> {
    const { plan } = parseQuery('loop_state', body);
    const row = await this.db
      .selectFrom('loop_states')
      .select(['state', 'version'])
      .where('plan', '=', plan)
      .executeTakeFirst();
    return { plan, version: row?.version ?? 0, state: row === undefined ? null : parseLoopState(row.state) };
  }

  /**
   * A page of the plan's events: of its current run (positions in the run's stream), or of every
   * run, oldest first (each event with its position in its own run's stream; `from_position` and
   * `next_position` then count through the plan's whole history).
   */
  @OnRequest('journal.events')
  async events(body: Uint8Array): Promise<JournalReply<'events'>> {
    const query = parseQuery('events', body);
    const from = query.from_position ?? 1;
    const row = await this.db
      .selectFrom('loop_states')
      .select(['run_id', 'version', 'stream_id'])
      .where('plan', '=', query.plan)
      .executeTakeFirst();
    const runId = row?.run_id ?? null;
    const page =
      query.run_id !== undefined
        ? await this.runPage(await this.streamOfRun(query.plan, query.run_id), from, query.limit)
        : query.scope === 'all'
          ? await this.historyPage(query.plan, from, query.limit)
          : await this.runPage(row?.stream_id ?? null, from, query.limit);
    const events: JournalReply<'events'>['events'] = [];
    let bytes = 0;
    let next = page.next;
    for (const [i, e] of page.events.entries()) {
      // A stream of an older journal holds every run of its plan.
      const only = query.run_id ?? (query.scope === 'current_run' ? runId : null);
      if (only !== null && e.metadata.correlation_id !== only) continue;
      const entry = { position: e.streamPosition, global_position: e.globalPosition, event: toEnvelope(e) };
      bytes += JSON.stringify(entry).length;
      if (bytes > MAX_PAGE_BYTES && events.length > 0) {
        next = page.first + i;
        break;
      }
      events.push(entry);
    }
    return { plan: query.plan, version: row?.version ?? 0, events, next_position: next };
  }

  /** The stream of one of the plan's runs (where its PlanSubmitted is), or null when the journal has no such run. */
  private async streamOfRun(plan: string, runId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('events')
      .select(['stream_id'])
      .where('event_id', '=', runId)
      .where('type', '=', 'PlanSubmitted')
      .executeTakeFirst();
    return row !== undefined && planOfStream(row.stream_id) === plan ? row.stream_id : null;
  }

  /** Events of the current run's stream from a position on; `first` is the position of the first one. */
  private async runPage(
    streamId: string | null,
    from: number,
    limit: number,
  ): Promise<{ events: readonly StoredEvent[]; first: number; next: number | null }> {
    if (streamId === null) return { events: [], first: from, next: null };
    const events = await this.store.readStream(streamId, { fromPosition: from, maxCount: limit });
    return { events, first: from, next: events.length === limit ? from + events.length : null };
  }

  /** The `from`-th event of the plan's whole history on (its runs' streams one after another, oldest run first). */
  private async historyPage(
    plan: string,
    from: number,
    limit: number,
  ): Promise<{ events: readonly StoredEvent[]; first: number; next: number | null }> {
    const streams = await this.db
      .selectFrom('events')
      .select([
        'stream_id',
        (eb) => eb.fn.min('global_position').as('first'),
        (eb) => eb.fn.max('stream_position').as('version'),
      ])
      .where((eb) => eb.or([eb('stream_id', '=', plan), eb('stream_id', 'like', runStreamsPattern(plan))]))
      .groupBy('stream_id')
      .execute();
    streams.sort((a, b) => (BigInt(String(a.first)) < BigInt(String(b.first)) ? -1 : 1));
    const events: StoredEvent[] = [];
    let offset = 0;
    let total = 0;
    for (const stream of streams) {
      const size = Number(stream.version);
      total += size;
      const start = from - offset;
      offset += size;
      if (start > size || events.length >= limit) continue;
      events.push(
        ...(await this.store.readStream(stream.stream_id, {
          fromPosition: Math.max(1, start),
          maxCount: limit - events.length,
        })),
      );
    }
    const next = from + events.length;
    return { events, first: from, next: next <= total ? next : null };
  }

  @OnRequest('journal.letter')
  async letter(body: Uint8Array): Promise<JournalReply<'letter'>> {
    const { letter_id } = parseQuery('letter', body);
    const row = await this.db
      .selectFrom('letters')
      .select(['plan', 'stream_id', 'stream_position'])
      .where('letter_id', '=', letter_id)
      .executeTakeFirst();
    if (row === undefined) throw new NotFoundError('JOURNAL.NOT_FOUND', `no letter ${letter_id}`);
    const [stored] = await this.store.readStream(row.stream_id ?? row.plan, {
      fromPosition: row.stream_position,
      maxCount: 1,
    });
    const data = stored?.data as { letter?: Record<string, unknown> } | undefined;
    if (data?.letter === undefined)
      throw new NotFoundError('JOURNAL.NOT_FOUND', `letter ${letter_id} is indexed but its event is missing`);
    return { letter: data.letter };
  }

  @OnRequest('journal.event')
  async event(body: Uint8Array): Promise<JournalReply<'event'>> {
    const { event_id } = parseQuery('event', body);
    const row = await this.db
      .selectFrom('events')
      .select(['stream_id', 'stream_position'])
      .where('event_id', '=', event_id)
      .executeTakeFirst();
    if (row === undefined) return { found: false };
    const [stored] = await this.store.readStream(row.stream_id, {
      fromPosition: Number(row.stream_position),
      maxCount: 1,
    });
    return {
      found: true,
      plan: planOfStream(row.stream_id),
      ...(stored === undefined ? {} : { event: toEnvelope(stored) }),
    };
  }

  @OnRequest('journal.status')
  async status(body: Uint8Array): Promise<JournalReply<'status'>> {
    const { plan } = parseQuery('status', body);
    let query = this.db
      .selectFrom('loop_states')
      .select(['plan', 'run_id', 'status', 'phase', 'round', 'updated_at', 'findings_open', 'spend_usd', 'state'])
      .where('plan', 'not like', '\\_%');
    if (plan !== undefined) query = query.where('plan', '=', plan);
    const rows = await query.orderBy('updated_at', 'desc').execute();
    return {
      plans: rows.map((r) => ({
        plan: r.plan,
        run_id: r.run_id,
        status: r.status,
        phase: r.phase,
        round: r.round,
        updated_at: r.updated_at,
        outcome_event_id: (r.state as LoopState).outcome_event_id,
        findings_open: r.findings_open,
        counts: (r.state as LoopState).current?.letter?.counts ?? null,
        started_at: (r.state as LoopState).gated?.occurred_at ?? null,
        spend_usd: Number(r.spend_usd),
        waiting_for: r.status === 'queued' ? ((r.state as LoopState).queued?.waiting_for.map((h) => h.plan) ?? []) : [],
      })),
    };
  }

  @OnRequest('journal.escalations')
  async escalations(body: Uint8Array): Promise<JournalReply<'escalations'>> {
    const query = parseQuery('escalations', body);
    let select = this.db
      .selectFrom('escalations')
      .leftJoin('loop_states', 'loop_states.plan', 'escalations.plan')
      .select([
        'escalations.escalation_id',
        'escalations.plan',
        'escalations.stream_id',
        'escalations.stream_position',
        'loop_states.status',
        'loop_states.state',
      ]);
    if (query.plan !== undefined) select = select.where('escalations.plan', '=', query.plan);
    const rows = await select
      .orderBy('escalations.raised_at', 'desc')
      .limit(query.open ? 10_000 : query.limit)
      .execute();
    const listed = rows
      .map((r) => ({
        ...r,
        open: r.status === 'escalated' && (r.state as LoopState | null)?.escalation?.escalation_id === r.escalation_id,
      }))
      .filter((r) => !query.open || r.open)
      .slice(0, query.limit);
    const escalations = await Promise.all(
      listed.map(async (r) => {
        const [stored] = await this.store.readStream(r.stream_id ?? r.plan, {
          fromPosition: r.stream_position,
          maxCount: 1,
        });
        if (stored === undefined)
          throw new NotFoundError(
            'JOURNAL.NOT_FOUND',
            `escalation ${r.escalation_id} is indexed but its event is missing`,
          );
        return { plan: r.plan, open: r.open, event: toEnvelope(stored) };
      }),
    );
    return { escalations };
  }

  /**
   * Per-finding timelines of the plan's current run from its loop memory, each attempt with the
   * part of its FixApplied patch that touched the finding's file (read from the event itself).
   */
  @OnRequest('journal.timelines')
  async timelines(body: Uint8Array): Promise<JournalReply<'timelines'>> {
    const query = parseQuery('timelines', body);
    const [row, run] = await Promise.all([
      this.db.selectFrom('loop_memory').select(['memory']).where('plan', '=', query.plan).executeTakeFirst(),
      this.db.selectFrom('loop_states').select(['stream_id']).where('plan', '=', query.plan).executeTakeFirst(),
    ]);
    if (row === undefined) return { plan: query.plan, run_id: null, round: 0, timelines: [] };
    const streamId = run?.stream_id ?? query.plan;
    const memory = row.memory as LoopMemory;
    const drafts = findingTimelines(memory, {
      ...(query.fingerprints === undefined ? {} : { fingerprints: query.fingerprints }),
      limit: query.limit,
      maxRounds: this.projections.loopConfig.limits.max_timeline_rounds,
    });
    const positions = [...new Set(drafts.flatMap((d) => d.attempt_positions))];
    const patches = new Map<number, string>();
    await Promise.all(
      positions.map(async (position) => {
        const [stored] = await this.store.readStream(streamId, { fromPosition: position, maxCount: 1 });
        const patch = (stored?.data as { patch?: unknown } | undefined)?.patch;
        if (stored?.type === 'FixApplied' && typeof patch === 'string') patches.set(position, patch);
      }),
    );
    const timelines = drafts.map((d) => ({
      ...d.timeline,
      attempts: d.timeline.attempts.map((a, i) => {
        const patch = patches.get(d.attempt_positions[i] ?? -1);
        const diff = patch === undefined ? null : patchOfFile(patch, d.timeline.file);
        return diff === null ? a : { ...a, diff };
      }),
    }));
    return { plan: query.plan, run_id: memory.run_id, round: memory.round, timelines };
  }

  @OnRequest('journal.rounds')
  async rounds(body: Uint8Array): Promise<JournalReply<'rounds'>> {
    const query = parseQuery('rounds', body);
    let runId = query.run_id ?? null;
    if (runId === null) {
      const state = await this.db
        .selectFrom('loop_states')
        .select(['run_id'])
        .where('plan', '=', query.plan)
        .executeTakeFirst();
      runId = state?.run_id ?? null;
    }
    if (runId === null) return { plan: query.plan, run_id: null, rounds: [] };
    const rows = await this.db
      .selectFrom('round_history')
      .select(['row'])
      .where('plan', '=', query.plan)
      .where('run_id', '=', runId)
      .orderBy('round', 'asc')
      .limit(query.limit)
      .execute();
    return {
      plan: query.plan,
      run_id: runId,
      rounds: rows.map((r) => r.row as RoundHistoryRow & Record<string, unknown>) as JournalReply<'rounds'>['rounds'],
    };
  }

  @OnRequest('journal.learnings')
  async learnings(body: Uint8Array): Promise<JournalReply<'learnings'>> {
    const query = parseQuery('learnings', body);
    let select = this.db.selectFrom('learnings').selectAll().where('loops', '>=', query.min_loops);
    if (query.critic_id !== undefined) select = select.where('critic_id', '=', query.critic_id);
    if (query.finding_types !== undefined && query.finding_types.length > 0)
      select = select.where('finding_type', 'in', query.finding_types);
    const rows = await select.orderBy('loops', 'desc').orderBy('stuck', 'desc').limit(query.limit).execute();
    return {
      learnings: rows.map((r) => ({
        critic_id: r.critic_id,
        finding_type: r.finding_type,
        loops: r.loops,
        rounds_seen: r.rounds_seen,
        fixed: r.fixed,
        stuck: r.stuck,
        example_title: r.example_title,
        last_seen_at: r.last_seen_at,
        recent_plans: r.recent_plans as string[],
      })),
    };
  }

  @OnRequest('journal.calibration')
  async calibration(body: Uint8Array): Promise<JournalReply<'calibration'>> {
    const query = parseQuery('calibration', body);
    let select = this.db.selectFrom('runs').select(['summary']);
    if (query.since !== undefined) select = select.where('started_at', '>=', query.since);
    const rows = await select.orderBy('started_at', 'desc').limit(query.limit).execute();
    return { runs: rows.map((r) => r.summary as RunSummaryRow) as JournalReply<'calibration'>['runs'] };
  }

  @OnRequest('journal.critic_stats')
  async criticStats(body: Uint8Array): Promise<JournalReply<'critic_stats'>> {
    const query = parseQuery('critic_stats', body);
    const rows = await this.db
      .selectFrom('round_history')
      .select(['row'])
      .orderBy('started_at', 'desc')
      .limit(query.rounds)
      .execute();
    const stats = new Map<
      string,
      {
        critic_id: string;
        dispatched: number;
        failed: number;
        reasons: Record<string, number>;
        last_round_at: string | null;
      }
    >();
    for (const { row } of rows) {
      const round = row as RoundHistoryRow;
      for (const [critic, outcome] of Object.entries(round.critics)) {
        const s = stats.get(critic) ?? {
          critic_id: critic,
          dispatched: 0,
          failed: 0,
          reasons: {},
          last_round_at: null,
        };
        s.dispatched += 1;
        if (outcome !== 'reported') {
          s.failed += 1;
          s.reasons[outcome] = (s.reasons[outcome] ?? 0) + 1;
        }
        if (s.last_round_at === null || round.started_at > s.last_round_at) s.last_round_at = round.started_at;
        stats.set(critic, s);
      }
    }
    return { rounds: rows.length, critics: [...stats.values()].sort((a, b) => a.critic_id.localeCompare(b.critic_id)) };
  }

  @OnRequest('journal.rebuild')
  async rebuild(body: Uint8Array): Promise<JournalReply<'rebuild'>> {
    const { projection } = parseQuery('rebuild', body);
    // The projections share one subscription (one checkpoint), so they are rebuilt together.
    if (projection !== undefined && !(PROJECTION_TABLES as readonly string[]).includes(projection)) {
      throw new NotFoundError(
        'JOURNAL.NOT_FOUND',
        `no projection ${projection} (there are: ${PROJECTION_TABLES.join(', ')})`,
      );
    }
    const events = await this.projections.rebuild();
    return { rebuilt: PROJECTION_TABLES.map((name) => ({ projection: name, events })) };
  }
}
