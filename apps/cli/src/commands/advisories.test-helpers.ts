import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// One advisory and a repository it affects, for the specs of `rloop advisories` and `rloop review --advisories`.

/** An OSV record (GitHub's shape) for minimist below 0.2.1. */
export const MINIMIST_ADVISORY = {
  id: 'GHSA-vh95-rmgr-6w4m',
  modified: '2026-11-01T00:00:00Z',
  aliases: ['CVE-2020-7598'],
  summary: 'Prototype Pollution in minimist',
  affected: [
    {
      package: { ecosystem: 'npm', name: 'minimist' },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.2.1' }] }],
    },
  ],
  database_specific: { severity: 'MODERATE' },
};

/** Writes a repository at `dir` whose package.json (line 3) and lockfile install minimist 0.0.8. */
export function writeMinimistRepo(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{\n  "dependencies": {\n    "minimist": "0.0.8"\n  }\n}\n');
  const lock = {
    lockfileVersion: 3,
    packages: { '': { dependencies: { minimist: '0.0.8' } }, 'node_modules/minimist': { version: '0.0.8' } },
  };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock));
}
