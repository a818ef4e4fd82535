import { describe, expect, it } from '@jest/globals';
import { Letter } from '@rloop/contracts';
import { ReviewGitError, ReviewTargetNotFoundError, builtInCritics, parseUnifiedDiff, reviewRepository, touchesChange } from '../index.js';
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
    const diff = ['diff --git a/src/a.ts b/src/a.ts', '--- a/src/a.ts', '+++ b/src/a.ts', '@@ -3,0 +4,2 @@', '+x', '+y', '@@ -10 +12 @@', '-a', '+b', '@@ -20,2 +21,0 @@', '--- a/gone.ts', '+++ /dev/null'].join('\n');
    expect([...parseUnifiedDiff(diff)]).toEqual([['src/a.ts', [[4, 5], [12, 12]]]]);
  });

  it('keeps a finding whose lines or related locations touch the change', () => {
    const changed = new Map([['a.ts', [[10, 12] as const]]]);
    expect(touchesChange({ file: 'a.ts', line_range: { start: 12, end: 14 }, related_locations: [] }, changed)).toBe(true);
    expect(touchesChange({ file: 'b.ts', line_range: { start: 1, end: 1 }, related_locations: [{ file: 'a.ts', line_range: { start: 11, end: 11 }, note: '' }] }, changed)).toBe(true);
    expect(touchesChange({ file: 'a.ts', line_range: { start: 1, end: 9 }, related_locations: [] }, changed)).toBe(false);
  });
});

describe('reviewRepository', () => {
  it('reviews a plain directory into a valid final-sweep letter, saying the LLM critic is not configured', async () => {
    const repo = fixtureRepo({ 'src/app.ts': NEW });
    try {
      const letter = await reviewRepository({ repoDir: repo.dir, now: NOW, critics: critics() });
      expect(Letter.safeParse(letter).success).toBe(true);
      expect(letter).toMatchObject({ phase: 'final_sweep', k: null, round: 1, created_at: NOW.toISOString() });
      expect(letter.findings.map((f) => f.finding_type).sort()).toEqual(['sast/open-redirect', 'sast/xss']);
      expect(letter.critics.find((c) => c.critic_id === 'quality/code-reviewer')).toMatchObject({ outcome: 'failed', message: expect.stringMatching(/^not configured/) });
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

  it('refuses --base outside git and a path that is not a directory', async () => {
    const repo = fixtureRepo({ 'a.ts': 'export {};\n' });
    try {
      await expect(reviewRepository({ repoDir: repo.dir, base: 'main', now: NOW, critics: [] })).rejects.toBeInstanceOf(ReviewGitError);
      await expect(reviewRepository({ repoDir: `${repo.dir}/missing`, now: NOW, critics: [] })).rejects.toBeInstanceOf(ReviewTargetNotFoundError);
    } finally {
      repo.remove();
    }
  });
});
