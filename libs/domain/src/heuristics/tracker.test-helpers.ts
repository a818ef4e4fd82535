// A tracker as the loop memory keeps it, for the heuristics' own specs (pure functions of trackers).
import { DEFAULT_LOOP_CONFIG } from './config.js';
import type { FindingRef, Tracker } from './memory.js';

export const config = DEFAULT_LOOP_CONFIG;

const HEX = '0123456789abcdef';

export function tracker(key: string, overrides: Partial<Tracker> = {}): Tracker {
  const fingerprint = (key.repeat(12) + HEX).slice(0, 12);
  return {
    key: fingerprint,
    fingerprints: [fingerprint],
    critic_id: 'toolchain/compiler-linter',
    file: 'src/a.ts',
    finding_type: 'tsc/TS2322',
    line_range: { start: 10, end: 10 },
    location_hash: null,
    title: `issue ${key}`,
    severity: 'critical',
    category: 'correctness',
    score: 9,
    expected: `fix ${key}`,
    first_round: 1,
    last_seen: 1,
    last_state: 'p',
    segments: [],
    streak: 1,
    streak_start: 1,
    streak_attempts: 0,
    signatures: [],
    reappearances: 0,
    total_reappearances: 0,
    absent_since: null,
    attempts: [],
    ...overrides,
  };
}

export function ref(id: string, overrides: Partial<FindingRef> = {}): FindingRef {
  return {
    id,
    fingerprint: (id.repeat(12) + HEX).slice(0, 12),
    location_hash: null,
    file: 'src/a.ts',
    finding_type: 'tsc/TS2322',
    line_range: { start: 10, end: 12 },
    raised_by: 'toolchain/compiler-linter',
    score: 9,
    severity: 'critical',
    category: 'correctness',
    title: `finding ${id}`,
    expected: `fix ${id}`,
    ...overrides,
  };
}
