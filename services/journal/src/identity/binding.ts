import { z } from 'zod';

/** What the namespace records about the journal its history belongs to (KV `<NS>_JOURNAL`, key `owner`). */
export const NamespaceClaim = z.object({
  journal_id: z.string().min(1),
  /** Where that journal keeps its history, for people (never a password). */
  store: z.string(),
  claimed_at: z.string(),
  /** Refreshed while the journal runs. */
  heartbeat_at: z.string(),
});
export type NamespaceClaim = z.infer<typeof NamespaceClaim>;

/** This database's journal as it starts. */
export interface JournalSelf {
  readonly journalId: string;
  readonly store: string;
  /** Whether its store holds any event yet. */
  readonly hasHistory: boolean;
}

export interface BindingInput {
  readonly namespace: string;
  readonly self: JournalSelf;
  readonly claim: NamespaceClaim | null;
  /** Messages the namespace's events stream holds now. */
  readonly busEvents: number;
  readonly nowMs: number;
  /** A claim refreshed within this long belongs to a journal that is running. */
  readonly liveWithinMs: number;
}

/** What the journal does about the namespace at start, and what it says (each line for people). */
export type Binding =
  | { readonly action: 'bind'; readonly lines: readonly string[] }
  | { readonly action: 'refuse'; readonly lines: readonly string[] };

const ORPHANS =
  'events of runs this journal never saw are not journaled here: they are dead-lettered as orphans (JOURNAL.ORPHAN_EVENT)';

/**
 * Binds a journal to the namespace it serves (pure). A journal never mixes histories: the
 * namespace remembers whose history it carries; a journal that starts empty on a namespace that
 * carries another one's says so, and what to do to keep that history, and journals nothing of
 * runs it never saw; a second journal (another database) is refused while the first one runs,
 * since the two would split the namespace's events between them.
 */
export function decideBinding(input: BindingInput): Binding {
  const { namespace, self, claim } = input;
  if (claim === null) {
    if (input.busEvents > 0 && !self.hasHistory) {
      return {
        action: 'bind',
        lines: [
          `journal: namespace ${namespace} carries ${input.busEvents} event(s) on the bus from before this journal (${self.journalId}, empty store ${self.store}); ${ORPHANS}.`,
          `journal: to keep that history instead, stop this journal and start it on the database that recorded it (DATABASE_URL, or RLOOP_HOME for the embedded journal).`,
        ],
      };
    }
    return {
      action: 'bind',
      lines: [`journal: ${self.journalId} (${self.store}) is now the journal of namespace ${namespace}.`],
    };
  }
  if (claim.journal_id === self.journalId)
    return {
      action: 'bind',
      lines: [
        `journal: ${self.journalId} (${self.store}) serves namespace ${namespace}, bound since ${claim.claimed_at}.`,
      ],
    };
  const live = input.nowMs - Date.parse(claim.heartbeat_at) < input.liveWithinMs;
  const other = `journal ${claim.journal_id} (${claim.store}, bound since ${claim.claimed_at}, last seen ${claim.heartbeat_at})`;
  if (live) {
    const ago = Math.max(0, Math.round((input.nowMs - Date.parse(claim.heartbeat_at)) / 1000));
    return {
      action: 'refuse',
      lines: [
        `journal: namespace ${namespace} belongs to ${other}, which is running (seen ${ago} s ago); this journal (${self.journalId}, ${self.store}) is another one, and two journals on one namespace would split its events between them.`,
        `journal: give this fleet its own namespace (RLOOP_NAMESPACE), or stop the other journal (its claim lapses ${Math.round(input.liveWithinMs / 1000)} s after it was last seen).`,
      ],
    };
  }
  return {
    action: 'bind',
    lines: [
      `journal: namespace ${namespace} belonged to ${other}; this journal (${self.journalId}, ${self.hasHistory ? `its own history in ${self.store}` : `empty store ${self.store}`}) takes it over: ${ORPHANS}.`,
      `journal: to keep ${claim.journal_id}'s history instead, stop this journal and start it on ${claim.store}.`,
    ],
  };
}
