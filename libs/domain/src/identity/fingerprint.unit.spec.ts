import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { fingerprintOf, isSameIssue, locationHashOf } from './fingerprint.js';

// How is a fingerprint made, and when are two findings the same issue: this file and fingerprint.ts.

const input = {
  critic_id: 'toolchain/compiler-linter',
  file: 'src/a.ts',
  line_range: { start: 10, end: 12 },
  finding_type: 'tsc/TS2322',
};
const finding = (overrides: Partial<Parameters<typeof isSameIssue>[0]> = {}) => ({
  fingerprint: fingerprintOf(input),
  file: input.file,
  finding_type: input.finding_type,
  line_range: input.line_range,
  raised_by: input.critic_id,
  ...overrides,
});

describe('fingerprintOf', () => {
  it('given a critic, file, line range and finding type, when fingerprinted, then it is the first 12 hex digits of sha256 over the NUL-joined parts', () => {
    const expected = createHash('sha256')
      .update(['toolchain/compiler-linter', 'src/a.ts', '10-12', 'tsc/TS2322'].join('\u0000'))
      .digest('hex')
      .slice(0, 12);
    expect(fingerprintOf(input)).toBe(expected);
    expect(fingerprintOf(input)).toMatch(/^[0-9a-f]{12}$/);
  });

  it('given parts that concatenate to the same text, when fingerprinted, then they differ (the separator keeps them apart)', () => {
    expect(fingerprintOf({ ...input, critic_id: 'a/b', file: 'c' })).not.toBe(
      fingerprintOf({ ...input, critic_id: 'a', file: 'b/c' }),
    );
  });

  it('given the same finding one line lower, when fingerprinted, then the fingerprint changes (identity across rounds is isSameIssue)', () => {
    expect(fingerprintOf({ ...input, line_range: { start: 11, end: 13 } })).not.toBe(fingerprintOf(input));
  });
});

describe('locationHashOf', () => {
  it('given the same flagged lines re-indented, when hashed, then the hash stays; given edited lines, then it changes', () => {
    const hash = locationHashOf('src/a.ts', 'tsc/TS2322', ['const total: number = "0";']);
    expect(locationHashOf('src/a.ts', 'tsc/TS2322', ['    const   total: number = "0";  '])).toBe(hash);
    expect(locationHashOf('src/a.ts', 'tsc/TS2322', ['const total: number = 0;'])).not.toBe(hash);
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('isSameIssue', () => {
  it.each([
    { given: 'the same fingerprint', b: finding(), same: true },
    {
      given: 'the same critic, file and type within 5 lines',
      b: finding({ fingerprint: 'ffffffffffff', line_range: { start: 15, end: 15 } }),
      same: true,
    },
    {
      given: 'the same critic, file and type 6 lines away',
      b: finding({ fingerprint: 'ffffffffffff', line_range: { start: 16, end: 16 } }),
      same: false,
    },
    {
      given: 'another critic on the same line',
      b: finding({ fingerprint: 'ffffffffffff', raised_by: 'security/sast-scanner' }),
      same: false,
    },
    {
      given: 'another finding type',
      b: finding({ fingerprint: 'ffffffffffff', finding_type: 'tsc/TS2345' }),
      same: false,
    },
    {
      given: 'the same snippet hash far away',
      b: finding({ fingerprint: 'ffffffffffff', line_range: { start: 90, end: 90 }, location_hash: 'h1' }),
      a: { location_hash: 'h1' },
      same: true,
    },
  ])('given $given, when compared, then same issue is $same', ({ b, a, same }) => {
    expect(isSameIssue(finding(a), b)).toBe(same);
  });
});
