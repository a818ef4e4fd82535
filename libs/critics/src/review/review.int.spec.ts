import { describe, expect, it } from '@jest/globals';
import { Letter } from '@rloop/contracts';
import {
  ReviewGitError,
  ReviewTargetNotFoundError,
  builtInCritics,
  parseUnifiedDiff,
  reviewRepository,
  reviewRepositoryWithRuns,
  touchesChange,
} from '../index.js';
import { commitAll, fixtureRepo } from '../__fixtures__/repo.js';

const NOW = new Date('2026-11-30T12:00:00Z');
const critics = () => builtInCritics({ only: ['security/sast-scanner', 'security/secrets-detector'] });

const OLD = `import express from 'express';
const app = express();
app.get('/a', (req, res) => {
  res.redirect(req.query.to as string);
});
`;
const NEW = `${OLD}app.get('/b', (req, res) => {
  res.send('<p>' + req.query.name + '</p>');
});
`;

describe('parseUnifiedDiff', () => {
  it('reads the new-side line ranges of each hunk, skipping deletions', () => {
    const diff = [
      'diff --git a/src/a.ts b/src/a.ts',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -3,0 +4,2 @@',
      '+x',
      '+y',
      '@@ -10 +12 @@',
      '-a',
      '+b',
      '@@ -20,2 +21,0 @@',
      '--- a/gone.ts',
      '+++ /dev/null',
    ].join('\n');
    expect([...parseUnifiedDiff(diff)]).toEqual([
      [
        'src/a.ts',
        [
          [4, 5],
          [12, 12],
        ],
      ],
    ]);
  });

  it('keeps a finding whose lines or related locations touch the change', () => {
    const changed = new Map([['a.ts', [[10, 12] as const]]]);
    expect(touchesChange({ file: 'a.ts', line_range: { start: 12, end: 14 }, related_locations: [] }, changed)).toBe(
      true,
    );
    expect(
      touchesChange(
        {
          file: 'b.ts',
          line_range: { start: 1, end: 1 },
          related_locations: [{ file: 'a.ts', line_range: { start: 11, end: 11 }, note: '' }],
        },
        changed,
      ),
    ).toBe(true);
    expect(touchesChange({ file: 'a.ts', line_range: { start: 1, end: 9 }, related_locations: [] }, changed)).toBe(
      false,
    );
  });
});

describe('reviewRepository', () => {
  it('reviews a plain directory into a valid final-sweep letter, complete for the critics it ran', async () => {
    const repo = fixtureRepo({ 'src/app.ts': NEW });
    try {
      const letter = await reviewRepository({ repoDir: repo.dir, now: NOW, critics: critics() });
      expect(Letter.safeParse(letter).success).toBe(true);
      expect(letter).toMatchObject({ phase: 'final_sweep', k: null, round: 1, created_at: NOW.toISOString() });
      expect(letter.findings.map((f) => f.finding_type).sort()).toEqual(['sast/open-redirect', 'sast/xss']);
      expect(letter.critics.map((c) => c.critic_id)).toEqual(['security/sast-scanner', 'security/secrets-detector']);
      expect(letter).toMatchObject({ complete: true, mode: 'single_pass', suppressed: [] });
      const again = await reviewRepository({ repoDir: repo.dir, now: NOW, critics: critics() });
      expect(again.letter_id).toBe(letter.letter_id);
    } finally {
      repo.remove();
    }
  });

  it('with --base keeps only findings on lines changed since the ref', async () => {
    const repo = fixtureRepo({ 'src/app.ts': OLD }, { git: true });
    try {
      repo.write('src/app.ts', NEW);
      commitAll(repo.dir, 'add /b');
      const letter = await reviewRepository({ repoDir: repo.dir, base: 'HEAD~1', now: NOW, critics: critics() });
      expect(letter.findings.map((f) => [f.finding_type, f.line_range.start])).toEqual([['sast/xss', 7]]);
      expect(letter.commit).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      repo.remove();
    }
  });

  it("applies the repository's .rloop.yaml, .rloopignore and rloop-ignore comments, and lists what it dismissed", async () => {
    const repo = fixtureRepo({
      'src/app.ts': NEW.replace(
        'res.redirect(req.query.to as string);',
        '// rloop-ignore sast/open-redirect -- the router allowlists targets\n  res.redirect(req.query.to as string);',
      ),
      'src/old.ts': NEW,
      'third_party/lib.ts': NEW,
      'gen/out.ts': NEW,
      '.rloop.yaml': 'rules:\n  sast/xss: medium\nexclude: ["third_party/**"]\n',
      '.rloopignore': 'gen/\n',
      'src/note.ts': '// rloop-ignore sast/sql-injection -- nothing here\nexport const x = 1;\n',
    });
    try {
      const letter = await reviewRepository({ repoDir: repo.dir, now: NOW, critics: critics() });
      expect(Letter.safeParse(letter).success).toBe(true);
      expect(letter.findings.map((f) => [f.file, f.finding_type, f.severity])).toEqual([
        ['src/old.ts', 'sast/open-redirect', 'critical'],
        ['src/app.ts', 'sast/xss', 'medium'],
        ['src/old.ts', 'sast/xss', 'medium'],
        ['src/note.ts', 'rloop/suppression-unused', 'low'],
      ]);
      expect(letter.suppressed).toEqual([
        expect.objectContaining({
          file: 'src/app.ts',
          finding_type: 'sast/open-redirect',
          kind: 'inline',
          reason: 'the router allowlists targets',
          source: 'src/app.ts:4',
        }),
      ]);
      expect(letter.repo_config).toEqual({
        config: '.rloop.yaml',
        excluded_files: 2,
        overrides: ['sast/xss → medium (2 findings)'],
        refused: [],
      });
      expect(letter.summary).toMatch(/1 finding dismissed by the repository/);
    } finally {
      repo.remove();
    }
  });

  it("counts a language's toolchain as core where files of its language are under review, and owns its rules for rloop-ignore", async () => {
    const repo = fixtureRepo({
      'src/app.ts': NEW,
      // ShellCheck's SC2164 (cd without a fallback), accepted with a reason; a comment for go vet matches nothing.
      'deploy.sh':
        '#!/bin/sh\n# rloop-ignore shellcheck/SC2164 -- the image always has /srv\ncd /srv\n# rloop-ignore govet/printf -- no Go here\necho deployed\n',
    });
    try {
      const outcome = await reviewRepositoryWithRuns({
        repoDir: repo.dir,
        now: NOW,
        critics: builtInCritics({ only: ['security/sast-scanner', 'toolchain/shell', 'toolchain/go'] }),
      });
      const core = Object.fromEntries(outcome.letter.critics.map((c) => [c.critic_id, c.core]));
      expect(core).toEqual({
        'security/sast-scanner': true,
        'toolchain/shell': true,
        'toolchain/go': false,
        'review/suppressions': false,
      });
      expect(outcome.letter.suppressed?.map((s) => [s.finding_type, s.file, s.line])).toEqual([
        ['shellcheck/SC2164', 'deploy.sh', 3],
      ]);
      expect(
        outcome.letter.findings.filter((f) => f.file === 'deploy.sh').map((f) => [f.finding_type, f.line_range.start]),
      ).toEqual([['rloop/suppression-unused', 4]]);
    } finally {
      repo.remove();
    }
  });

  it('refuses --base outside git and a path that is not a directory', async () => {
    const repo = fixtureRepo({ 'a.ts': 'export {};\n' });
    try {
      await expect(reviewRepository({ repoDir: repo.dir, base: 'main', now: NOW, critics: [] })).rejects.toBeInstanceOf(
        ReviewGitError,
      );
      await expect(reviewRepository({ repoDir: `${repo.dir}/missing`, now: NOW, critics: [] })).rejects.toBeInstanceOf(
        ReviewTargetNotFoundError,
      );
    } finally {
      repo.remove();
    }
  });
});
