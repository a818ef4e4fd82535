import type { ExpectedVersion } from './types.js';

/**
 * Whether a stream at `current` (0 = does not exist) satisfies the expected version. Pure: the
 * store calls it while holding the stream's row lock, before it allocates anything.
 */
export function satisfiesExpectedVersion(expected: ExpectedVersion, current: number): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === 0;
    case 'stream_exists':
      return current > 0;
    default:
      return current === expected;
  }
}

export function isExpectedVersion(value: unknown): value is ExpectedVersion {
  if (value === 'any' || value === 'no_stream' || value === 'stream_exists') return true;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
