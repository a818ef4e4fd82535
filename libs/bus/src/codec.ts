import {
  type Issue,
  type RloopEvent,
  type Subjects,
  type Upcaster,
  UPCASTERS,
  ValidationError,
  parseEvent,
} from '@rloop/contracts';
import { BUS_ERROR_CODES } from './errors.js';
import { subjectOf } from './routing.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const encoder = new TextEncoder();

/** UTF-8 text, or null when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** JSON-encodes a value; throws the JSON error (cycles, BigInt) to the caller. */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export type DecodeResult =
  | { readonly ok: true; readonly event: RloopEvent }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly issues: readonly Issue[] };

/**
 * Turns a stored message into a validated (upcast) event, or says exactly why it cannot be one:
 * not UTF-8, not JSON, not the contract, or an event that does not belong on this subject.
 */
export function decodeEventMessage(
  subjects: Subjects,
  subject: string,
  data: Uint8Array,
  upcasters: readonly Upcaster[] = UPCASTERS,
): DecodeResult {
  const text = decodeUtf8(data);
  if (text === null) {
    return {
      ok: false,
      code: BUS_ERROR_CODES.notUtf8,
      message: 'payload is not valid UTF-8',
      issues: [{ path: '(root)', message: 'not UTF-8' }],
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      code: BUS_ERROR_CODES.notJson,
      message: `payload is not JSON: ${why}`,
      issues: [{ path: '(root)', message: why }],
    };
  }
  const parsed = parseEvent(raw, upcasters);
  if (!parsed.ok)
    return { ok: false, code: parsed.error.code, message: parsed.error.message, issues: parsed.error.issues };
  const expected = subjectOf(subjects, parsed.event);
  if (expected !== subject) {
    return {
      ok: false,
      code: BUS_ERROR_CODES.subjectMismatch,
      message: `${parsed.event.type} for ${parsed.event.plan} belongs on ${expected}, not ${subject}`,
      issues: [{ path: 'type', message: `subject ${subject} does not match the event (expected ${expected})` }],
    };
  }
  return { ok: true, event: parsed.event };
}

/** The payload as a dead letter keeps it: UTF-8 text when it decodes, base64 otherwise. */
export function payloadForRecord(data: Uint8Array): {
  readonly payload: string;
  readonly payload_encoding: 'utf8' | 'base64';
} {
  const text = decodeUtf8(data);
  return text === null
    ? { payload: Buffer.from(data).toString('base64'), payload_encoding: 'base64' }
    : { payload: text, payload_encoding: 'utf8' };
}

/** Reads a request body as JSON with a size bound; throws ValidationError with a BUS.* code. */
export function decodeJsonBody(data: Uint8Array, maxBytes: number): unknown {
  if (data.byteLength > maxBytes) {
    throw new ValidationError(
      BUS_ERROR_CODES.bodyTooLarge,
      `request body is ${data.byteLength} bytes; the limit is ${maxBytes}`,
      [{ path: '(root)', message: `larger than ${maxBytes} bytes` }],
    );
  }
  const text = decodeUtf8(data);
  if (text === null)
    throw new ValidationError(BUS_ERROR_CODES.notUtf8, 'request body is not valid UTF-8', [
      { path: '(root)', message: 'not UTF-8' },
    ]);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ValidationError(BUS_ERROR_CODES.notJson, `request body is not JSON: ${why}`, [
      { path: '(root)', message: why },
    ]);
  }
}
