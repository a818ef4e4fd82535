import { z } from 'zod';
import { EventId, Slug } from './primitives.js';

/**
 * Requests to the journal (core NATS request/reply on `<ns>.v1.journal.<operation>`) and their
 * replies. The journal is the only reader of the database; deciders and the CLI ask it.
 */

const StoredEventRef = z.object({
  /** Position in the plan's stream (1-based). */
  position: z.int().min(1),
  /** Global position (decimal string, bigint-safe). */
  global_position: z.string().regex(/^\d+$/),
  /** The event as published (validated against its contract when it is read back). */
  event: z.record(z.string(), z.unknown()),
});

export const JOURNAL_QUERIES = {
  /** The plan's loop state (the folded projection the panel decides from) and its stream version. */
  loop_state: {
    request: z.object({ plan: Slug }),
    reply: z.object({ plan: Slug, version: z.int().min(0), state: z.record(z.string(), z.unknown()).nullable() }),
  },
  /** Events of a plan's stream: the current run (default), every run, or from a position on. */
  events: {
    request: z.object({ plan: Slug, scope: z.enum(['current_run', 'all']).default('current_run'), from_position: z.int().min(1).optional(), limit: z.int().min(1).max(10_000).default(10_000) }),
    reply: z.object({ plan: Slug, version: z.int().min(0), events: z.array(StoredEventRef) }),
  },
  /** A letter by id. */
  letter: {
    request: z.object({ letter_id: EventId }),
    reply: z.object({ letter: z.record(z.string(), z.unknown()) }),
  },
  /** Whether an event id is in the journal (the gate's submission dedupe). */
  event: {
    request: z.object({ event_id: EventId }),
    reply: z.object({ found: z.boolean(), plan: z.string().optional(), event: z.record(z.string(), z.unknown()).optional() }),
  },
  /** One plan's status, or every plan's. */
  status: {
    request: z.object({ plan: Slug.optional() }),
    reply: z.object({
      plans: z.array(
        z.object({
          plan: Slug,
          run_id: EventId.nullable(),
          status: z.string(),
          phase: z.string().nullable(),
          round: z.int().min(0),
          updated_at: z.string().nullable(),
          outcome_event_id: EventId.nullable(),
          findings_open: z.int().min(0).nullable(),
          spend_usd: z.number().min(0).default(0),
        }),
      ),
    }),
  },
  /** Escalations, newest first; `open` limits them to loops still waiting for a person. */
  escalations: {
    request: z.object({ open: z.boolean().default(false), plan: Slug.optional(), limit: z.int().min(1).max(1000).default(100) }),
    reply: z.object({ escalations: z.array(z.object({ plan: Slug, open: z.boolean(), event: z.record(z.string(), z.unknown()) })) }),
  },
  /** Rebuilds projections from zero (all, or one by name). */
  rebuild: {
    request: z.object({ projection: z.string().optional() }),
    reply: z.object({ rebuilt: z.array(z.object({ projection: z.string(), events: z.int().min(0) })) }),
  },
} as const;

export type JournalQuery = keyof typeof JOURNAL_QUERIES;
export type JournalRequest<Q extends JournalQuery> = z.input<(typeof JOURNAL_QUERIES)[Q]['request']>;
export type JournalReply<Q extends JournalQuery> = z.infer<(typeof JOURNAL_QUERIES)[Q]['reply']>;
