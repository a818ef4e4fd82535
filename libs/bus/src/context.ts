import { BaseRpcContext } from '@nestjs/microservices';
import { type RloopError } from '@rloop/contracts';

/** Where one delivered message sits: enough to log it, find it again, or reason about retries. */
export interface DeliveryInfo {
  readonly consumer: string;
  readonly stream: string;
  readonly subject: string;
  readonly streamSequence: number;
  /** 1 on first delivery. */
  readonly deliveries: number;
  readonly headers: Readonly<Record<string, readonly string[]>>;
}

type EventContextArgs = [DeliveryInfo, () => void];

/** The context an `@OnEvent` handler receives next to the validated event (Nest's `@Ctx()`). */
export class EventContext extends BaseRpcContext<EventContextArgs> {
  get delivery(): DeliveryInfo {
    return this.args[0];
  }

  get subject(): string {
    return this.args[0].subject;
  }

  get streamSequence(): number {
    return this.args[0].streamSequence;
  }

  get deliveries(): number {
    return this.args[0].deliveries;
  }

  /**
   * Tells the server the message is still being worked on (resets its ack wait). The bus already
   * does this every third of the ack wait while the handler runs; call it for explicit progress.
   */
  working(): void {
    this.args[1]();
  }
}

type BatchContextArgs = [readonly DeliveryInfo[], () => void, (index: number, error: RloopError) => void];

/** The context an `@OnEventBatch` handler receives next to its events (same order). */
export class BatchContext extends BaseRpcContext<BatchContextArgs> {
  get deliveries(): readonly DeliveryInfo[] {
    return this.args[0];
  }

  working(): void {
    this.args[1]();
  }

  /**
   * Refuses one event of the batch (by its index) with a non-retryable error: when the handler
   * resolves, that event is dead-lettered (reason handler_rejected) and the rest are acked, so
   * one bad event does not hold back the others.
   */
  reject(index: number, error: RloopError): void {
    this.args[2](index, error);
  }
}

type RequestContextArgs = [string, Readonly<Record<string, readonly string[]>>, boolean];

/** The context an `@OnRequest` handler receives next to the raw request body. */
export class RequestContext extends BaseRpcContext<RequestContextArgs> {
  get subject(): string {
    return this.args[0];
  }

  get headers(): Readonly<Record<string, readonly string[]>> {
    return this.args[1];
  }

  /** False for a plain publish on a request subject: nobody reads the reply, so say it another way. */
  get expectsReply(): boolean {
    return this.args[2];
  }
}
