import type { Requester } from '@rloop/bus';
import {
  type EventOf,
  JOURNAL_QUERIES,
  type JournalQuery,
  type JournalReply,
  type JournalRequest,
  type JournaledEvent,
  type Letter,
  Letter as LetterSchema,
  type LoopState,
  ValidationError,
  parseEvent,
  toIssues,
} from '@rloop/contracts';

/** An event read back from the journal with its positions. */
export interface JournalEntry {
  readonly position: number;
  readonly global_position: string;
  readonly event: JournaledEvent;
}

/**
 * Typed access to the journal's queries over the bus. Replies are validated: a journal that
 * answers something else is an error here, not a surprise three calls later.
 */
export class JournalClient {
  constructor(
    private readonly requester: Requester,
    private readonly timeoutMs: number = 10_000,
  ) {}

  private async ask<Q extends JournalQuery>(query: Q, body: JournalRequest<Q>): Promise<JournalReply<Q>> {
    const spec = JOURNAL_QUERIES[query];
    const raw = await this.requester.request(`journal.${query}`, spec.request.parse(body), {
      timeoutMs: this.timeoutMs,
    });
    const reply = spec.reply.safeParse(raw);
    if (!reply.success)
      throw new ValidationError(
        'JOURNAL.BAD_REPLY',
        `the journal's reply to ${query} does not match its contract`,
        toIssues(reply.error),
      );
    return reply.data as JournalReply<Q>;
  }

  /** The plan's folded loop state (null before its first event) and the stream version it reflects. */
  async loopState(plan: string): Promise<{ readonly version: number; readonly state: LoopState | null }> {
    const reply = await this.ask('loop_state', { plan });
    // Parsed against the versioned LoopState contract with the rest of the reply (see ask).
    return { version: reply.version, state: reply.state };
  }

  /**
   * The plan's loop state as of an announcement: the one the journal put in it when it is there
   * (folded in the same transaction as the announced events), otherwise asked for. A redelivered
   * announcement (`fresh`: a timer that fired, a message a crashed replica held) carries a state
   * that is old by now: then the journal is always asked.
   */
  async loopStateAt(
    announcement: EventOf<'JournalCommitted'>,
    options: { readonly fresh?: boolean } = {},
  ): Promise<{ readonly version: number; readonly state: LoopState | null }> {
    // Parsed with the announcement (JournalCommitted's loop_state is the versioned LoopState contract).
    const carried = announcement.data.loop_state;
    if (options.fresh !== true && carried !== undefined && carried.version >= announcement.data.stream_version)
      return { version: carried.version, state: carried };
    return this.loopState(announcement.plan);
  }

  /** A letter: the one an announcement carries when it is that one, otherwise asked for. */
  async letterAt(announcement: EventOf<'JournalCommitted'>, letterId: string): Promise<Letter> {
    const carried = announcement.data.letter;
    return carried !== undefined && carried.letter_id === letterId ? carried : this.letter(letterId);
  }

  /** Events of the plan's current run (or one run, or every run), optionally from a stream position on. */
  async events(
    plan: string,
    options: { readonly scope?: 'current_run' | 'all'; readonly runId?: string; readonly fromPosition?: number } = {},
  ): Promise<{ readonly version: number; readonly entries: JournalEntry[] }> {
    const entries: JournalEntry[] = [];
    let from = options.fromPosition;
    // The journal answers in pages (a reply must fit in one NATS message): follow next_position.
    for (;;) {
      const reply = await this.ask('events', {
        plan,
        scope: options.scope ?? 'current_run',
        ...(options.runId === undefined ? {} : { run_id: options.runId }),
        ...(from === undefined ? {} : { from_position: from }),
      });
      for (const stored of reply.events) {
        const parsed = parseEvent(stored.event);
        if (!parsed.ok) throw parsed.error;
        entries.push({
          position: stored.position,
          global_position: stored.global_position,
          event: parsed.event as JournaledEvent,
        });
      }
      if (reply.next_position === null) return { version: reply.version, entries };
      from = reply.next_position;
    }
  }

  async letter(letterId: string): Promise<Letter> {
    const reply = await this.ask('letter', { letter_id: letterId });
    const letter = LetterSchema.safeParse(reply.letter);
    if (!letter.success)
      throw new ValidationError(
        'JOURNAL.BAD_REPLY',
        `letter ${letterId} from the journal does not match its contract`,
        toIssues(letter.error),
      );
    return letter.data;
  }

  /** Like letter(), but null when the journal has no such letter. */
  async findLetter(letterId: string): Promise<Letter | null> {
    try {
      return await this.letter(letterId);
    } catch (error) {
      if (error instanceof Error && 'code' in error && (error as { code: unknown }).code === 'JOURNAL.NOT_FOUND')
        return null;
      throw error;
    }
  }

  async hasEvent(eventId: string): Promise<JournalReply<'event'>> {
    return this.ask('event', { event_id: eventId });
  }

  async status(plan?: string): Promise<JournalReply<'status'>['plans']> {
    return (await this.ask('status', plan === undefined ? {} : { plan })).plans;
  }

  /** The runs that hold or wait for files, in admission order (scope locking). */
  async openRuns(): Promise<JournalReply<'open_runs'>['runs']> {
    return (await this.ask('open_runs', {})).runs;
  }

  /** LLM spend from UsageRecorded events: the plan's (and one run's) and every plan's on a UTC day (YYYY-MM-DD). */
  async spend(plan: string, day: string, runId?: string): Promise<JournalReply<'spend'>> {
    return this.ask('spend', { plan, day, ...(runId === undefined ? {} : { run_id: runId }) });
  }

  async escalations(
    options: { readonly open?: boolean; readonly plan?: string; readonly limit?: number } = {},
  ): Promise<JournalReply<'escalations'>['escalations']> {
    return (
      await this.ask('escalations', {
        open: options.open ?? false,
        ...(options.plan === undefined ? {} : { plan: options.plan }),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      })
    ).escalations;
  }

  /** Patterns seen in at least `minLoops` loops (optionally for some finding types), most widespread first. */
  async learnings(
    options: { readonly findingTypes?: readonly string[]; readonly minLoops?: number; readonly limit?: number } = {},
  ): Promise<JournalReply<'learnings'>['learnings']> {
    const types = options.findingTypes === undefined ? {} : { finding_types: [...options.findingTypes].slice(0, 200) };
    return (await this.ask('learnings', { ...types, min_loops: options.minLoops ?? 2, limit: options.limit ?? 100 }))
      .learnings;
  }

  /** How each critic fared over the most recent rounds (dispatches, failures by reason). */
  async criticStats(rounds?: number): Promise<JournalReply<'critic_stats'>> {
    return this.ask('critic_stats', rounds === undefined ? {} : { rounds });
  }

  async rebuild(projection?: string): Promise<JournalReply<'rebuild'>['rebuilt']> {
    return (await this.ask('rebuild', projection === undefined ? {} : { projection })).rebuilt;
  }
}
