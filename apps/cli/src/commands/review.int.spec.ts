import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Letter } from '@rloop/contracts';
import { defineCritic, draftFinding } from '@rloop/critics';
import { type FakeAnthropic, type FakeMessagesRequest, fakeTurn, startFakeAnthropic } from '@rloop/testing';
import { MINIMIST_ADVISORY, writeMinimistRepo } from './advisories.test-helpers.js';
import { REPO_ROOT, runReviewCli } from './review.test-helpers.js';

const BIN = join(REPO_ROOT, 'apps', 'cli', 'bin', 'rloop.js');
const run = runReviewCli;

/** A source file with one critical finding (request input reaches eval). */
const EVAL_SOURCE = 'export function run(req: { query: { code: string } }) {\n  return eval(req.query.code);\n}\n';

/** Runs `body` in a fresh temporary directory, removed afterwards whatever happens. */
async function inTempDir(prefix: string, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A critic that always crashes: the review cannot be complete. */
const brokenCritic = defineCritic({
  id: 'test/broken',
  evidence: 'pattern',
  description: 'always fails',
  triggers: [],
  timeoutMs: 5_000,
  run: () => Promise.reject(new Error('boom')),
});

/** A critic that reports a low finding on every file (for --fail-on and --max-findings). */
const noteCritic = defineCritic({
  id: 'test/notes',
  evidence: 'pattern',
  description: 'a low note per file',
  triggers: [],
  timeoutMs: 5_000,
  run: (context) =>
    Promise.resolve(
      context.files.map((file) =>
        draftFinding({
          severity: 'low',
          category: 'readability',
          finding_type: 'notes/todo',
          file,
          line_range: { start: 1, end: 1 },
          title: 'A note',
          current_behaviour: 'x',
          expected_behaviour: 'y',
          observable_test_conditions: [],
          forbidden_in_test: [],
        }),
      ),
    ),
});

describe('rloop review', () => {
  let dir: string;
  const fast = ['--critics', 'security/sast-scanner', 'security/secrets-detector'];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rloop-cli-review-'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/clean.ts'), 'export const add = (a: number, b: number): number => a + b;\n');
    writeFileSync(join(dir, 'src/bad.ts'), EVAL_SOURCE);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exit 1: prints the findings grouped by file with a summary, and says in one line that the LLM review is off', async () => {
    const result = await run([dir, '--skip', 'toolchain/dependency-audit']);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(
      /^src\/bad\.ts\n {2}2:\d+ {2}critical .*Code injection: request input reaches eval {2}sast\/code-injection\n/,
    );
    expect(result.out).toMatch(/✖ 1 finding \(1 critical, 0 medium, 0 low\) in 1 file · 2 files reviewed · 12 checks/);
    expect(result.out.split('\n').filter((l) => l.includes('LLM review is off'))).toEqual([
      '  LLM review is off: ANTHROPIC_API_KEY is not set (set it to add a model’s review of intent and correctness).',
    ]);
    // A check that needs what the review was not given is left out in one line, not failed.
    expect(result.out).toContain('  Test coverage is off: --coverage was not given');
    expect(result.out).not.toMatch(/Letter d_|K = ∞|Decision 8|core critic|incomplete/);
  }, 120_000);

  it('exit 0: clean selection; the summary goes to stderr when stdout is JSON', async () => {
    const result = await run([dir, '--files', 'src/clean.ts', '--format', 'json', ...fast]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ findings: [], phase: 'final_sweep', complete: true });
    expect(result.err).toMatch(/✔ no findings/);
  }, 120_000);

  it('--fail-on and --max-findings decide exit 1', async () => {
    const notes = { extraCritics: [noteCritic] };
    expect((await run([dir, '--files', 'src/clean.ts', '--critics', 'test/notes'], notes)).code).toBe(0);
    expect(
      (await run([dir, '--files', 'src/clean.ts', '--critics', 'test/notes', '--fail-on', 'low'], notes)).code,
    ).toBe(1);
    expect((await run([dir, '--critics', 'test/notes', '--max-findings', '1'], notes)).code).toBe(1);
    expect((await run([dir, '--critics', 'test/notes', '--max-findings', '2'], notes)).code).toBe(0);
    expect((await run([dir, ...fast, '--fail-on', 'none'])).code).toBe(0);
  }, 120_000);

  it('exit 2: usage errors — an unknown option, a bad --fail-on, a missing path, two formats, an unknown check, a bad config', async () => {
    expect((await run([dir, '--bogus'])).code).toBe(2);
    expect((await run([dir, '--fail-on', 'loud'])).code).toBe(2);
    expect((await run([join(dir, 'nope'), ...fast])).code).toBe(2);
    const two = await run([dir, '--json', '--md', ...fast]);
    expect(two).toMatchObject({ code: 2, err: expect.stringMatching(/choose one output format/) });
    expect((await run([dir, '--format', 'md', '--json', ...fast])).code).toBe(2);
    expect((await run([dir, '--critics', 'no/such-critic'])).code).toBe(2);
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, 'rules:\n  eslint/prefer-const: loud\n');
    expect(await run([dir, '--config', config, ...fast])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/bad\.yaml: rules\.eslint\/prefer-const: /),
    });
    expect((await run([dir, '--baseline', join(dir, 'missing.json'), ...fast])).code).toBe(2);
  }, 120_000);

  it('exit 3: a check that ran failed — the rest is still reported, and SARIF says the execution was not successful', async () => {
    const result = await run([dir, '--critics', 'security/sast-scanner', 'test/broken', '--format', 'sarif'], {
      extraCritics: [brokenCritic],
    });
    expect(result.code).toBe(3);
    expect(result.err).toMatch(/review incomplete: test\/broken \(crashed\) did not finish/);
    const sarif = JSON.parse(result.out) as {
      runs: { results: unknown[]; invocations: { executionSuccessful: boolean }[] }[];
    };
    expect(sarif.runs[0]?.results).toHaveLength(1);
    expect(sarif.runs[0]?.invocations[0]?.executionSuccessful).toBe(false);
  }, 120_000);

  it('keeps the old --json/--sarif/--md flags, writes --output, and --format md has a glossary line', async () => {
    const out = join(dir, 'out', 'report.sarif');
    const sarif = await run([dir, '--sarif', '--output', out, ...fast]);
    expect(sarif).toMatchObject({ code: 1, out: '' });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      version: '2.1.0',
      runs: [{ tool: { driver: { name: 'rloop' } } }],
    });
    expect(sarif.err).toMatch(/✖ 1 finding/);
    const md = await run([dir, '--md', ...fast]);
    expect(md.out).toMatch(/^# Letter d_[\s\S]*\n_How to read this: a \*letter\* is one review’s report[^\n]*_\n$/);
    expect((await run([dir, '--format', 'github', ...fast])).out).toMatch(/^::error file=src\/bad\.ts,line=2,/);
  }, 120_000);

  it('reads .rloop.yaml, .rloopignore, --exclude and !glob, and reports an rloop-ignore comment that matches nothing', async () => {
    await inTempDir('rloop-cli-config-', async (repo) => {
      mkdirSync(join(repo, 'src'));
      for (const name of ['a', 'b', 'c', 'd']) writeFileSync(join(repo, `src/${name}.ts`), EVAL_SOURCE);
      writeFileSync(
        join(repo, 'src/e.ts'),
        EVAL_SOURCE.replace(
          '  return eval',
          '  // rloop-ignore sast/code-injection -- reviewed by hand\n  return eval',
        ),
      );
      writeFileSync(join(repo, 'src/f.ts'), '// rloop-ignore sast/sql-injection -- stale\nexport const f = 1;\n');
      writeFileSync(join(repo, '.rloop.yaml'), 'critics:\n  security/secrets-detector: off\nexclude: ["src/a.ts"]\n');
      writeFileSync(join(repo, '.rloopignore'), 'src/b.ts\n');
      const result = await run([
        repo,
        '--exclude',
        'src/c.ts',
        '--files',
        'src/**',
        '!src/f.ts',
        '--format',
        'json',
        ...fast,
      ]);
      const letter = JSON.parse(result.out) as Letter;
      expect(letter.findings.map((f) => f.file)).toEqual(['src/d.ts']);
      expect(letter.critics.map((c) => c.critic_id)).toEqual(['security/sast-scanner']);
      expect((letter.suppressed ?? []).map((s) => [s.file, s.reason])).toEqual([['src/e.ts', 'reviewed by hand']]);
      expect(result.err).toMatch(/1 suppressed · 2 files reviewed · 3 excluded/);
      const withF = JSON.parse((await run([repo, '--format', 'json', ...fast])).out) as Letter;
      expect(withF.findings.map((f) => [f.file, f.finding_type])).toContainEqual([
        'src/f.ts',
        'rloop/suppression-unused',
      ]);
    });
  }, 120_000);

  it('--write-baseline records the findings; --baseline then reports only new ones', async () => {
    await inTempDir('rloop-cli-baseline-', async (repo) => {
      writeFileSync(join(repo, 'old.ts'), EVAL_SOURCE);
      const baseline = join(repo, 'rloop-baseline.json');
      const written = await run([repo, '--write-baseline', baseline, ...fast]);
      expect(written.code).toBe(0);
      expect(written.err).toMatch(/wrote 1 finding to .*rloop-baseline\.json/);
      // The accepted finding moves down two lines; a new one appears.
      writeFileSync(join(repo, 'old.ts'), `// moved\n// down\n${EVAL_SOURCE}`);
      writeFileSync(join(repo, 'new.ts'), EVAL_SOURCE);
      const result = await run([repo, '--baseline', baseline, '--format', 'json', ...fast]);
      expect(result.code).toBe(1);
      const letter = JSON.parse(result.out) as Letter;
      expect(letter.findings.map((f) => f.file)).toEqual(['new.ts']);
      expect((letter.suppressed ?? []).map((s) => [s.file, s.line, s.kind])).toEqual([['old.ts', 4, 'baseline']]);
    });
  }, 120_000);

  describe('with ANTHROPIC_API_KEY (the fake Anthropic API)', () => {
    let fake: FakeAnthropic;
    beforeAll(async () => {
      fake = await startFakeAnthropic({
        knownModels: ['claude-sonnet-5-5', 'claude-opus-5-5'],
        rejectForcedToolChoice: ['claude-sonnet-5-5', 'claude-opus-5-5'],
        script: (request: FakeMessagesRequest) =>
          fakeTurn.toolUse('report_findings', {
            findings: [
              {
                severity: 'medium',
                score: 5,
                category: 'correctness',
                finding_type: 'llm/unchecked-input',
                file: 'src/clean.ts',
                line_range: { start: 1, end: 1 },
                title: `add() accepts NaN (${request.model})`,
                current_behaviour: 'NaN passes through.',
                expected_behaviour: 'NaN is rejected.',
                observable_test_conditions: ['add(NaN, 1) throws'],
                forbidden_in_test: [],
              },
            ],
          }),
      });
    });
    afterAll(async () => fake.close());

    it('runs the LLM review like the fleet does, with the model from .rloop.yaml, and says what it cost', async () => {
      const env = { anthropicApiKey: 'sk-test-review', anthropicBaseUrl: fake.url };
      const result = await run(
        [dir, '--files', 'src/clean.ts', '--critics', 'security/sast-scanner', 'quality/code-reviewer'],
        { env },
      );
      expect(fake.messageCalls()).toHaveLength(1);
      expect(result.code).toBe(0);
      expect(result.out).toMatch(/1:1 {2}medium +add\(\) accepts NaN \(claude-sonnet-5-5\) {2}llm\/unchecked-input/);
      expect(result.out).toMatch(/LLM review: 1 request to claude-sonnet-5-5, \$\d+\.\d{4}\./);
      expect(result.out).not.toContain('sk-test-review');
      await inTempDir('rloop-cli-llm-', async (repo) => {
        writeFileSync(join(repo, 'x.ts'), 'export const x = 1;\n');
        writeFileSync(join(repo, '.rloop.yaml'), 'llm:\n  model: claude-opus-5-5\n');
        const opus = await run([repo, '--critics', 'quality/code-reviewer'], { env });
        expect(fake.messageCalls().at(-1)?.body.model).toBe('claude-opus-5-5');
        expect(opus.code).toBe(0);
        writeFileSync(join(repo, '.rloop.yaml'), 'llm:\n  model: gpt-0\n');
        expect(await run([repo, '--critics', 'quality/code-reviewer'], { env })).toMatchObject({
          code: 2,
          err: expect.stringMatching(/\.rloop\.yaml: llm\.model: gpt-0 is not in the model catalogue/),
        });
      });
      expect(fake.protocolErrors).toEqual([]);
    }, 120_000);
  });

  it('exit 3 when a file under review could not be analysed (too large), 0 once a size bound is set; an excluded file is no gap', async () => {
    await inTempDir('rloop-cli-big-', async (big) => {
      mkdirSync(join(big, 'src'));
      writeFileSync(join(big, 'src/padded.ts'), `// ${'x'.repeat(4 * 1024 * 1024)}\nexport const two = 2;\n`);
      // Alone, the padded file makes the core SAST check fail (it analysed nothing); beside another it is a gap.
      const alone = await run([big, ...fast]);
      expect(alone).toMatchObject({
        code: 3,
        err: expect.stringMatching(/review incomplete: .*security\/sast-scanner \(no_files_analysed\)/),
      });
      writeFileSync(join(big, 'src/one.ts'), 'export const one = 1;\n');
      const skipped = await run([big, ...fast]);
      expect(skipped.code).toBe(3);
      expect(skipped.err).toMatch(
        /review incomplete: not analysed: src\/padded\.ts \(too large: \d+ bytes, over the 4194304-byte bound\) by security\/sast-scanner.*\(--max-file-bytes sets the size bound\)/,
      );
      expect(skipped.out).toMatch(/^! no findings .*\n {2}not analysed: src\/padded\.ts \(too large: /m);
      expect((await run([big, '--md', ...fast])).out).toContain('## Files not analysed');
      expect((await run([big, '--max-file-bytes', String(8 * 1024 * 1024), ...fast])).code).toBe(0);
      // Left out on purpose (--exclude, .rloop.yaml, .rloopignore) is counted as excluded, never as not analysed.
      const excluded = await run([big, '--exclude', 'src/padded.ts', '--format', 'json', ...fast]);
      expect(excluded.code).toBe(0);
      expect(excluded.err).toMatch(/1 file reviewed · 1 excluded/);
      const letter = JSON.parse(excluded.out) as Letter;
      expect(letter.complete).toBe(true);
      expect(letter.critics.find((c) => c.critic_id === 'security/sast-scanner')?.coverage).toMatchObject({
        considered: 1,
        analysed: 1,
        skipped_total: 0,
      });
      writeFileSync(join(big, '.rloop.yaml'), `max_file_bytes: ${1024 * 1024}\n`);
      const configured = await run([big, '--format', 'json', ...fast]);
      expect(configured.code).toBe(0);
      expect((JSON.parse(configured.out) as Letter).repo_config).toMatchObject({
        config: '.rloop.yaml',
        excluded_files: 1,
      });
      expect(await run([big, '--max-file-bytes', '0', ...fast])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/--max-file-bytes expects a whole number of 1 or more, got "0"/),
      });
    });
  }, 120_000);

  it('--coverage adds the lines the tests never ran; without it, asking for that check by name is a usage error', async () => {
    await inTempDir('rloop-cli-coverage-', async (repo) => {
      mkdirSync(join(repo, 'src'));
      writeFileSync(
        join(repo, 'src/lib.js'),
        'export function used() {\n  return 1;\n}\n\nexport function unused() {\n  return 2;\n}\n',
      );
      writeFileSync(
        join(repo, 'check.mjs'),
        "import { used } from './src/lib.js';\nif (used() !== 1) throw new Error('no');\n",
      );
      const recorded = join(repo, '.coverage');
      execFileSync(process.execPath, ['check.mjs'], {
        cwd: repo,
        env: { PATH: process.env['PATH'] ?? '', NODE_V8_COVERAGE: recorded },
      });
      const result = await run([
        repo,
        '--files',
        'src/**',
        '--critics',
        'quality/test-coverage',
        '--coverage',
        recorded,
        '--format',
        'json',
      ]);
      expect(result.code).toBe(0);
      expect(
        (JSON.parse(result.out) as Letter).findings.map((f) => [
          f.finding_type,
          f.file,
          f.line_range.start,
          f.severity,
        ]),
      ).toEqual([['coverage/function-not-run', 'src/lib.js', 5, 'medium']]);
      expect(await run([repo, '--critics', 'quality/test-coverage'])).toMatchObject({
        code: 2,
        err: expect.stringMatching(
          /quality\/test-coverage cannot run: not configured|quality\/test-coverage cannot run: no coverage report/,
        ),
      });
    });
  }, 120_000);

  it('audits dependencies offline against an OSV export (--advisories, or RLOOP_ADVISORIES) and says how old the export is', async () => {
    await inTempDir('rloop-cli-osv-', async (work) => {
      const repo = join(work, 'repo');
      const osv = join(work, 'osv');
      writeMinimistRepo(repo);
      mkdirSync(osv);
      writeFileSync(join(osv, `${MINIMIST_ADVISORY.id}.json`), JSON.stringify(MINIMIST_ADVISORY));
      const byFlag = await run([repo, '--critics', 'toolchain/dependency-audit', '--advisories', osv]);
      expect(byFlag.code).toBe(1);
      // The advisory's own severity beside the tier, and the export's size and age in the summary.
      expect(byFlag.out).toMatch(
        /^ {2}3:1 {2}critical {2}moderate {2}minimist 0\.0\.8: Prototype Pollution in minimist .* {2}cve\/GHSA-vh95-rmgr-6w4m$/m,
      );
      expect(byFlag.out).toContain(
        `  toolchain/dependency-audit: OSV export ${osv}: 1 npm record(s); newest record modified 2026-11-01, 29 day(s) before this review`,
      );
      const byEnv = await run([repo, '--critics', 'toolchain/dependency-audit', '--format', 'json'], {
        env: { advisories: osv },
      });
      expect(byEnv.code).toBe(1);
      expect((JSON.parse(byEnv.out) as Letter).findings.map((f) => [f.finding_type, f.tool_severity])).toEqual([
        ['cve/GHSA-vh95-rmgr-6w4m', 'moderate'],
      ]);
    });
  }, 120_000);

  it("holds a language's own toolchain to account where the review has its files (ShellCheck on a script)", async () => {
    await inTempDir('rloop-cli-shell-', async (repo) => {
      writeFileSync(join(repo, 'deploy.sh'), '#!/bin/sh\ncd /srv\necho deployed\n');
      const result = await run([repo, '--critics', 'toolchain/shell', 'toolchain/go', '--format', 'json']);
      expect(result.code).toBe(1);
      const letter = JSON.parse(result.out) as Letter;
      expect(letter.findings.map((f) => [f.finding_type, f.line_range.start, f.tool_severity])).toEqual([
        ['shellcheck/SC2164', 2, 'warning'],
      ]);
      expect(Object.fromEntries(letter.critics.map((c) => [c.critic_id, c.core]))).toEqual({
        'toolchain/shell': true,
        'toolchain/go': false,
      });
    });
  }, 120_000);

  it('reviews a sub-directory that its repository ignores as its own tree', async () => {
    await inTempDir('rloop-cli-project-', async (project) => {
      writeFileSync(join(project, '.gitignore'), '.rloop/\n');
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
      mkdirSync(join(project, '.rloop/samples/app/src'), { recursive: true });
      writeFileSync(join(project, '.rloop/samples/app/src/bad.ts'), EVAL_SOURCE);
      const result = await run([join(project, '.rloop/samples/app'), '--format', 'json', ...fast]);
      expect(result.code).toBe(1);
      expect((JSON.parse(result.out) as Letter).findings.map((f) => f.finding_type)).toEqual(['sast/code-injection']);
      expect(await run([join(project, '.rloop/samples/app'), '--base', 'HEAD', ...fast])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/--base needs a git repository/),
      });
    });
  }, 120_000);

  describe('the rloop binary', () => {
    it('answers --version and --help without loading any command, and exits 2 on a usage error', () => {
      expect(existsSync(BIN)).toBe(true);
      const version = JSON.parse(readFileSync(join(REPO_ROOT, 'apps', 'cli', 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' }).trim()).toBe(version.version);
      expect(execFileSync(process.execPath, [BIN, 'review', '--help'], { encoding: 'utf8' })).toMatch(
        /Exit codes:\n {2}0 {2}clean[\s\S]*3 {2}the review could not run completely/,
      );
      const bogus = spawnSync(process.execPath, [BIN, 'review', dir, '--bogus'], { encoding: 'utf8' });
      expect(bogus.status).toBe(2);
      expect(bogus.stderr).toMatch(/unknown option '--bogus'/);
      const missing = spawnSync(process.execPath, [BIN, 'review', join(dir, 'nope')], { encoding: 'utf8' });
      expect(missing.status).toBe(2);
      expect(missing.stderr).toMatch(/rloop: .*nope is not a directory/);
      // The message quotes the path: a control character in it is shown escaped, never sent to the terminal.
      const hostile = spawnSync(process.execPath, [BIN, 'review', join(dir, 'nope\u001b[2J')], { encoding: 'utf8' });
      expect(hostile.status).toBe(2);
      expect(hostile.stderr).toContain('nope\\x1b[2J');
      expect(hostile.stderr).not.toContain('\u001b');
    });
  });
});
