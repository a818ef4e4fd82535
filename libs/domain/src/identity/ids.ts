import { createHash } from 'node:crypto';

/**
 * An event id derived from what a decision is about (plan, run, step), so two replicas deciding
 * the same step produce the same id and the bus and the journal drop the second.
 */
export function deterministicId(...parts: readonly (string | number)[]): string {
  return `d_${createHash('sha256').update(parts.map(String).join('\u0000')).digest('hex').slice(0, 32)}`;
}
