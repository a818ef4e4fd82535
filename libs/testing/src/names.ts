import { randomBytes } from 'node:crypto';

/** A namespace no other spec uses, so each spec file gets its own subjects and streams. */
export function uniqueNamespace(prefix = 't'): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}
