import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Finding, Letter } from '@rloop/contracts';
import { type FakeGitHub, startFakeGitHub } from '@rloop/testing';
import { finding as sampleFinding, letterOf } from '../format/letters.test-helpers.js';
import { GitHubApiError, GitHubClient } from './client.js';
import { reportOnPullRequest } from './pr-report.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'rloop.js');
const HEAD = 'c0ffee'.padEnd(40, '0');
const PR = 'acme/shop#7';
const TARGET = { owner: 'acme', repo: 'shop', pull: 7 };
// src/app.js: lines 1-12 are in the diff (a new file); lib/util.js: lines 20-24 changed.
const FILES = [
  { filename: 'src/app.js', status: 'added' as const, patch: `@@ -0,0 +1,12 @@\n${'+x\n'.repeat(12)}` },
  {
    filename: 'lib/util.js',
    status: 'modified' as const,
    patch: '@@ -18,3 +20,5 @@ function f() {\n a\n+b\n+c\n d\n e',
  },
  { filename: 'gone.js', status: 'removed' as const, patch: '@@ -1,2 +0,0 @@\n-a\n-b' },
];

function finding(id: string, file: string, start: number, end: number, over: Partial<Finding> = {}): Finding {
  return sampleFinding({
    id: `f_${id}`,
    fingerprint: id.padEnd(12, '0'),
    location_hash: id.padEnd(16, '0'),
    finding_type: 'sast/xss',
    file,
    line_range: { start, end },
    title: `Cross-site scripting ${id} <script>@everyone</script> \u202e\u001b[2J`,
    current_behaviour: 'request input reaches res.send',
    expected_behaviour: 'the input is encoded',
    ...over,
  });
}

function letter(findings: Finding[]): Letter {
  return letterOf(findings, {
    plan: 'shop',
    commit: HEAD,
    suppressed: [
      {
        fingerprint: 'eeeeeeeeeeee',
        finding_type: 'eslint/no-eval',
        raised_by: 'toolchain/compiler-linter',
        severity: 'critical',
        file: 'src/app.js',
        line: 9,
        title: 'eval',
        kind: 'inline',
        reason: 'sandboxed',
        source: 'src/app.js:8',
      },
    ],
  });
}

describe('rloop report-pr against a GitHub that speaks the documented endpoints', () => {
  let github: FakeGitHub;
  const waits: number[] = [];
  const client = (token = 'ghs_test'): GitHubClient =>
    new GitHubClient({
      apiUrl: github.url,
      token,
      userAgent: 'rloop/test',
      wait: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
  const options = { failOn: 'critical' as const, maxComments: 30, version: '0.1.0' };

  beforeEach(async () => {
    waits.length = 0;
    github = await startFakeGitHub({
      token: 'ghs_test',
      pulls: { [PR]: { headSha: HEAD, files: FILES } },
      rateLimitRequests: { 3: 2 },
    });
  });
  afterEach(async () => github.close());

  it('comments on changed lines, lists the rest in one summary, and a second run updates instead of piling up', async () => {
    const first = letter([
      finding('a1', 'src/app.js', 3, 3),
      finding('b2', 'lib/util.js', 21, 22, { severity: 'medium', score: 5 }),
      finding('c3', 'lib/util.js', 40, 40),
    ]);
    expect(await reportOnPullRequest(client(), TARGET, first, options)).toEqual({
      created: 2,
      updated: 0,
      removed: 0,
      summary: 'created',
      outsideDiff: 1,
    });
    // The third request met a secondary rate limit and was retried after its retry-after.
    expect(waits).toEqual([2_000]);
    const comments = github.reviewComments(PR);
    expect(comments.map((c) => [c.path, c.start_line, c.line, c.commit_id])).toEqual([
      ['src/app.js', null, 3, HEAD],
      ['lib/util.js', 21, 22, HEAD],
    ]);
    // Untrusted text shows as written: no HTML, no mention.
    expect(comments[0]?.body).toContain('\\<script\\>&#64;everyone\\</script\\>');
    expect(comments[0]?.body).not.toMatch(/<script>|@everyone/);
    // Nor does it reorder or drive what a reader's terminal or browser shows.
    expect(comments[0]?.body).not.toContain('\u001b');
    expect(comments[0]?.body).not.toContain('\u202e');
    expect(comments[0]?.body).toContain('\\\\u202e\\\\x1b\\[2J');
    const summary = github.issueComments(PR);
    expect(summary).toHaveLength(1);
    expect(summary[0]?.body).toMatch(/rloop review — ❌ 2 findings at critical or above/);
    expect(summary[0]?.body).toMatch(/1 finding not on a changed line[\s\S]*lib\/util\.js:40/);
    expect(summary[0]?.body).toMatch(/1 suppressed finding[\s\S]*src\/app\.js:9.*inline: sandboxed/);

    const again = await reportOnPullRequest(client(), TARGET, first, options);
    expect(again).toEqual({ created: 0, updated: 0, removed: 0, summary: 'unchanged', outsideDiff: 1 });
    expect(github.reviewComments(PR)).toHaveLength(2);
    expect(github.issueComments(PR)).toHaveLength(1);

    // a1 is fixed; b2 moved down a line (deleted and posted again where it is now).
    const third = letter([finding('b2', 'lib/util.js', 22, 23, { severity: 'medium', score: 5 })]);
    expect(await reportOnPullRequest(client(), TARGET, third, options)).toMatchObject({
      created: 1,
      updated: 1,
      removed: 1,
      summary: 'updated',
    });
    const now = github.reviewComments(PR);
    expect(now.map((c) => [c.path, c.line, /Resolved/.test(c.body)])).toEqual([
      ['src/app.js', 3, true],
      ['lib/util.js', 23, false],
    ]);
    expect(github.issueComments(PR)).toHaveLength(1);
    expect(github.issueComments(PR)[0]?.body).toMatch(/🟡 Findings below the failing tier/);
  });

  it('finds its own comments on any page (GitHub pages lists 30 or 100 at a time)', async () => {
    for (let i = 0; i < 130; i += 1)
      github.addReviewComment(PR, {
        body: `human ${i}`,
        path: 'src/app.js',
        line: 1,
        start_line: null,
        side: 'RIGHT',
        commit_id: HEAD,
        user: { login: 'someone' },
      });
    for (let i = 0; i < 120; i += 1) github.addIssueComment(PR, `chat ${i}`, 'someone');
    const l = letter([finding('a1', 'src/app.js', 3, 3)]);
    await reportOnPullRequest(client(), TARGET, l, options);
    await reportOnPullRequest(
      client(),
      TARGET,
      letter([finding('a1', 'src/app.js', 3, 3, { title: 'reworded' })]),
      options,
    );
    expect(github.reviewComments(PR).filter((c) => c.user.login !== 'someone')).toHaveLength(1);
    expect(github.issueComments(PR).filter((c) => c.user.login !== 'someone')).toHaveLength(1);
    expect(
      github.requests.filter((r) => r.path.includes('/comments') && r.path.includes('page=2')).length,
    ).toBeGreaterThan(0);
  });

  it('says clearly when the token is refused or the pull request is not there', async () => {
    const refused = reportOnPullRequest(client('wrong'), TARGET, letter([]), options);
    await expect(refused).rejects.toBeInstanceOf(GitHubApiError);
    await expect(refused).rejects.toThrow(
      /GitHub refused the token for GET \/repos\/acme\/shop\/pulls\/7 \(401: Bad credentials\); check GITHUB_TOKEN/,
    );
    await expect(reportOnPullRequest(client(), { ...TARGET, pull: 8 }, letter([]), options)).rejects.toThrow(
      /GitHub has no GET \/repos\/acme\/shop\/pulls\/8, or the token may not see it \(404\)/,
    );
  });

  /** The binary, run without blocking this process (the fake GitHub answers from it). */
  function rloop(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ status: number; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', env }, (error, _stdout, stderr) => {
        resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr });
      });
    });
  }

  it('runs as `rloop report-pr` in a workflow: repository, pull request and token from the Actions environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rloop-report-pr-'));
    try {
      const letterPath = join(dir, 'rloop.json');
      writeFileSync(letterPath, JSON.stringify(letter([finding('a1', 'src/app.js', 3, 3)])));
      const event = join(dir, 'event.json');
      writeFileSync(event, JSON.stringify({ action: 'synchronize', pull_request: { number: 7 } }));
      const env = {
        PATH: process.env['PATH'] ?? '',
        HOME: dir,
        GITHUB_TOKEN: 'ghs_test',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_EVENT_PATH: event,
        GITHUB_API_URL: github.url,
      };
      const ok = await rloop(['report-pr', letterPath], env);
      expect(ok.stderr).toMatch(
        /report-pr: acme\/shop#7: 1 comment\(s\) posted, 0 updated, 0 replaced; summary created/,
      );
      expect(ok.status).toBe(0);
      const noToken = await rloop(['report-pr', letterPath], { ...env, GITHUB_TOKEN: '' });
      expect(noToken.status).toBe(2);
      expect(noToken.stderr).toMatch(/no GitHub token: set GITHUB_TOKEN/);
      const badToken = await rloop(['report-pr', letterPath], { ...env, GITHUB_TOKEN: 'nope' });
      expect(badToken.status).toBe(1);
      expect(badToken.stderr).toMatch(/401: Bad credentials/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
