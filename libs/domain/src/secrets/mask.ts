import { MAX_SCANNED_LINE, providerSecretSpans, secretSpansOfLine } from './detector.js';

/** What a masked secret reads as. Matches none of the rules, so masking twice changes nothing. */
export const REDACTED = '[REDACTED]';

// Shapes masked only in text we print or journal (never reported as findings): over-masking a log
// line costs nothing, a short test double of a key in a finding would be a false positive.
const EXTRA_SHAPES: readonly RegExp[] = [
  // Anthropic keys (sk-ant-api03-…, sk-ant-admin01-…) and other sk- style keys, however short.
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  // NATS seeds and user JWT creds files carry nkey seeds: S then a role letter, base32.
  /\bS[UOANCX][A-Z2-7]{56}\b/g,
];
/** `Bearer <token>` in a header or an error message. */
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi;
/** `name: value` / `name=value` pairs whose name says it is a secret (values of 4 characters or more). */
const NAMED =
  /((?:x-api-key|api[_-]?key|auth[_-]?token|access[_-]?token|secret(?:[_-]?key)?|password|passwd|client[_-]?secret|private[_-]?key)["']?\s*[:=]\s*["']?)([^\s"',;}{]{4,})/gi;
/** A password in any URL's user info: `scheme://user:password@host`. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^:\s/@'"`]+:)([^@\s/'"`]+)(@)/gi;

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
/** How far after its header a key's body may reach when its end line is missing (a cut diff). */
const PEM_MAX_BODY = 10_000;
/** Base64 runs in a key's body (diff prefixes, quotes and `\n` escapes around them are kept). */
const PEM_BODY_RUN = /[A-Za-z0-9+/=]{4,}/g;

/** Masks the body of every PEM private key, in any layout: a file, a diff, a string literal with `\n`s. */
function maskPemBodies(text: string): string {
  let out = '';
  let from = 0;
  for (const begin of text.matchAll(PEM_BEGIN)) {
    const bodyStart = (begin.index ?? 0) + begin[0].length;
    if (bodyStart < from) continue;
    const window = text.slice(bodyStart, bodyStart + PEM_MAX_BODY);
    const end = PEM_END.exec(window);
    const bodyEnd = bodyStart + (end === null ? window.length : end.index);
    out +=
      text.slice(from, bodyStart) +
      text.slice(bodyStart, bodyEnd).replace(PEM_BODY_RUN, (run) => (run === 'REDACTED' ? run : REDACTED));
    from = bodyEnd;
  }
  return out + text.slice(from);
}

/** Replaces the spans (merged where they overlap) of one line with REDACTED. */
function maskSpans(line: string, spans: readonly { start: number; end: number }[]): string {
  if (spans.length === 0) return line;
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const span of sorted) {
    if (span.end <= at) continue;
    out += line.slice(at, Math.max(at, span.start)) + REDACTED;
    at = span.end;
  }
  return out + line.slice(at);
}

/**
 * `text` with every credential the secrets detector's rules find replaced by `[REDACTED]`, plus a
 * few shapes worth masking in anything printed (short key look-alikes, bearer tokens, named
 * values, passwords in any URL, NATS seeds). Unquoted values count (free text is read like a
 * configuration file), and lines marked as allowed are masked too: nothing secret-looking is
 * printed or journaled. Idempotent.
 *
 * @example maskSecrets("-const key = 'AKIAZ3MSJV4WUMNRXQ7B';") // "-const key = '[REDACTED]';"
 */
export function maskSecrets(text: string): string {
  if (text.length === 0) return text;
  let out = maskPemBodies(text);
  for (const shape of EXTRA_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(BEARER, `$1 ${REDACTED}`);
  out = out.replace(NAMED, (_match, name: string, value: string) =>
    value === REDACTED ? `${name}${value}` : `${name}${REDACTED}`,
  );
  out = out.replace(URL_PASSWORD, (_match, head: string, _password: string, at: string) => `${head}${REDACTED}${at}`);
  return out
    .split('\n')
    .map((line) =>
      maskSpans(line, line.length > MAX_SCANNED_LINE ? providerSecretSpans(line) : secretSpansOfLine(line, false)),
    )
    .join('\n');
}

/**
 * A JSON-like value with maskSecrets applied to every string in it (object keys are kept). Used on
 * an event's data before it is published or journaled.
 */
export function maskSecretsDeep<T>(value: T): T {
  return maskValue(value) as T;
}

function maskValue(value: unknown): unknown {
  if (typeof value === 'string') return maskSecrets(value);
  if (Array.isArray(value)) return value.map(maskValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, maskValue(entry)]));
  }
  return value;
}
