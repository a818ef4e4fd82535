import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { type CriticRunResult, dependencyAuditCritic, runCritic } from '../index.js';
import { type FixtureRepo, fixtureRepo, lineOf } from '../__fixtures__/repo.js';
import { OSV_RECORDS, type OsvExportFixture, writeOsvExport } from '../__fixtures__/osv-export.js';

const MANIFEST = `${JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { minimist: '^1.2.0', 'left-pad': '1.3.0', mkdirp: '0.5.1', 'evil-pkg': '1.0.0', '@acme/static': '2.4.1', qs: '5.2.0' } }, null, 2)}\n`;
const LOCK = `${JSON.stringify(
  {
    name: 'app',
    lockfileVersion: 3,
    packages: {
      '': {
        name: 'app',
        dependencies: {
          minimist: '^1.2.0',
          'left-pad': '1.3.0',
          mkdirp: '0.5.1',
          'evil-pkg': '1.0.0',
          '@acme/static': '2.4.1',
          qs: '5.2.0',
        },
      },
      'node_modules/minimist': { version: '1.2.5' },
      'node_modules/left-pad': { version: '1.3.0' },
      'node_modules/mkdirp': { version: '0.5.1', dependencies: { minimist: '0.0.8' } },
      'node_modules/mkdirp/node_modules/minimist': { version: '0.0.8' },
      'node_modules/evil-pkg': { version: '1.0.0' },
      'node_modules/@acme/static': { version: '2.4.1' },
      'node_modules/qs': { version: '5.2.0' },
    },
  },
  null,
  2,
)}\n`;
const CARGO_TOML = '[package]\nname = "tool"\nversion = "0.1.0"\n\n[dependencies]\nsmallvec = "1.6"\n';
const CARGO_LOCK =
  'version = 3\n\n[[package]]\nname = "smallvec"\nversion = "1.6.0"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n\n[[package]]\nname = "tool"\nversion = "0.1.0"\n';
const GO_MOD = 'module example.org/svc\n\ngo 1.21\n\nrequire golang.org/x/net v0.10.0\n';
const REQUIREMENTS = 'Flask-Login==0.6.2\nflask==3.0.0\n';

const NOW = new Date('2026-11-30T00:00:00Z');
const FILES = ['package-lock.json', 'rust/Cargo.lock', 'src/app.ts'];

let repo: FixtureRepo;
let osv: OsvExportFixture;

beforeAll(() => {
  repo = fixtureRepo({
    'package.json': MANIFEST,
    'package-lock.json': LOCK,
    'rust/Cargo.toml': CARGO_TOML,
    'rust/Cargo.lock': CARGO_LOCK,
    'go.mod': GO_MOD,
    'py/requirements.txt': REQUIREMENTS,
    'src/app.ts': 'export const x = 1;\n',
  });
  osv = writeOsvExport();
});

afterAll(() => {
  repo.remove();
  osv.remove();
});

async function audit(
  advisories: string,
  files: readonly string[] = FILES,
  dir: string = repo.dir,
): Promise<CriticRunResult> {
  return runCritic(
    dependencyAuditCritic({ advisories }),
    { repoDir: dir, commit: '0'.repeat(40), files, phase: 'final_sweep', now: NOW },
    { core: true },
  );
}

const summary = (result: CriticRunResult) =>
  result.status === 'reported'
    ? result.findings.map((f) => [f.finding_type, f.file, f.line_range.start, f.severity, f.score])
    : result;

describe('toolchain/dependency-audit with an OSV export (RLOOP_ADVISORIES)', () => {
  it('matches every lockfile of the repository offline: ranges, last_affected, limits, version lists, four ecosystems; withdrawn records ignored', async () => {
    const result = await audit(osv.dir);
    expect(summary(result)).toEqual([
      ['malicious-package/MAL-2026-1234', 'package.json', lineOf(MANIFEST, '"evil-pkg"'), 'critical', 10],
      ['cve/GHSA-pyth-7777-eeee', 'py/requirements.txt', 1, 'critical', 8],
      ['cve/GO-2026-0042', 'go.mod', 5, 'critical', 8],
      ['cve/GHSA-lfpd-3333-aaaa', 'package.json', lineOf(MANIFEST, '"left-pad"'), 'critical', 9],
      ['cve/GHSA-xvch-5gv4-984h', 'package.json', lineOf(MANIFEST, '"minimist"'), 'critical', 10],
      ['cve/GHSA-lmit-5555-cccc', 'package.json', lineOf(MANIFEST, '"qs"'), 'critical', 7],
      ['cve/RUSTSEC-2026-0007', 'rust/Cargo.toml', lineOf(CARGO_TOML, 'smallvec'), 'critical', 8],
    ]);
    const findings = result.status === 'reported' ? result.findings : [];
    const minimist = findings.find((f) => f.finding_type === 'cve/GHSA-xvch-5gv4-984h');
    // Both installed copies, the alias, the computed CVSS score and each copy's first fixed version.
    expect(minimist?.title).toBe(
      'minimist 0.0.8, 1.2.5: Prototype Pollution in minimist (GHSA-xvch-5gv4-984h, CVE-2021-44906, critical)',
    );
    expect(minimist?.current_behaviour).toMatch(
      /0\.0\.8, 1\.2\.5 \(a direct dependency, and pulled in by mkdirp\).*\(critical, CVSS 9\.8; CVE-2021-44906\)/,
    );
    expect(minimist?.expected_behaviour).toMatch(/Upgrade minimist to 0\.2\.4 or 1\.2\.6 or later/);
    expect(minimist?.fixable).toBe(true);
    // last_affected without a fix: no fixed version to name.
    expect(findings.find((f) => f.finding_type === 'cve/GHSA-lfpd-3333-aaaa')?.expected_behaviour).toMatch(
      /No fixed version is published \(last affected: 1\.3\.0\)/,
    );
    // The PyPI advisory and its PYSEC twin are one finding.
    expect(findings.find((f) => f.finding_type === 'cve/GHSA-pyth-7777-eeee')?.current_behaviour).toMatch(
      /CVE-2026-3333, PYSEC-2026-0101/,
    );
    expect(findings.some((f) => f.finding_type === 'cve/PYSEC-2026-0101')).toBe(false);
    // The export's age and the withdrawn match are in the notes; the plan's lockfiles were analysed.
    expect(result.notes.join('\n')).toMatch(/newest record modified 2026-11-25, 5 day\(s\) before this review/);
    expect(result.notes.join('\n')).toMatch(/1 withdrawn\).*\n(.*\n)*1 match with withdrawn advisories ignored/);
    expect(result.coverage).toMatchObject({ considered: 3, analysed: 2, unsupported: 1, skipped_total: 0 });
  });

  it('reads the all.zip osv.dev publishes, alone or in the directory `rloop advisories update` fills, with the same findings', async () => {
    const fromDir = summary(await audit(osv.dir));
    expect(summary(await audit(osv.zip))).toEqual(fromDir);
    const home = join(osv.dir, '..', 'home');
    mkdirSync(join(home, 'npm'), { recursive: true });
    renameSync(osv.zip, join(home, 'npm', 'all.zip'));
    try {
      expect(summary(await audit(home))).toEqual(fromDir);
    } finally {
      renameSync(join(home, 'npm', 'all.zip'), osv.zip);
    }
  });

  it("says which lockfile it could not audit: an ecosystem the export does not hold is a gap of the plan's lockfile", async () => {
    const npmOnly = writeOsvExport(OSV_RECORDS.filter((r) => String(r['id']).startsWith('GHSA-x')));
    try {
      const result = await audit(npmOnly.dir);
      expect(summary(result)).toEqual([
        ['cve/GHSA-xvch-5gv4-984h', 'package.json', lineOf(MANIFEST, '"minimist"'), 'critical', 10],
      ]);
      expect(result.notes.join('\n')).toMatch(
        /rust\/Cargo\.lock not audited: the OSV export holds no crates\.io records \(`rloop advisories update --ecosystem crates\.io`\)/,
      );
      expect(result.coverage?.skipped).toEqual([
        { file: 'rust/Cargo.lock', reason: 'not_read', detail: 'the OSV export holds no crates.io records' },
      ]);
    } finally {
      npmOnly.remove();
    }
  });

  it('fails, naming both ways to fix it, when the export is missing or damaged — never "no vulnerabilities"', async () => {
    const missing = await audit(join(osv.dir, 'no-such-export'));
    expect(missing).toMatchObject({ status: 'failed', reason: 'not_runnable' });
    expect(missing.status === 'failed' && missing.message).toMatch(
      /does not exist.*rloop advisories update.*unset RLOOP_ADVISORIES to ask the npm registry/,
    );
    const broken = fixtureRepo({ 'all.zip': 'PK\u0003\u0004 truncated download' });
    try {
      const damaged = await audit(join(broken.dir, 'all.zip'));
      expect(damaged.status === 'failed' && damaged.message).toMatch(
        /cannot be read: .*not a zip file.*download it again/,
      );
    } finally {
      broken.remove();
    }
  });

  it('without a lockfile for the root package.json it cannot know what is installed: not runnable', async () => {
    const noLock = fixtureRepo({ 'package.json': MANIFEST });
    try {
      const result = await audit(osv.dir, ['package.json'], noLock.dir);
      expect(result.status === 'failed' && result.message).toMatch(
        /no lockfile \(package-lock\.json, npm-shrinkwrap\.json, yarn\.lock, pnpm-lock\.yaml\)/,
      );
    } finally {
      noLock.remove();
    }
  });
});
