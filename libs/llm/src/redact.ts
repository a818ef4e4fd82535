import { REDACTED, maskSecrets } from '@rloop/domain';

/**
 * Secret scrubbing for every error message, log line and tool output this library produces.
 *
 * Two layers: exact values registered at runtime (the configured API key, registered by the
 * client factory) and the secrets detector's rules (@rloop/domain maskSecrets), so a key we were
 * never told about (one the model read from a file, one a test printed) is still masked.
 */

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
  const exact = [...registered, ...extra.filter((s) => s.length >= MIN_SECRET_LENGTH)].sort(
    (a, b) => b.length - a.length,
  );
  for (const secret of exact) {
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.replace(new RegExp(escapeForRegExp(encoded), 'g'), REDACTED);
  }
  return maskSecrets(out);
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
