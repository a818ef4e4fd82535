/** One held delivery. `msg` is replaced when the server redelivers a message still held here. */
export interface LaneEntry<M> {
  readonly seq: number;
  msg: M;
}

/** Entries of one lane handed out together (one for event handlers, up to batchMax for batches). */
export interface LaneWork<M> {
  readonly key: string;
  readonly entries: readonly LaneEntry<M>[];
}

interface Barrier {
  readonly seqs: Set<number>;
  readonly until: number;
}

interface Lane<M> {
  readonly key: string;
  /** Waiting entries in stream order. */
  pending: LaneEntry<M>[];
  running: LaneWork<M> | null;
  /** Set after a retryable failure: later messages wait until the failed ones come back (or `until`). */
  barrier: Barrier | null;
}

export interface LaneLimits {
  /** Lanes running at the same time. */
  readonly concurrency: number;
  /** Entries handed out per work item (1 = one message at a time). */
  readonly batchMax: number;
}

/**
 * Per-key ordering with bounded concurrency: entries of one key run one work item at a time in
 * stream order; different keys run in parallel. After a retryable failure the key is held until
 * the nak'd messages are redelivered and handled, or until a deadline passes, so a message that
 * never comes back (taken by another replica, deleted) cannot block its key forever.
 * Time is passed in; nothing here reads a clock.
 */
export class LaneScheduler<M> {
  private readonly lanes = new Map<string, Lane<M>>();
  private runningCount = 0;
  private runningEntries = 0;
  private heldCount = 0;

  constructor(private readonly limits: LaneLimits) {}

  /** Entries held (waiting or running). */
  get held(): number {
    return this.heldCount;
  }

  /** Entries waiting (held but not running). */
  get waiting(): number {
    return this.heldCount - this.runningEntries;
  }

  /** Work items running. */
  get running(): number {
    return this.runningCount;
  }

  /** Adds a delivery; a redelivery of an entry already held only refreshes its message. */
  add(key: string, seq: number, msg: M): 'added' | 'replaced' {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { key, pending: [], running: null, barrier: null };
      this.lanes.set(key, lane);
    }
    const held = lane.pending.find((e) => e.seq === seq) ?? lane.running?.entries.find((e) => e.seq === seq);
    if (held !== undefined) {
      held.msg = msg;
      return 'replaced';
    }
    let index = lane.pending.length;
    while (index > 0 && (lane.pending[index - 1]?.seq ?? 0) > seq) index -= 1;
    lane.pending.splice(index, 0, { seq, msg });
    this.heldCount += 1;
    return 'added';
  }

  /** Starts every work item that may start at `now`; the caller must `finish` each one. */
  take(now: number): LaneWork<M>[] {
    const started: LaneWork<M>[] = [];
    for (const lane of [...this.lanes.values()]) {
      if (this.runningCount >= this.limits.concurrency) break;
      if (lane.running !== null) continue;
      if (lane.barrier !== null && lane.barrier.until <= now) lane.barrier = null;
      const limit = lane.barrier === null ? Number.POSITIVE_INFINITY : Math.max(...lane.barrier.seqs);
      let count = 0;
      while (
        count < lane.pending.length &&
        count < this.limits.batchMax &&
        (lane.pending[count]?.seq ?? Number.POSITIVE_INFINITY) <= limit
      )
        count += 1;
      if (count === 0) {
        if (lane.pending.length === 0 && lane.barrier === null) this.lanes.delete(lane.key);
        continue;
      }
      const work: LaneWork<M> = { key: lane.key, entries: lane.pending.splice(0, count) };
      lane.running = work;
      this.runningCount += 1;
      this.runningEntries += work.entries.length;
      // Round-robin: a busy lane goes to the back so other keys get their turn.
      this.lanes.delete(lane.key);
      this.lanes.set(lane.key, lane);
      started.push(work);
    }
    return started;
  }

  /**
   * Ends a work item. `retry` names the entries that were nak'd after a failure: the lane then
   * waits for them until `retry.until`.
   */
  finish(work: LaneWork<M>, retry?: { readonly seqs: readonly number[]; readonly until: number }): void {
    const lane = this.lanes.get(work.key);
    if (lane?.running !== work) throw new Error(`lane ${work.key}: finishing work that is not running`);
    lane.running = null;
    this.runningCount -= 1;
    this.runningEntries -= work.entries.length;
    this.heldCount -= work.entries.length;
    if (lane.barrier !== null) {
      for (const entry of work.entries) lane.barrier.seqs.delete(entry.seq);
      if (lane.barrier.seqs.size === 0) lane.barrier = null;
    }
    if (retry !== undefined && retry.seqs.length > 0) {
      const seqs = new Set([...(lane.barrier?.seqs ?? []), ...retry.seqs]);
      lane.barrier = { seqs, until: Math.max(lane.barrier?.until ?? 0, retry.until) };
    }
    if (lane.pending.length === 0 && lane.barrier === null) this.lanes.delete(lane.key);
  }

  /** The earliest time a barrier that holds back waiting entries expires, or null. */
  nextWake(): number | null {
    let wake: number | null = null;
    for (const lane of this.lanes.values()) {
      if (lane.barrier !== null && lane.running === null && lane.pending.length > 0)
        wake = wake === null ? lane.barrier.until : Math.min(wake, lane.barrier.until);
    }
    return wake;
  }

  /** Calls `visit` for every held entry (waiting or running). */
  forEachHeld(visit: (entry: LaneEntry<M>) => void): void {
    for (const lane of this.lanes.values()) {
      lane.pending.forEach(visit);
      lane.running?.entries.forEach(visit);
    }
  }

  /**
   * Removes and returns waiting (not running) entries, e.g. to hand them back at shutdown. With
   * `idleLanesOnly`, entries queued behind a running work item stay until it ends.
   */
  drainWaiting(options: { readonly idleLanesOnly: boolean }): LaneEntry<M>[] {
    const drained: LaneEntry<M>[] = [];
    for (const lane of [...this.lanes.values()]) {
      if (options.idleLanesOnly && lane.running !== null) continue;
      drained.push(...lane.pending);
      lane.pending = [];
      lane.barrier = null;
      if (lane.running === null) this.lanes.delete(lane.key);
    }
    this.heldCount -= drained.length;
    return drained;
  }
}
