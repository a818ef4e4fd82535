import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  AuditReport,
  auditFindings,
  dependencyAuditCritic,
  dependencyEolCritic,
  findEolDependencies,
  loadEolData,
  minimumMajor,
  runCritic,
} from '../index.js';
import { startFakeNpmRegistry } from '@rloop/testing';
import { fixtureRepo } from '../__fixtures__/repo.js';

const MANIFEST = `{
  "name": "app",
  "version": "1.0.0",
  "dependencies": {
    "mkdirp": "0.5.1"
  }
}
`;
const LOCK = `{
  "name": "app",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": { "name": "app", "version": "1.0.0", "dependencies": { "mkdirp": "0.5.1" } },
    "node_modules/minimist": { "version": "0.0.8" },
    "node_modules/mkdirp": { "version": "0.5.1", "dependencies": { "minimist": "0.0.8" } }
  }
}
`;

describe('toolchain/dependency-audit', () => {
  it('turns a recorded npm audit report into one critical finding per advisory, on the direct dependency', () => {
    const report = AuditReport.parse(
      JSON.parse(readFileSync(new URL('../__fixtures__/npm-audit-report.json', import.meta.url), 'utf8')),
    );
    const drafts = auditFindings(report, MANIFEST, LOCK);
    expect(drafts.map((d) => [d.finding_type, d.file, d.line_range.start, d.severity, d.score])).toEqual([
      ['cve/GHSA-vh95-rmgr-6w4m', 'package.json', 5, 'critical', 8],
      ['cve/GHSA-xvch-5gv4-984h', 'package.json', 5, 'critical', 10],
    ]);
    expect(drafts[0]).toMatchObject({ category: 'security', fixable: true });
    expect(drafts[0]?.current_behaviour).toMatch(/pulled in by mkdirp/);
  });

  it('runs npm audit against the registry and reports what it answers (a local registry speaking the bulk advisory endpoint)', async () => {
    // npm caches advisories by id on this machine (~/.npm/_cacache): an id of this run's own.
    const id = 2_000_000 + Math.floor(Math.random() * 1_000_000);
    const registry = await startFakeNpmRegistry(
      {
        mkdirp: [
          {
            id,
            url: 'https://github.com/advisories/GHSA-vh95-rmgr-6w4m',
            title: 'Prototype Pollution in mkdirp',
            severity: 'high',
            vulnerable_versions: '<0.5.2',
            cwe: ['CWE-1321'],
            cvss: { score: 7.5, vectorString: null },
          },
        ],
      },
      { minimist: ['0.0.8', '0.2.1'], mkdirp: ['0.5.1', '0.5.6'] },
    );
    const repo = fixtureRepo({ 'package.json': MANIFEST, 'package-lock.json': LOCK });
    try {
      const result = await runCritic(dependencyAuditCritic({ registry: registry.url }), {
        repoDir: repo.dir,
        commit: '0'.repeat(40),
        files: ['package.json'],
        phase: 'final_sweep',
      });
      expect(
        result.status === 'reported'
          ? result.findings.map((f) => [f.finding_type, f.file, f.line_range.start])
          : result,
      ).toEqual([['cve/GHSA-vh95-rmgr-6w4m', 'package.json', 5]]);
      expect(registry.queries).toEqual([{ minimist: ['0.0.8'], mkdirp: ['0.5.1'] }]);
    } finally {
      repo.remove();
      await registry.close();
    }
  });

  it('fails as not runnable when the registry does not answer — never "no vulnerabilities"', async () => {
    const repo = fixtureRepo({ 'package.json': MANIFEST, 'package-lock.json': LOCK });
    try {
      const result = await runCritic(dependencyAuditCritic({ registry: 'http://127.0.0.1:9' }), {
        repoDir: repo.dir,
        commit: '0'.repeat(40),
        files: ['package.json'],
        phase: 'final_sweep',
      });
      expect(result).toMatchObject({ status: 'failed', reason: 'not_runnable' });
      // Both ways out are named: an OSV export for offline audits, or a registry that answers.
      expect(result.status === 'failed' && result.message).toMatch(
        /npm audit could not run: .*; to audit offline, set RLOOP_ADVISORIES to an OSV export \(`rloop advisories update` downloads one.*or give npm a registry that answers its bulk advisory endpoint/,
      );
    } finally {
      repo.remove();
    }
  });

  it('fails as not runnable without a lockfile, and has nothing to audit without dependencies', async () => {
    const noLock = fixtureRepo({ 'package.json': MANIFEST });
    const noDeps = fixtureRepo({ 'package.json': '{ "name": "x" }\n' });
    try {
      const context = { commit: '0'.repeat(40), files: [], phase: 'final_sweep' as const };
      expect(await runCritic(dependencyAuditCritic(), { ...context, repoDir: noLock.dir })).toMatchObject({
        status: 'failed',
        reason: 'not_runnable',
      });
      expect(await runCritic(dependencyAuditCritic(), { ...context, repoDir: noDeps.dir })).toMatchObject({
        status: 'reported',
        findings: [],
      });
    } finally {
      noLock.remove();
      noDeps.remove();
    }
  });
});

describe('toolchain/dependency-eol', () => {
  const data = loadEolData();

  it('reads the lowest major a range allows', () => {
    expect(minimumMajor('>=20.19')).toBe(20);
    expect(minimumMajor('^16.2.0 || ^18')).toBe(16);
    expect(minimumMajor('>=18 <22')).toBe(18);
    expect(minimumMajor('*')).toBeNull();
    expect(minimumMajor('github:user/repo')).toBeNull();
  });

  it('flags Node lines and packages past end of life at the given time, and not before', () => {
    const manifest =
      '{\n  "engines": { "node": ">=18" },\n  "dependencies": {\n    "request": "^2.88.0",\n    "uuid": "^3.4.0",\n    "eslint": "^9.0.0"\n  }\n}\n';
    const at = (iso: string) =>
      findEolDependencies({
        manifest,
        versionFiles: [{ file: 'Dockerfile', text: 'FROM node:16-alpine\n' }],
        now: new Date(iso),
        node: data.node,
        packages: data.packages,
      }).map((h) => `${h.name}@${h.file}:${h.line}`);
    expect(at('2026-11-30T00:00:00Z')).toEqual([
      'node-18@package.json:2',
      'request@package.json:4',
      'uuid@package.json:5',
      'node-16@Dockerfile:1',
    ]);
    expect(at('2022-01-01T00:00:00Z')).toEqual(['request@package.json:4', 'uuid@package.json:5']);
  });

  it('reports through the critic with the context time', async () => {
    const repo = fixtureRepo({
      'package.json': '{ "dependencies": { "moment": "^2.29.0", "node-sass": "^9.0.0" } }\n',
      '.nvmrc': 'v20.11.0\n',
    });
    try {
      const result = await runCritic(dependencyEolCritic(), {
        repoDir: repo.dir,
        commit: '0'.repeat(40),
        files: [],
        phase: 'final_sweep',
        now: new Date('2026-11-30T00:00:00Z'),
      });
      const findings = result.status === 'reported' ? result.findings : [];
      expect(findings.map((f) => [f.finding_type, f.severity]).sort()).toEqual([
        ['eol/moment', 'medium'],
        ['eol/node-20', 'critical'],
        ['eol/node-sass', 'critical'],
      ]);
    } finally {
      repo.remove();
    }
  });
});
