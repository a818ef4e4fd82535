import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Finding } from '@rloop/contracts';
import {
  RepoConfigError,
  RepoPolicy,
  TRUSTED_REPO_POLICY,
  loadRepoConfig,
  prepareRepoReview,
  reviewRepositoryWithRuns,
  sastScannerCritic,
} from '../index.js';
import { fixtureRepo } from '../__fixtures__/repo.js';
import { lineFinding } from '../__fixtures__/finding.js';

function finding(file: string, line: number, type: string, raisedBy = 'toolchain/compiler-linter'): Finding {
  return lineFinding(file, line, type, { raised_by: raisedBy });
}

const CORE = new Set(['security/sast-scanner', 'quality/duplicate-code-detector']);

describe('the fleet reading a repository configuration at the pinned commit', () => {
  const files = {
    '.rloop.yaml': [
      'critics:',
      '  security/sast-scanner: off',
      '  toolchain/dependency-eol: off',
      'rules:',
      '  eslint/prefer-const: "off"',
      '  eslint/no-var: critical',
      '  "sast/*": low',
      'exclude: ["src/generated/**"]',
      'llm:',
      '  model: claude-opus-5-5',
      '',
    ].join('\n'),
    '.rloopignore': 'vendor/\n',
    'src/a.ts': 'let a = 1; // rloop-ignore eslint/prefer-const -- kept mutable for the plugin API\nvar b = 2;\n',
    'src/generated/x.ts': 'export {};\n',
    'vendor/y.ts': 'export {};\n',
  };
  const round = ['src/a.ts', 'src/generated/x.ts', 'vendor/y.ts'];

  it('by default (raise_only): excludes and inline suppressions apply and are reported; lowering, switching off a core critic and choosing the model are refused', () => {
    const repo = fixtureRepo(files);
    try {
      const review = prepareRepoReview(repo.dir, round, RepoPolicy.parse({}), CORE);
      expect(review.files).toEqual(['src/a.ts']);
      expect([...review.criticsOff]).toEqual([]);
      const applied = review.apply(
        [
          finding('src/a.ts', 1, 'eslint/prefer-const'),
          finding('src/a.ts', 2, 'eslint/no-var'),
          finding('src/a.ts', 2, 'sast/xss', 'security/sast-scanner'),
        ],
        '2026-11-30',
      );
      expect(applied.findings.map((f) => [f.finding_type, f.severity])).toEqual([
        ['eslint/no-var', 'critical'],
        ['sast/xss', 'critical'],
      ]);
      expect(applied.suppressed).toEqual([
        expect.objectContaining({
          finding_type: 'eslint/prefer-const',
          kind: 'inline',
          reason: 'kept mutable for the plugin API',
          source: 'src/a.ts:1',
        }),
      ]);
      expect(applied.repo_config).toEqual({
        config: '.rloop.yaml',
        excluded_files: 2,
        overrides: [],
        refused: [
          '.rloop.yaml critics.security/sast-scanner: off — a core critic always runs',
          ".rloop.yaml critics.toolchain/dependency-eol: off — the operator's policy does not let a repository switch it off",
          ".rloop.yaml llm.model: the fleet's model is the operator's (config/models.yaml roles.critics)",
          // The inline comment came first on line 1, so the `off` rule is refused for the finding it would have dismissed.
          ".rloop.yaml rules.eslint/prefer-const: off — the operator's policy lets a repository only raise severities",
          ".rloop.yaml rules.sast/*: low — the operator's policy lets a repository only raise severities",
        ],
      });
    } finally {
      repo.remove();
    }
  });

  it('an operator who allows more lets the repository switch off a listed critic and lower rules; one who allows nothing ignores the files', () => {
    const repo = fixtureRepo(files);
    try {
      const open = prepareRepoReview(
        repo.dir,
        round,
        RepoPolicy.parse({ severity_overrides: 'any', critics_off: ['toolchain/dependency-eol'] }),
        CORE,
      );
      expect([...open.criticsOff]).toEqual(['toolchain/dependency-eol']);
      const applied = open.apply([finding('src/a.ts', 2, 'sast/xss', 'security/sast-scanner')], '2026-11-30');
      expect(applied.findings.map((f) => f.severity)).toEqual(['low']);
      expect(applied.repo_config?.overrides).toEqual(['sast/* → low (1 finding)']);
      const closed = prepareRepoReview(repo.dir, round, RepoPolicy.parse({ honour_repo_config: false }), CORE);
      expect(closed.files).toEqual(round);
      expect(closed.apply([finding('src/a.ts', 1, 'eslint/prefer-const')], '2026-11-30')).toEqual({
        findings: [finding('src/a.ts', 1, 'eslint/prefer-const')],
        suppressed: [],
        repo_config: undefined,
      });
    } finally {
      repo.remove();
    }
  });

  it('never reads a .rloop.yaml or .rloopignore through a symbolic link out of the checkout, nor measures a file through one', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'rloop-outside-'));
    const repo = fixtureRepo({ 'src/a.ts': 'let a = 1;\n', 'src/b.ts': 'export const b = 2;\n' });
    try {
      // What the links point at would exclude every file (and switch a critic off) if it were read.
      writeFileSync(join(outside, 'config.yaml'), 'exclude: ["**"]\ncritics:\n  toolchain/dependency-eol: off\n');
      writeFileSync(join(outside, 'ignore'), '*\n');
      writeFileSync(join(outside, 'big.ts'), `// ${'x'.repeat(5000)}\n`);
      symlinkSync(join(outside, 'config.yaml'), join(repo.dir, '.rloop.yaml'));
      expect(() => loadRepoConfig(repo.dir)).toThrow(RepoConfigError);
      expect(() => loadRepoConfig(repo.dir)).toThrow(
        /^\.rloop\.yaml: not read: a symbolic link to a file outside the checkout, never read$/,
      );
      const fleet = prepareRepoReview(
        repo.dir,
        ['src/a.ts', 'src/b.ts'],
        RepoPolicy.parse({ critics_off: ['toolchain/dependency-eol'] }),
        CORE,
      );
      expect(fleet.files).toEqual(['src/a.ts', 'src/b.ts']);
      expect([...fleet.criticsOff]).toEqual([]);
      expect(fleet.apply([], '2026-11-30').repo_config?.refused).toEqual([
        expect.stringMatching(/^\.rloop\.yaml: not read: a symbolic link .* — the file was not applied$/),
      ]);
      // `rloop review` stops on it (a usage error there) rather than reviewing with a configuration from elsewhere.
      await expect(
        reviewRepositoryWithRuns({
          repoDir: repo.dir,
          now: new Date('2026-11-30T00:00:00Z'),
          critics: [sastScannerCritic()],
          policy: TRUSTED_REPO_POLICY,
        }),
      ).rejects.toThrow(RepoConfigError);

      rmSync(join(repo.dir, '.rloop.yaml'));
      symlinkSync(join(outside, 'ignore'), join(repo.dir, '.rloopignore'));
      expect(() => loadRepoConfig(repo.dir)).toThrow(/^\.rloopignore: not read: a symbolic link/);
      expect(prepareRepoReview(repo.dir, ['src/a.ts', 'src/b.ts'], RepoPolicy.parse({}), CORE).files).toEqual([
        'src/a.ts',
        'src/b.ts',
      ]);

      // A size bound excludes by the size of what is in the checkout: a link out is not measured (the critics skip it as outside_checkout).
      rmSync(join(repo.dir, '.rloopignore'));
      writeFileSync(join(repo.dir, '.rloop.yaml'), 'max_file_bytes: 1000\n');
      symlinkSync(join(outside, 'big.ts'), join(repo.dir, 'src/big.ts'));
      const sized = prepareRepoReview(repo.dir, ['src/a.ts', 'src/big.ts'], RepoPolicy.parse({}), CORE);
      expect(sized.files).toEqual(['src/a.ts', 'src/big.ts']);
      expect(sized.apply([], '2026-11-30').repo_config?.excluded_files).toBe(0);
    } finally {
      repo.remove();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('applies nothing from an invalid file, and says so', () => {
    const repo = fixtureRepo({ '.rloop.yaml': 'rules:\n  eslint/prefer-const: never\n', 'src/a.ts': 'let a = 1;\n' });
    try {
      const review = prepareRepoReview(repo.dir, ['src/a.ts'], RepoPolicy.parse({}), CORE);
      expect(review.apply([], '2026-11-30').repo_config?.refused).toEqual([
        expect.stringMatching(/^\.rloop\.yaml: rules\.eslint\/prefer-const: .* — the file was not applied$/),
      ]);
    } finally {
      repo.remove();
    }
  });
});
