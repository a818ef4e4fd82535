import { RloopError, TransientError, ValidationError, describeError } from '@rloop/contracts';
import { BUS_ERROR_CODES } from './errors.js';

/** Connection state of the transport, as Nest's `status` observable reports it. */
export type BusStatus = 'connected' | 'disconnected' | 'reconnecting' | 'closed';

/** The reply a request handler's thrown error becomes. */
export interface ErrorReply {
  readonly status: 'error';
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  /** The responder failed on a dependency that is down (a TransientError there): retry it later. */
  readonly transient?: boolean;
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
}

export function isErrorReply(value: unknown): value is ErrorReply {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { status?: unknown }).status === 'error' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** Turns anything a request handler threw into its error reply. */
export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof RloopError) {
    return {
      status: 'error',
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      ...(error instanceof TransientError ? { transient: true } : {}),
      ...(error instanceof ValidationError
        ? { issues: error.issues.map((i) => ({ path: i.path, message: i.message })) }
        : {}),
    };
  }
  return { status: 'error', code: BUS_ERROR_CODES.handlerCrashed, message: describeError(error), retryable: true };
}
