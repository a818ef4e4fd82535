/**
 * Secret scrubbing for every error message, log line and tool output this library produces.
 *
 * Two layers: exact values registered at runtime (the configured API key, registered by the
 * client factory) and patterns for well-known secret shapes, so a key we were never told about
 * (one the model read from a file, one a test printed) is still masked.
 */

const REDACTED = '[REDACTED]';

/** Values shorter than this are not registered: masking "abc" everywhere would garble text. */
const MIN_SECRET_LENGTH = 8;

// A process-wide set is deliberate: an error can be built far from the client that knows the key
// (a tool result, a git failure), and it must still never carry the key.
const registered = new Set<string>();

/** Remembers a secret so every later `redactSecrets` call masks it. */
export function registerSecret(secret: string | null | undefined): void {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) return;
  registered.add(secret);
}

const PATTERNS: readonly RegExp[] = [
  // Anthropic keys (sk-ant-api03-…, sk-ant-admin01-…) and other sk- style keys.
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g,
  // GitHub, Slack, AWS access key ids, Google API keys.
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  // JSON web tokens.
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  // PEM private keys.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

// `Bearer <token>` and `name: value` / `name=value` pairs whose name says it is a secret.
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi;
const NAMED =
  /((?:x-api-key|api[_-]?key|auth[_-]?token|access[_-]?token|secret(?:[_-]?key)?|password|passwd|client[_-]?secret|private[_-]?key)["']?\s*[:=]\s*["']?)([^\s"',;}{]{4,})/gi;

function escapeForRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Returns `text` with every registered secret, every `extra` secret and every value that looks
 * like a credential replaced by `[REDACTED]`. Safe to call on any string, any number of times.
 *
 * @example redactSecrets('401: bad key sk-ant-api03-abcdefghijklmnopqrstu') // '401: bad key [REDACTED]'
 */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  let out = text;
  const exact = [...registered, ...extra.filter((s) => s.length >= MIN_SECRET_LENGTH)].sort((a, b) => b.length - a.length);
  for (const secret of exact) {
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.replace(new RegExp(escapeForRegExp(encoded), 'g'), REDACTED);
  }
  for (const pattern of PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(BEARER, `$1 ${REDACTED}`);
  out = out.replace(NAMED, (_match, name: string, value: string) => (value === REDACTED ? `${name}${value}` : `${name}${REDACTED}`));
  return out;
}

/** True when `text` still contains a registered secret (a last check before anything leaves). */
export function containsRegisteredSecret(text: string): boolean {
  for (const secret of registered) if (text.includes(secret)) return true;
  return false;
}

/**
 * Environment variable names that must never reach a command the model can influence (the test
 * command runs code the model wrote).
 */
export function isSecretEnvName(name: string): boolean {
  return /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|SESSION|COOKIE)/i.test(name);
}
