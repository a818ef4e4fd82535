import { describe, expect, it } from '@jest/globals';
import { cvssV3BaseScore } from './cvss.js';
import {
  type OsvAffected,
  type OsvRange,
  affectedEntryMatches,
  firstFixedVersion,
  isWithdrawn,
  rangeAffects,
  severityOf,
} from './osv.js';
import { comparePep440, compareSemVer } from './versions.js';

const semver = (...events: OsvRange['events']): OsvRange => ({ type: 'SEMVER', events });
const affects = (range: OsvRange, version: string): boolean => rangeAffects(range, 'npm', version).affected;

describe('version orders', () => {
  it('orders SemVer by precedence: pre-releases before their release, build metadata ignored', () => {
    const sorted = [
      '1.0.0',
      '1.0.0-rc.1',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '0.9.9',
      '1.0.1+build.5',
    ].sort((a, b) => compareSemVer(a, b) ?? 0);
    expect(sorted).toEqual([
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1+build.5',
    ]);
    expect(compareSemVer('v1.2.3', '1.2.3')).toBe(0);
    expect(compareSemVer('not-a-version', '1.0.0')).toBeNull();
  });

  it('orders PEP 440 versions: dev < pre < final < post, trailing zeros and case ignored', () => {
    const sorted = [
      '1.0.post1',
      '1.0',
      '1.0rc1',
      '1.0a1',
      '1.0.dev3',
      '1.0b2',
      '0.9',
      '1.0a1.dev1',
      '1.0.1',
      '1!0.1',
    ].sort((a, b) => comparePep440(a, b) ?? 0);
    expect(sorted).toEqual([
      '0.9',
      '1.0.dev3',
      '1.0a1.dev1',
      '1.0a1',
      '1.0b2',
      '1.0rc1',
      '1.0',
      '1.0.post1',
      '1.0.1',
      '1!0.1',
    ]);
    expect(comparePep440('1.0.0', '1.0')).toBe(0);
    expect(comparePep440('2.0RC1', '2.0rc1')).toBe(0);
  });
});

describe("OSV range evaluation (the schema's IsVulnerable)", () => {
  it('introduced/fixed: affected from introduced up to, not including, fixed; several intervals in one range', () => {
    const range = semver({ introduced: '0' }, { fixed: '0.2.4' }, { introduced: '1.0.0' }, { fixed: '1.2.6' });
    expect(
      ['0.0.1', '0.2.3', '0.2.4', '0.9.0', '1.0.0', '1.2.5', '1.2.6', '2.0.0'].filter((v) => affects(range, v)),
    ).toEqual(['0.0.1', '0.2.3', '1.0.0', '1.2.5']);
  });

  it('last_affected: the last affected version is included, the next one is not', () => {
    const range = semver({ introduced: '1.0.0' }, { last_affected: '1.3.0' });
    expect(['0.9.0', '1.0.0', '1.3.0', '1.3.1'].filter((v) => affects(range, v))).toEqual(['1.0.0', '1.3.0']);
  });

  it('limit: versions at or above every limit are out of the range; a "*" limit is infinity', () => {
    expect(
      ['5.9.9', '6.0.0', '7.0.0'].filter((v) => affects(semver({ introduced: '0' }, { limit: '6.0.0' }), v)),
    ).toEqual(['5.9.9']);
    expect(affects(semver({ introduced: '0' }, { limit: '*' }), '99.0.0')).toBe(true);
  });

  it('events out of order are sorted before the walk; an unfixed range affects everything after introduced', () => {
    expect(affects(semver({ fixed: '2.0.0' }, { introduced: '1.0.0' }), '1.5.0')).toBe(true);
    expect(affects(semver({ fixed: '2.0.0' }, { introduced: '1.0.0' }), '2.0.0')).toBe(false);
    expect(affects(semver({ introduced: '3.0.0' }), '3.0.0-rc.1')).toBe(false);
    expect(affects(semver({ introduced: '3.0.0' }), '3.1.0')).toBe(true);
  });

  it("ECOSYSTEM ranges use the ecosystem's order (PEP 440 for PyPI); GIT ranges are not evaluated by version", () => {
    const pypi: OsvRange = { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0rc1' }] };
    expect(rangeAffects(pypi, 'PyPI', '2.0b3').affected).toBe(true);
    expect(rangeAffects(pypi, 'PyPI', '2.0').affected).toBe(false);
    expect(rangeAffects({ type: 'GIT', events: [{ introduced: '0' }] }, 'npm', '1.0.0').affected).toBe(false);
  });

  it('an explicit versions list matches exactly, whatever the ranges say; unreadable versions are undecidable, not affected', () => {
    const entry: OsvAffected = { versions: ['1.0.0', '1.0.1'], ranges: [], severity: [] };
    expect(affectedEntryMatches(entry, 'npm', '1.0.1').affected).toBe(true);
    expect(affectedEntryMatches(entry, 'npm', '1.0.2').affected).toBe(false);
    const odd = affectedEntryMatches(
      { versions: [], severity: [], ranges: [semver({ introduced: '0' }, { fixed: '1.0.0' })] },
      'npm',
      'latest',
    );
    expect(odd).toEqual({ affected: false, undecidable: true });
  });

  it('names the first fixed version above the installed one', () => {
    const entry: OsvAffected = {
      versions: [],
      severity: [],
      ranges: [semver({ introduced: '0' }, { fixed: '0.2.4' }, { introduced: '1.0.0' }, { fixed: '1.2.6' })],
    };
    expect(firstFixedVersion(entry, 'npm', '0.1.0')).toBe('0.2.4');
    expect(firstFixedVersion(entry, 'npm', '1.2.0')).toBe('1.2.6');
    expect(
      firstFixedVersion(
        { ...entry, ranges: [semver({ introduced: '0' }, { last_affected: '1.0.0' })] },
        'npm',
        '0.5.0',
      ),
    ).toBeNull();
  });

  it('a record is withdrawn once its withdrawal time has passed', () => {
    expect(isWithdrawn({ withdrawn: '2026-01-01T00:00:00Z' }, new Date('2026-06-01T00:00:00Z'))).toBe(true);
    expect(isWithdrawn({ withdrawn: '2027-01-01T00:00:00Z' }, new Date('2026-06-01T00:00:00Z'))).toBe(false);
    expect(isWithdrawn({}, new Date())).toBe(false);
  });
});

describe('severity', () => {
  it("computes CVSS v3.1 base scores as FIRST's calculator does", () => {
    expect(cvssV3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toBe(9.8);
    expect(cvssV3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N')).toBe(6.1);
    expect(cvssV3BaseScore('CVSS:3.0/AV:L/AC:H/PR:H/UI:R/S:U/C:N/I:N/A:N')).toBe(0);
    expect(cvssV3BaseScore('CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H')).toBe(9.9);
    expect(cvssV3BaseScore('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')).toBeNull();
  });

  it("takes the database's label first, the CVSS score next; malicious packages are the worst", () => {
    const base = { severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' }] };
    expect(severityOf({ id: 'GHSA-x', ...base, database_specific: { severity: 'HIGH' } }, null)).toMatchObject({
      label: 'high',
      cvss: 5.3,
    });
    expect(severityOf({ id: 'GHSA-x', ...base }, null)).toMatchObject({ label: 'moderate', cvss: 5.3 });
    expect(severityOf({ id: 'MAL-2026-1', severity: [] }, null).label).toBe('malicious');
    expect(severityOf({ id: 'GO-1', severity: [] }, null).label).toBe('unknown');
  });
});
