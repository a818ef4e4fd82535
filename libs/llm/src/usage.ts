/**
 * Usage of one dispatch (one critic run, one test-writer run, one implementer run), shaped like
 * the data of the `UsageRecorded` event so a service publishes it as it is.
 */
export interface UsageRecord {
  readonly round?: number;
  /** What was dispatched: a critic id, `test-writer`, `implementer`. At most 64 characters. */
  readonly dispatch: string;
  readonly model: string;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cost_usd: number;
}

/** Token counts of one API call, as the Messages API reports them. */
export interface CallUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
}

export function emptyUsage(dispatch: string, model: string, round?: number): UsageRecord {
  return {
    ...(round === undefined ? {} : { round }),
    dispatch: dispatch.slice(0, 64),
    model,
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cost_usd: 0,
  };
}

/** Adds one call's tokens and cost to a dispatch's record. */
export function addUsage(record: UsageRecord, call: CallUsage, costUsd: number): UsageRecord {
  return {
    ...record,
    input_tokens: record.input_tokens + call.input_tokens,
    output_tokens: record.output_tokens + call.output_tokens,
    cache_creation_input_tokens: record.cache_creation_input_tokens + call.cache_creation_input_tokens,
    cache_read_input_tokens: record.cache_read_input_tokens + call.cache_read_input_tokens,
    // Rounded to a millionth of a dollar so sums do not drift with floating-point noise.
    cost_usd: Math.round((record.cost_usd + costUsd) * 1e6) / 1e6,
  };
}
