import { type LoggerService } from '@nestjs/common';
import { type Consumer, type ConsumerMessages, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import {
  type Issue,
  type RloopEvent,
  RloopError,
  type Subjects,
  ValidationError,
  describeError,
} from '@rloop/contracts';
import { decodeEventMessage, encodeJson, payloadForRecord } from './codec.js';
import { sleep } from './connection.js';
import { BatchContext, type DeliveryInfo, EventContext } from './context.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import {
  type DeadLetterReason,
  type OutageRun,
  backoffDelay,
  buildDeadLetter,
  deadLetterMsgId,
  decideFailure,
} from './disposition.js';
import { BUS_ERROR_CODES } from './errors.js';
import { type LaneEntry, LaneScheduler, type LaneWork } from './lanes.js';
import { type BusObserver } from './observer.js';
import { type ConsumerPolicy } from './options.js';
import { orderingKeyOf } from './routing.js';

/** What a handler call came to: success, or the error it failed with. */
export type HandlerOutcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

export type RunnerMode =
  | { readonly kind: 'event'; readonly invoke: (event: RloopEvent, context: EventContext) => Promise<HandlerOutcome> }
  | {
      readonly kind: 'batch';
      readonly max: number;
      readonly lingerMs: number;
      readonly partitions: number;
      readonly invoke: (events: RloopEvent[], context: BatchContext) => Promise<HandlerOutcome>;
    };

export interface RunnerSettings {
  /** The durable consumer's name (also the dead-letter subject's last token). */
  readonly name: string;
  readonly stream: string;
  readonly subjects: Subjects;
  readonly policy: ConsumerPolicy;
  readonly mode: RunnerMode;
  readonly js: JetStreamClient;
  /** The connection the consumer pulls on (a batch's acks are confirmed with one flush of it). */
  readonly connection: NatsConnection;
  readonly logger: LoggerService;
  readonly publishTimeoutMs: number;
  /** Told how messages are settled (metrics). */
  readonly observer?: BusObserver;
  /** Where the deliveries that were not attempts are counted, so the count survives a restart. */
  readonly ledger: DeliveryLedger;
}

type Settled = { readonly seqs: readonly number[]; readonly until: number } | undefined;

const PULL_RETRY = { initialMs: 250, maxMs: 5_000 } as const;

/** A stable partition for an ordering key (FNV-1a), so a plan's events always share a batch lane. */
export function partitionOf(key: string, partitions: number): string {
  if (partitions <= 1) return '';
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return String((hash >>> 0) % partitions);
}

export function headersToRecord(headers: MsgHdrs | undefined): Record<string, string[]> {
  const record: Record<string, string[]> = {};
  if (headers === undefined) return record;
  for (const key of headers.keys()) record[key] = headers.values(key);
  return record;
}

/**
 * Pulls one durable consumer and settles every message exactly once per delivery: ack after the
 * handler resolves, nak with backoff on a retryable failure, dead letter + term on a rejection,
 * an invalid payload or too many deliveries. Messages of one plan run in stream order.
 */
export class ConsumerRunner {
  private readonly scheduler: LaneScheduler<JsMsg>;
  private readonly inflight = new Set<Promise<void>>();
  /**
   * RetryLaterError and TransientError naks per stream sequence: deliveries that were not
   * attempts. A cache of the ledger, which is read on every redelivery (another replica, or this
   * process before a restart, may have parked the message since) and written on every park.
   */
  private readonly parked = new Map<number, number>();
  /** Per stream sequence: attempts that failed (recorded too: the server's delivery count can go back to 1). */
  private readonly failed = new Map<number, number>();
  /** Sequences whose ledger record was read by this process (none may exist). */
  private readonly recalled = new Set<number>();
  /** Per stream sequence: the run of transient failures it is in (cleared when it is settled). */
  private readonly outages = new Map<number, OutageRun>();
  private readonly abort = new AbortController();
  private stopping = false;
  private pulling: Promise<void> | null = null;
  private fetching: ConsumerMessages | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private roomWaiter: (() => void) | null = null;
  /** Batch mode: when the oldest waiting message arrived (null when none waits). */
  private waitingSince: number | null = null;

  constructor(private readonly settings: RunnerSettings) {
    const batchMax = settings.mode.kind === 'batch' ? settings.mode.max : 1;
    const concurrency = settings.mode.kind === 'batch' ? settings.mode.partitions : settings.policy.concurrency;
    this.scheduler = new LaneScheduler<JsMsg>({ concurrency, batchMax });
  }

  get name(): string {
    return this.settings.name;
  }

  /** Starts pulling; returns at once. */
  start(consumer: Consumer): void {
    const interval = Math.max(250, Math.floor(this.settings.policy.ackWaitMs / 3));
    // Held messages (running or waiting behind their plan) must not time out and be redelivered.
    this.heartbeat = setInterval(() => this.scheduler.forEachHeld((entry) => entry.msg.working()), interval);
    this.heartbeat.unref();
    this.pulling = this.pullLoop(consumer);
  }

  /**
   * Stops pulling. Waiting messages of idle plans go back to the server at once; those queued
   * behind a running handler go back when it ends, so another replica cannot overtake it.
   */
  async stopPulling(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    this.fetching?.stop();
    this.roomWaiter?.();
    await this.pulling;
    this.handBackIdle();
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
  }

  /** Resolves true once no handler runs, or false when `timeoutMs` passes first. */
  async whenIdle(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const idle = (async () => {
      while (this.inflight.size > 0) await Promise.all([...this.inflight]);
      return true as const;
    })();
    try {
      return await Promise.race([idle, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Handlers still running. */
  get running(): number {
    return this.inflight.size;
  }

  dispose(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
  }

  private async pullLoop(consumer: Consumer): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      const room = this.settings.policy.maxBuffered - this.scheduler.held;
      if (room <= 0) {
        await new Promise<void>((resolve) => {
          this.roomWaiter = resolve;
        });
        this.roomWaiter = null;
        continue;
      }
      try {
        const messages = await consumer.fetch({ max_messages: room, expires: this.settings.policy.pullExpiresMs });
        this.fetching = messages;
        if (this.stopping) messages.stop();
        for await (const msg of messages) this.receive(msg);
        failures = 0;
      } catch (error) {
        if (this.stopping) break;
        failures += 1;
        const delay = backoffDelay(failures, PULL_RETRY);
        this.settings.logger.warn(`${this.name}: pull failed: ${describeError(error)}; retrying in ${delay} ms`, 'Bus');
        await sleep(delay, this.abort.signal);
      } finally {
        this.fetching = null;
      }
    }
  }

  private receive(msg: JsMsg): void {
    if (this.stopping) {
      // Arrived after shutdown began: hand it straight back rather than let it wait out its ack wait.
      msg.nak();
      return;
    }
    const key =
      this.settings.mode.kind === 'batch'
        ? partitionOf(orderingKeyOf(msg.subject), this.settings.mode.partitions)
        : orderingKeyOf(msg.subject);
    this.scheduler.add(key, msg.info.streamSequence, msg);
    this.waitingSince ??= Date.now();
    this.pump();
  }

  private pump(): void {
    if (this.stopping) {
      this.handBackIdle();
      return;
    }
    const now = Date.now();
    let wake = this.scheduler.nextWake();
    const mode = this.settings.mode;
    // A batch starts when it is full or its first message has waited lingerMs: messages of one
    // pull arrive one by one, and a batch should hold those that arrived together.
    const lingerUntil =
      mode.kind === 'batch' && this.scheduler.waiting < mode.max && this.waitingSince !== null
        ? this.waitingSince + mode.lingerMs
        : now;
    if (lingerUntil > now) {
      wake = wake === null ? lingerUntil : Math.min(wake, lingerUntil);
    } else {
      const started = this.scheduler.take(now);
      for (const work of started) {
        const task = this.run(work).finally(() => this.inflight.delete(task));
        this.inflight.add(task);
      }
      if (started.length > 0 || this.scheduler.waiting === 0)
        this.waitingSince = this.scheduler.waiting > 0 ? now : null;
    }
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (wake !== null) {
      this.wakeTimer = setTimeout(() => this.pump(), Math.max(0, wake - Date.now()));
      this.wakeTimer.unref();
    }
  }

  /** Keeps background work (batch ack confirmations) in flight, so shutdown waits for it. */
  private track(work: Promise<void>): void {
    const task = work.finally(() => this.inflight.delete(task));
    this.inflight.add(task);
  }

  private handBackIdle(): void {
    for (const entry of this.scheduler.drainWaiting({ idleLanesOnly: true })) entry.msg.nak();
  }

  private async run(work: LaneWork<JsMsg>): Promise<void> {
    let settled: Settled;
    try {
      settled =
        this.settings.mode.kind === 'batch'
          ? await this.runBatch(work.entries, this.settings.mode)
          : await this.runOne(work.entries, this.settings.mode);
    } catch (error) {
      // Settling failed (the dead letter could not be published, NATS is away): the messages go
      // back with a delay; nothing is dropped. A message already settled ignores the nak.
      const delay = backoffDelay(
        Math.max(...work.entries.map((e) => e.msg.info.deliveryCount)),
        this.settings.policy.backoff,
      );
      this.settings.logger.error(
        `${this.name}: could not settle ${describeSeqs(work.entries)}: ${describeError(error)}; nak'd, retry in ${delay} ms`,
        'Bus',
      );
      for (const entry of work.entries) entry.msg.nak(delay);
      settled = { seqs: work.entries.map((e) => e.seq), until: Date.now() + delay + this.settings.policy.ackWaitMs };
    } finally {
      this.scheduler.finish(work, settled);
      this.roomWaiter?.();
      this.pump();
    }
  }

  private async runOne(
    entries: readonly LaneEntry<JsMsg>[],
    mode: Extract<RunnerMode, { kind: 'event' }>,
  ): Promise<Settled> {
    const [entry] = entries;
    if (entry === undefined) return undefined;
    const checked = await this.admit(entry);
    if (checked === null) return undefined;
    const context = new EventContext([checked.info, () => entry.msg.working()]);
    const outcome = await mode.invoke(checked.event, context);
    if (outcome.ok) {
      await this.ack(entries);
      return undefined;
    }
    return this.onFailure(entries, outcome.error, checked.attempt);
  }

  private async runBatch(
    entries: readonly LaneEntry<JsMsg>[],
    mode: Extract<RunnerMode, { kind: 'batch' }>,
  ): Promise<Settled> {
    const admitted: { entry: LaneEntry<JsMsg>; event: RloopEvent; info: DeliveryInfo; attempt: number }[] = [];
    for (const entry of entries) {
      const checked = await this.admit(entry);
      if (checked !== null) admitted.push({ entry, ...checked });
    }
    if (admitted.length === 0) return undefined;
    const batchEntries = admitted.map((a) => a.entry);
    const rejected = new Map<number, RloopError>();
    const context = new BatchContext([
      admitted.map((a) => a.info),
      () => batchEntries.forEach((e) => e.msg.working()),
      (index, error) => {
        if (index < 0 || index >= admitted.length)
          throw new RangeError(`no event ${index} in a batch of ${admitted.length}`);
        rejected.set(index, error);
      },
    ]);
    const outcome = await mode.invoke(
      admitted.map((a) => a.event),
      context,
    );
    if (outcome.ok) {
      for (const [index, error] of rejected) {
        const entry = batchEntries[index];
        if (entry !== undefined)
          await this.deadLetter(
            [entry],
            'handler_rejected',
            error.code,
            error.message,
            error instanceof ValidationError ? error.issues : [],
          );
      }
      // The batch's work is committed; its acks are confirmed in the background so the next batch
      // starts at once (an unconfirmed ack only means a redelivery, which handlers absorb).
      this.track(this.ackBatch(batchEntries.filter((_, index) => !rejected.has(index))));
      return undefined;
    }
    return this.onFailure(batchEntries, outcome.error, Math.max(...admitted.map((a) => a.attempt)));
  }

  /** Validates a delivery and checks its delivery count; dead-letters it and returns null when it may not run. */
  private async admit(
    entry: LaneEntry<JsMsg>,
  ): Promise<{ event: RloopEvent; info: DeliveryInfo; attempt: number } | null> {
    const msg = entry.msg;
    const decoded = decodeEventMessage(this.settings.subjects, msg.subject, msg.data);
    if (!decoded.ok) {
      await this.deadLetter([entry], 'invalid_payload', decoded.code, decoded.message, decoded.issues);
      return null;
    }
    const info = this.deliveryInfo(msg);
    // Every redelivery reads the record: another replica may have parked the message since.
    if (info.deliveries > 1) await this.recall(entry.seq);
    // Deliveries that were not attempts do not count; failed attempts always do, even when the
    // server's count went back (NATS 2.9 restarts it at 1 for a message nak'd while its consumer
    // changed hands): a message is never retried forever.
    const attempt = Math.max(
      info.deliveries - (this.parked.get(entry.seq) ?? 0),
      (this.failed.get(entry.seq) ?? 0) + 1,
    );
    if (attempt > this.settings.policy.maxDeliver) {
      // Checked before the handler runs, so a message that kills the process every time still ends here.
      const message = `delivered ${info.deliveries} time(s), ${attempt} attempt(s); the limit is ${this.settings.policy.maxDeliver}`;
      await this.deadLetter([entry], 'max_deliver', BUS_ERROR_CODES.maxDeliver, message, []);
      return null;
    }
    return { event: decoded.event, info, attempt };
  }

  /** Whether this process holds a record of the message (read from the ledger or made here). */
  private knows(seq: number): boolean {
    return this.parked.has(seq) || this.failed.has(seq) || this.outages.has(seq) || this.recalled.has(seq);
  }

  /** Loads a redelivered message's record from the ledger into the caches (keeping the cached one when the ledger cannot be read). */
  private async recall(seq: number): Promise<void> {
    let record;
    try {
      record = await this.settings.ledger.read(this.name, this.settings.stream, seq);
    } catch (error) {
      this.settings.logger.warn(
        `${this.name}: could not read the delivery record of seq ${seq} (${describeError(error)}); counting from this process's memory`,
        'Bus',
      );
      return;
    }
    this.recalled.add(seq);
    if (record === null) return;
    if (record.parked > (this.parked.get(seq) ?? 0)) this.parked.set(seq, record.parked);
    if (record.failed > (this.failed.get(seq) ?? 0)) this.failed.set(seq, record.failed);
    if (record.outage !== null) this.outages.set(seq, record.outage);
  }

  /** Writes the messages' records after a park or a wait (a failed write is logged: the nak goes out regardless). */
  private async remember(entries: readonly LaneEntry<JsMsg>[]): Promise<void> {
    await Promise.all(
      entries.map(async (entry) => {
        try {
          await this.settings.ledger.write(this.name, this.settings.stream, entry.seq, {
            parked: this.parked.get(entry.seq) ?? 0,
            failed: this.failed.get(entry.seq) ?? 0,
            outage: this.outages.get(entry.seq) ?? null,
          });
        } catch (error) {
          this.settings.logger.warn(
            `${this.name}: could not record the park of seq ${entry.seq} (${describeError(error)}); a restart would count it as an attempt`,
            'Bus',
          );
        }
      }),
    );
  }

  /** The message is settled: its record goes (in the background; a record left behind expires with the ledger's max age). */
  private settle(seq: number): void {
    const known = this.parked.has(seq) || this.failed.has(seq) || this.outages.has(seq);
    this.parked.delete(seq);
    this.failed.delete(seq);
    this.outages.delete(seq);
    this.recalled.delete(seq);
    if (!known) return;
    this.settings.ledger.forget(this.name, this.settings.stream, seq).catch((error: unknown) => {
      this.settings.logger.debug?.(
        `${this.name}: could not drop the delivery record of seq ${seq}: ${describeError(error)}`,
        'Bus',
      );
    });
  }

  private async onFailure(
    entries: readonly LaneEntry<JsMsg>[],
    error: unknown,
    admittedAttempt: number,
  ): Promise<Settled> {
    // What other deliveries of these messages did (an earlier process, another replica) is read
    // before it is added to: a record is never overwritten by a count that started again.
    await Promise.all(entries.filter((e) => !this.knows(e.seq)).map((e) => this.recall(e.seq)));
    const attempt = Math.max(admittedAttempt, ...entries.map((e) => (this.failed.get(e.seq) ?? 0) + 1));
    const runs = entries.map((e) => this.outages.get(e.seq)).filter((r): r is OutageRun => r !== undefined);
    const outage =
      runs.length === 0
        ? null
        : { failures: Math.max(...runs.map((r) => r.failures)), sinceMs: Math.min(...runs.map((r) => r.sinceMs)) };
    const now = Date.now();
    const decision = decideFailure(error, attempt, this.settings.policy, outage, now);
    const what = describeSeqs(entries);
    switch (decision.action) {
      case 'park':
        for (const entry of entries) this.parked.set(entry.seq, (this.parked.get(entry.seq) ?? 0) + 1);
        // Recorded before the nak: the redelivery may reach another replica (or this service restarted).
        await this.remember(entries);
        for (const entry of entries) entry.msg.nak(decision.delayMs);
        this.settings.observer?.settled?.(this.name, 'parked', entries.length);
        this.settings.logger.debug?.(
          `${this.name}: ${what} parked for ${decision.delayMs} ms: ${decision.reason}`,
          'Bus',
        );
        return undefined;
      case 'retry': {
        for (const entry of entries)
          this.failed.set(entry.seq, Math.max(attempt, (this.failed.get(entry.seq) ?? 0) + 1));
        await this.remember(entries);
        for (const entry of entries) entry.msg.nak(decision.delayMs);
        this.settings.observer?.settled?.(this.name, 'retried', entries.length);
        const stack =
          !(error instanceof RloopError) && error instanceof Error && error.stack !== undefined
            ? `\n${error.stack}`
            : '';
        this.settings.logger.warn(
          `${this.name}: ${what} failed (attempt ${attempt} of ${this.settings.policy.maxDeliver}): ${decision.code}: ${decision.message}; retry in ${decision.delayMs} ms${stack}`,
          'Bus',
        );
        return this.holdPlan(entries, decision.delayMs);
      }
      case 'wait': {
        const run = { failures: (outage?.failures ?? 0) + 1, sinceMs: outage?.sinceMs ?? now };
        for (const entry of entries) {
          this.parked.set(entry.seq, (this.parked.get(entry.seq) ?? 0) + 1);
          this.outages.set(entry.seq, run);
        }
        await this.remember(entries);
        for (const entry of entries) entry.msg.nak(decision.delayMs);
        this.settings.observer?.settled?.(this.name, 'waiting', entries.length);
        const bound = Math.round(this.settings.policy.maxOutageMs / 1000);
        this.settings.logger.warn(
          `${this.name}: ${what} waits (transient failure ${run.failures}, not an attempt; dead-lettered if it lasts ${bound} s): ${decision.code}: ${decision.message}; retry in ${decision.delayMs} ms`,
          'Bus',
        );
        return this.holdPlan(entries, decision.delayMs);
      }
      case 'dead_letter':
        await this.deadLetter(entries, decision.reason, decision.code, decision.message, decision.issues);
        return undefined;
    }
  }

  /** After a nak: the plan's later messages wait until these come back (or their redelivery is overdue). */
  private holdPlan(entries: readonly LaneEntry<JsMsg>[], delayMs: number): Settled {
    return { seqs: entries.map((e) => e.seq), until: Date.now() + delayMs + this.settings.policy.ackWaitMs };
  }

  private async ack(entries: readonly LaneEntry<JsMsg>[]): Promise<void> {
    this.settings.observer?.settled?.(this.name, 'acked', entries.length);
    await Promise.all(
      entries.map(async (entry) => {
        this.settle(entry.seq);
        try {
          // A confirmed ack: after it, the server will not redeliver this message.
          await entry.msg.ackAck({ timeout: this.settings.publishTimeoutMs });
        } catch (error) {
          this.settings.logger.warn(
            `${this.name}: ack of ${describeSeqs([entry])} not confirmed (${describeError(error)}); it may be redelivered, handlers are idempotent`,
            'Bus',
          );
        }
      }),
    );
  }

  /**
   * Acks a batch with one round trip: every ack is written, then a flush (PING/PONG) confirms the
   * server has processed them all — it handles a connection's messages in order. Confirming each
   * ack separately costs a request per message, which dominated large batches.
   */
  private async ackBatch(entries: readonly LaneEntry<JsMsg>[]): Promise<void> {
    this.settings.observer?.settled?.(this.name, 'acked', entries.length);
    for (const entry of entries) {
      this.settle(entry.seq);
      entry.msg.ack();
    }
    try {
      await this.settings.connection.flush();
    } catch (error) {
      this.settings.logger.warn(
        `${this.name}: acks of ${describeSeqs(entries)} not confirmed (${describeError(error)}); they may be redelivered, handlers are idempotent`,
        'Bus',
      );
    }
  }

  private async deadLetter(
    entries: readonly LaneEntry<JsMsg>[],
    reason: DeadLetterReason,
    code: string,
    message: string,
    issues: readonly Issue[],
  ): Promise<void> {
    for (const entry of entries) {
      const msg = entry.msg;
      const info = this.deliveryInfo(msg);
      const record = buildDeadLetter({
        consumer: this.name,
        stream: info.stream,
        streamSequence: info.streamSequence,
        subject: info.subject,
        deliveries: info.deliveries,
        reason,
        code,
        message,
        issues,
        payload: payloadForRecord(msg.data),
        headers: info.headers,
        failedAt: new Date(),
      });
      await this.settings.js.publish(this.settings.subjects.deadLetter(this.name), encodeJson(record), {
        msgID: deadLetterMsgId(this.name, info.stream, info.streamSequence),
        timeout: this.settings.publishTimeoutMs,
      });
      this.settings.logger.error(
        `${this.name}: dead-lettered ${info.subject} (stream ${info.stream} seq ${info.streamSequence}, ${info.deliveries} deliveries): ${reason} ${code}: ${message}`,
        'Bus',
      );
      // Only after the record is stored: a lost term means a redelivery and a deduplicated record.
      entry.msg.term();
      this.settings.observer?.settled?.(this.name, 'dead_lettered', 1);
      this.settle(entry.seq);
    }
  }

  private deliveryInfo(msg: JsMsg): DeliveryInfo {
    return {
      consumer: this.name,
      stream: msg.info.stream,
      subject: msg.subject,
      streamSequence: msg.info.streamSequence,
      deliveries: msg.info.deliveryCount,
      headers: headersToRecord(msg.headers),
    };
  }
}

function describeSeqs(entries: readonly LaneEntry<JsMsg>[]): string {
  const first = entries[0];
  if (first === undefined) return 'nothing';
  if (entries.length === 1) return `${first.msg.subject} seq ${first.seq}`;
  return `${entries.length} messages (seq ${entries.map((e) => e.seq).join(', ')})`;
}
