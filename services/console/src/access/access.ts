import { createHash, timingSafeEqual } from 'node:crypto';

/** How the console decides who may act (resume, stop); everyone may read. */
export interface AccessSettings {
  readonly token: string | null;
  /** Lower-case header name a trusted reverse proxy sets to the signed-in person. */
  readonly trustedHeader: string | null;
}

export type Access =
  | { readonly canAct: true; readonly by: string; readonly via: 'token' | 'proxy' }
  | { readonly canAct: false; readonly reason: string };

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares in constant time (over digests, so lengths do not leak either). */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function single(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  return value.length === 1 ? value[0] : undefined;
}

/** A person's name as recorded in the journal: printable, trimmed, at most 100 characters. */
export function cleanName(name: string): string {
  return name
    .replace(/[^\p{L}\p{N}@._+ -]/gu, '')
    .trim()
    .slice(0, 100);
}

/**
 * Who a request may act as. The trusted proxy's header names the person; otherwise the ops token
 * (`Authorization: Bearer …`) lets anyone holding it act, recorded under the name they give (or
 * "ops token"). Without either the console is read-only.
 */
export function accessOf(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  settings: AccessSettings,
  givenName?: string,
): Access {
  if (settings.trustedHeader !== null) {
    const person = single(headers[settings.trustedHeader]);
    if (person !== undefined && cleanName(person) !== '')
      return { canAct: true, by: `${cleanName(person)} (console)`, via: 'proxy' };
  }
  const authorization = single(headers['authorization']);
  if (settings.token !== null && authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match?.[1] !== undefined && sameSecret(match[1], settings.token)) {
      const name = givenName === undefined ? '' : cleanName(givenName);
      return { canAct: true, by: `${name === '' ? 'ops token' : name} (console)`, via: 'token' };
    }
    return { canAct: false, reason: 'the ops token is wrong' };
  }
  if (settings.token === null && settings.trustedHeader === null)
    return { canAct: false, reason: 'this console is read-only: no ops token or trusted proxy header is configured' };
  return { canAct: false, reason: 'read-only: sign in with the ops token to resume or stop loops' };
}
