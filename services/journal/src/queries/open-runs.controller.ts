import { Controller, Inject } from '@nestjs/common';
import { sql } from 'kysely';
import { OnRequest, decodeJsonBody } from '@rloop/bus';
import { JOURNAL_QUERIES, type JournalReply, ValidationError, toIssues } from '@rloop/contracts';
import type { LoopState } from '@rloop/domain';
import type { EventStoreClient } from '@rloop/event-store';
import { EVENT_STORE } from '../tokens.js';

const MAX_QUERY_BYTES = 1024;

/** Statuses whose run holds no files: it ended, or it waits for a person (scope locking releases an escalated loop). */
const RELEASED = ['converged', 'bypassed', 'rejected', 'stopped', 'escalated'] as const;

interface OpenRunRow {
  plan: string;
  run_id: string;
  status: string;
  state: unknown;
  settled: boolean;
}

/**
 * `journal.open_runs`: the runs that hold or wait for files, in admission order — the global
 * read order of their PlanSubmitted, (transaction id, global position), the order every
 * subscriber of the journal sees. A run is `settled` once its PlanSubmitted lies below the read
 * horizon (no older transaction still running): every run admitted before it is then visible,
 * so the gate can decide it without missing one that commits late (docs/architecture.md).
 */
@Controller()
export class OpenRunsController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStoreClient) {}

  @OnRequest('journal.open_runs')
  async openRuns(body: Uint8Array): Promise<JournalReply<'open_runs'>> {
    const parsed = JOURNAL_QUERIES.open_runs.request.safeParse(decodeJsonBody(body, MAX_QUERY_BYTES));
    if (!parsed.success)
      throw new ValidationError(
        'JOURNAL.INVALID_QUERY',
        `journal.open_runs: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
        toIssues(parsed.error),
      );
    const { rows } = await sql<OpenRunRow>`
      SELECT s.plan, s.run_id, s.status, s.state, (e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())) AS settled
      FROM loop_states AS s JOIN events AS e ON e.event_id = s.run_id
      WHERE s.run_id IS NOT NULL AND s.status NOT IN (${sql.join(RELEASED)}) AND s.plan NOT LIKE '\\_%'
      ORDER BY e.transaction_id, e.global_position`.execute(this.store.db);
    return {
      runs: rows.map((row) => {
        const state = row.state as LoopState;
        const scope = state.gated ?? state.queued?.gating ?? null;
        return {
          plan: row.plan,
          run_id: row.run_id,
          status: row.status,
          scope:
            scope === null
              ? null
              : {
                  repo_path: scope.repo_path,
                  ...(scope.repo_url === undefined ? {} : { repo_url: scope.repo_url }),
                  files: [...scope.files],
                },
          settled: row.settled,
        };
      }),
    };
  }
}
