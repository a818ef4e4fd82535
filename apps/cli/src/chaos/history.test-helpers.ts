// The chaos test's history checker: reads a whole journal (every stream, as stored) and says
// everything that is wrong with it — a step decided twice, a decision appended on a state other
// than the one it was decided on, a decision without its version.
import { type JournaledEvent, parseEvent } from '@rloop/contracts';
import { DECISION_TYPES, type LoopState, admitDecision, evolveLoop, initialLoopState } from '@rloop/domain';

/** One stored event, as the store has it. */
export interface StoredRow {
  readonly stream_id: string;
  readonly stream_position: number;
  readonly event_id: string;
  readonly type: string;
  readonly schema_version: number;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The event a row holds (the plan is the stream's first segment). */
export function rowEvent(row: StoredRow): JournaledEvent {
  const m = row.metadata;
  const parsed = parseEvent({
    event_id: row.event_id,
    type: row.type,
    schema_version: row.schema_version,
    plan: row.stream_id.split('/')[0],
    correlation_id: m['correlation_id'],
    causation_id: m['causation_id'] ?? null,
    occurred_at: m['occurred_at'],
    producer: m['producer'],
    ...(m['decision'] === undefined ? {} : { decision: m['decision'] }),
    data: row.data,
  });
  if (!parsed.ok) throw new Error(`${row.stream_id}@${row.stream_position}: ${parsed.error.message}`);
  return parsed.event as JournaledEvent;
}

function roundOf(event: JournaledEvent): number | null {
  if (event.type === 'LetterWritten') return event.data.letter.round;
  const data = event.data as { round?: unknown };
  return typeof data.round === 'number' ? data.round : null;
}

function countBy(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** What the checker found in one run's stream (its final state, for comparing outcomes). */
export interface RunHistory {
  readonly streamId: string;
  readonly plan: string;
  readonly state: LoopState;
  readonly events: readonly JournaledEvent[];
}

/**
 * Checks every stream of a journal: positions 1..n without a gap; one RoundStarted per round,
 * one letter per round, at most one fix request per letter (and only for a letter of the run);
 * every decision stamped, and admitted by the state its stream had when it was appended
 * (refolded here from the stored history). Returns the problems (none when the history is sound)
 * and each run's refolded state.
 */
export function checkHistory(rows: readonly StoredRow[]): { readonly problems: string[]; readonly runs: RunHistory[] } {
  const problems: string[] = [];
  const byStream = new Map<string, StoredRow[]>();
  for (const row of rows) byStream.set(row.stream_id, [...(byStream.get(row.stream_id) ?? []), row]);
  const runs: RunHistory[] = [];
  for (const [streamId, streamRows] of byStream) {
    const ordered = [...streamRows].sort((a, b) => a.stream_position - b.stream_position);
    ordered.forEach((row, i) => {
      if (row.stream_position !== i + 1)
        problems.push(`${streamId}: position ${row.stream_position} where ${i + 1} was due`);
    });
    const events = ordered.map(rowEvent);
    const plan = streamId.split('/')[0] ?? streamId;
    let state = initialLoopState(plan);
    events.forEach((event, i) => {
      const position = i + 1;
      const where = `${streamId}@${position} ${event.type} ${event.event_id}`;
      if (DECISION_TYPES.has(event.type) && event.decision === undefined)
        problems.push(`${where}: a decision without the version it was made on`);
      if (event.decision !== undefined) {
        if (event.decision.expected_version >= position)
          problems.push(`${where}: decided on version ${event.decision.expected_version}, appended at ${position}`);
        const admission = admitDecision(state, event.decision);
        if (!admission.admitted)
          problems.push(
            `${where}: decided on version ${event.decision.expected_version}, but the run had changed at ${state.changed.at} (${admission.reason})`,
          );
      }
      state = evolveLoop(state, event, position);
    });
    const of = (type: JournaledEvent['type']): JournaledEvent[] => events.filter((e) => e.type === type);
    for (const [round, n] of countBy(of('RoundStarted').map((e) => String(roundOf(e)))))
      if (n > 1) problems.push(`${streamId}: round ${round} started ${n} times`);
    for (const [round, n] of countBy(of('LetterWritten').map((e) => String(roundOf(e)))))
      if (n > 1) problems.push(`${streamId}: ${n} letters for round ${round}`);
    const letters = new Set(
      of('LetterWritten').map((e) => (e.type === 'LetterWritten' ? e.data.letter.letter_id : '')),
    );
    const requested = of('FixRequested').map((e) => (e.type === 'FixRequested' ? e.data.letter.letter_id : ''));
    for (const [letter, n] of countBy(requested)) {
      if (n > 1) problems.push(`${streamId}: ${n} fix requests for letter ${letter}`);
      if (!letters.has(letter))
        problems.push(`${streamId}: a fix request for letter ${letter}, which the run never wrote`);
    }
    for (const [round, n] of countBy(of('FixApplied').map((e) => String(roundOf(e)))))
      if (n > 1) problems.push(`${streamId}: round ${round} fixed ${n} times`);
    runs.push({ streamId, plan, state, events });
  }
  return { problems, runs };
}
