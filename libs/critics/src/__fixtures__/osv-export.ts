import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeZip } from '@rloop/testing';

// A small OSV export written for the tests (the schema is public: ossf.github.io/osv-schema). The
// ids look like the real databases' but the records are ours; each exercises one rule of the
// evaluation: SEMVER and ECOSYSTEM ranges, introduced/fixed, last_affected, limit, explicit version
// lists, withdrawn records, aliases across databases, malicious packages, four ecosystems.

const npm = (name: string) => ({ ecosystem: 'npm', name });

export const OSV_RECORDS: readonly Record<string, unknown>[] = [
  {
    schema_version: '1.6.0',
    id: 'GHSA-xvch-5gv4-984h',
    modified: '2026-11-20T08:00:00Z',
    published: '2021-03-11T00:00:00Z',
    aliases: ['CVE-2021-44906'],
    summary: 'Prototype Pollution in minimist',
    details: 'A long description the critic does not keep.',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [
      {
        package: npm('minimist'),
        ranges: [
          {
            type: 'SEMVER',
            events: [{ introduced: '0' }, { fixed: '0.2.4' }, { introduced: '1.0.0' }, { fixed: '1.2.6' }],
          },
        ],
        database_specific: { source: 'https://github.com/github/advisory-database' },
      },
    ],
    references: [
      { type: 'WEB', url: 'https://example.org/minimist' },
      { type: 'ADVISORY', url: 'https://github.com/advisories/GHSA-xvch-5gv4-984h' },
    ],
    database_specific: { severity: 'CRITICAL', cwe_ids: ['CWE-1321'], github_reviewed: true },
  },
  {
    id: 'GHSA-lfpd-3333-aaaa',
    modified: '2026-10-01T00:00:00Z',
    summary: 'Regular expression denial of service in left-pad',
    affected: [
      {
        package: npm('left-pad'),
        ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.3.0' }] }],
      },
    ],
    database_specific: { severity: 'HIGH' },
  },
  {
    id: 'GHSA-wdrn-0000-mkdp',
    modified: '2026-11-25T00:00:00Z',
    withdrawn: '2026-11-25T00:00:00Z',
    summary: 'Withdrawn: mkdirp was never affected',
    affected: [
      { package: npm('mkdirp'), ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0' }] }] },
    ],
    database_specific: { severity: 'HIGH' },
  },
  {
    id: 'MAL-2026-1234',
    modified: '2026-09-01T00:00:00Z',
    summary: 'Malicious code in evil-pkg (npm)',
    affected: [{ package: npm('evil-pkg'), versions: ['1.0.0', '1.0.1'] }],
  },
  {
    id: 'GHSA-scop-4444-bbbb',
    modified: '2026-08-01T00:00:00Z',
    summary: 'Path traversal in @acme/static',
    affected: [
      {
        package: npm('@acme/static'),
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.0.0' }, { fixed: '2.4.1' }] }],
      },
    ],
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' }],
  },
  {
    id: 'GHSA-lmit-5555-cccc',
    modified: '2026-08-02T00:00:00Z',
    summary: 'Old branch of qs (limited range)',
    affected: [{ package: npm('qs'), ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { limit: '6.0.0' }] }] }],
    database_specific: { severity: 'LOW' },
  },
  {
    id: 'RUSTSEC-2026-0007',
    modified: '2026-07-01T00:00:00Z',
    aliases: ['CVE-2026-1111', 'GHSA-rust-6666-dddd'],
    summary: 'Use after free in smallvec',
    affected: [
      {
        package: { ecosystem: 'crates.io', name: 'smallvec' },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '1.6.0' }, { fixed: '1.6.1' }] }],
      },
    ],
  },
  {
    id: 'GO-2026-0042',
    modified: '2026-07-02T00:00:00Z',
    aliases: ['CVE-2026-2222'],
    summary: 'HTTP/2 rapid reset in golang.org/x/net',
    affected: [
      {
        package: { ecosystem: 'Go', name: 'golang.org/x/net' },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.17.0' }] }],
      },
    ],
  },
  {
    id: 'PYSEC-2026-0101',
    modified: '2026-07-03T00:00:00Z',
    aliases: ['GHSA-pyth-7777-eeee'],
    summary: 'Open redirect in Flask-Login',
    affected: [
      {
        package: { ecosystem: 'PyPI', name: 'flask-login' },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '0.6.3' }] }],
        versions: ['0.6.0', '0.6.1', '0.6.2'],
      },
    ],
  },
  {
    id: 'GHSA-pyth-7777-eeee',
    modified: '2026-07-04T00:00:00Z',
    aliases: ['CVE-2026-3333'],
    summary: 'Open redirect in Flask-Login',
    affected: [
      {
        package: { ecosystem: 'PyPI', name: 'Flask_Login' },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '0.6.3' }] }],
      },
    ],
    database_specific: { severity: 'MODERATE' },
  },
];

/** An OSV export on disk, as a directory of JSON files (one per record) or as an all.zip. */
export interface OsvExportFixture {
  readonly dir: string;
  readonly zip: string;
  remove(): void;
}

export function writeOsvExport(records: readonly Record<string, unknown>[] = OSV_RECORDS): OsvExportFixture {
  const root = mkdtempSync(join(tmpdir(), 'rloop-osv-'));
  const dir = join(root, 'records');
  mkdirSync(dir, { recursive: true });
  for (const record of records)
    writeFileSync(join(dir, `${String(record['id'])}.json`), `${JSON.stringify(record, null, 2)}\n`);
  const zip = join(root, 'all.zip');
  writeZip(
    zip,
    records.map((record) => ({ name: `${String(record['id'])}.json`, data: JSON.stringify(record) })),
  );
  return { dir, zip, remove: () => rmSync(root, { recursive: true, force: true }) };
}
