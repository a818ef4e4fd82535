import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

// The places users run rloop from, checked without GitHub, GitLab, pre-commit or Docker: their
// files are parsed and linted, and the commands they run are run here, with an `npx` that starts
// this checkout's rloop instead of downloading the published package.
// Each test that runs the binary starts full reviews (compiler, linter, taint analysis): on a
// loaded machine that takes longer than jest's default 30 s, hence their 2-minute limits.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'apps', 'cli', 'bin', 'rloop.js');
const VULNERABLE = 'export function run(req) {\n  return eval(req.query.code);\n}\n';

let work: string;
let shims: string;

function sh(
  script: string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      {
        cwd,
        encoding: 'utf8',
        env: { PATH: `${shims}:${process.env['PATH'] ?? ''}`, HOME: work, NO_COLOR: '1', ...env },
      },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

function gitRepo(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  git('init', '-q', '-b', 'main');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  git('add', '-A');
  git('commit', '-qm', 'initial');
  return dir;
}

function shellcheck(script: string): string {
  try {
    execFileSync('shellcheck', ['--shell=bash', '-'], { input: script, encoding: 'utf8' });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'rloop-integrations-'));
  shims = join(work, 'bin');
  mkdirSync(shims);
  // `npx --yes rloop[@version] …` → this checkout's rloop.
  writeFileSync(
    join(shims, 'npx'),
    `#!/bin/sh\n[ "$1" = "--yes" ] && shift\ncase "$1" in rloop|rloop@*) shift ;; *) echo "npx shim: unexpected $1" >&2; exit 99 ;; esac\nexec "${process.execPath}" "${BIN}" "$@"\n`,
  );
  chmodSync(join(shims, 'npx'), 0o755);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Step {
  readonly id?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly shell?: string;
  readonly env?: Record<string, string>;
  readonly if?: string;
}

describe('the GitHub Action (action.yml)', () => {
  const text = readFileSync(join(ROOT, 'action.yml'), 'utf8');
  const action = parseYaml(text) as { inputs: Record<string, unknown>; runs: { using: string; steps: Step[] } };

  it('is a composite action whose steps use only declared inputs, name a shell, and pass shellcheck', () => {
    expect(action.runs.using).toBe('composite');
    const used = [...text.matchAll(/inputs\.([a-z-]+)/g)].map((m) => m[1]);
    expect(used.filter((name) => name !== undefined && !(name in action.inputs))).toEqual([]);
    for (const step of action.runs.steps.filter((s) => s.run !== undefined)) {
      expect(step.shell).toBe('bash');
      expect(shellcheck(step.run ?? '')).toBe('');
    }
    expect(action.runs.steps.map((s) => s.uses).filter(Boolean)).toEqual([
      'actions/setup-node@v4',
      'github/codeql-action/upload-sarif@v3',
    ]);
  });

  it("its review step annotates, writes SARIF, JSON and a step summary, and hands on the review's exit code", async () => {
    const repo = gitRepo('action', { 'src/ok.js': 'export const ok = 1;\n' });
    writeFileSync(join(repo, 'src', 'app.js'), VULNERABLE);
    execFileSync(
      'git',
      ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qam', 'x', '--allow-empty'],
      { cwd: repo },
    );
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'add app'], {
      cwd: repo,
    });
    const step = action.runs.steps.find((s) => s.id === 'review');
    const out = join(work, 'action-out');
    const githubOutput = join(work, 'github-output');
    const summary = join(work, 'step-summary');
    writeFileSync(githubOutput, '');
    writeFileSync(summary, '');
    const result = await sh(step?.run ?? '', repo, {
      RLOOP_PATH: '.',
      RLOOP_BASE: 'HEAD~1',
      RLOOP_FAIL_ON: 'critical',
      RLOOP_VERSION: '0.1.0',
      RLOOP_ARGS: '--skip toolchain/dependency-audit',
      ANTHROPIC_API_KEY: '',
      OUT: out,
      GITHUB_OUTPUT: githubOutput,
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^::error file=src\/app\.js,line=2,/m);
    expect(readFileSync(githubOutput, 'utf8')).toBe(`exit-code=1\nsarif-file=${out}/rloop.sarif\n`);
    expect(JSON.parse(readFileSync(join(out, 'rloop.sarif'), 'utf8'))).toMatchObject({ version: '2.1.0' });
    expect(JSON.parse(readFileSync(join(out, 'rloop.json'), 'utf8'))).toMatchObject({
      findings: [{ file: 'src/app.js', finding_type: 'sast/code-injection' }],
    });
    expect(readFileSync(summary, 'utf8')).toMatch(/^### rloop review\n\n```\nsrc\/app\.js\n[\s\S]*✖ 1 finding/);
    const fail = action.runs.steps.at(-1);
    expect(await sh(fail?.run ?? '', repo, { CODE: '1' })).toMatchObject({
      code: 1,
      stdout: '::error::rloop review: findings at or above the fail-on tier\n',
    });
  }, 120_000);

  it('is shown in a documented workflow that grants what it needs and fetches history for --base', () => {
    const workflow = parseYaml(readFileSync(join(ROOT, 'integrations', 'github', 'rloop-review.yml'), 'utf8')) as {
      permissions: Record<string, string>;
      jobs: { review: { steps: { uses?: string; with?: Record<string, unknown> }[] } };
    };
    expect(workflow.permissions).toMatchObject({
      'security-events': 'write',
      'pull-requests': 'write',
      issues: 'write',
    });
    expect(workflow.jobs.review.steps[0]).toEqual({ uses: 'actions/checkout@v4', with: { 'fetch-depth': 0 } });
    expect(workflow.jobs.review.steps[1]?.uses).toMatch(/^refinement-loop\/rloop@/);
  });
});

describe('the GitLab CI snippet', () => {
  it("writes GitLab's code quality report for the merge request's changed lines", async () => {
    const job = (
      parseYaml(readFileSync(join(ROOT, 'integrations', 'gitlab', 'rloop.gitlab-ci.yml'), 'utf8')) as Record<
        string,
        { script: string[]; artifacts: { reports: { codequality: string } } }
      >
    )['rloop-review'];
    const repo = gitRepo('gitlab', { 'src/ok.js': 'export const ok = 1;\n' });
    execFileSync('git', ['branch', '-q', 'target'], { cwd: repo });
    execFileSync('git', ['remote', 'add', 'origin', repo], { cwd: repo });
    writeFileSync(join(repo, 'src', 'app.js'), VULNERABLE);
    const script = (job?.script ?? [])
      .map((line) =>
        line.replace('npx --yes rloop review .', 'npx --yes rloop review . --skip toolchain/dependency-audit'),
      )
      .join('\n');
    const result = await sh(script, repo, { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'target' });
    expect(result.code).toBe(1);
    const report = JSON.parse(readFileSync(join(repo, job?.artifacts.reports.codequality ?? ''), 'utf8')) as unknown[];
    expect(report).toEqual([
      expect.objectContaining({
        check_name: 'sast/code-injection',
        severity: 'critical',
        location: { path: 'src/app.js', lines: { begin: 2, end: 2 } },
      }),
    ]);
  }, 120_000);
});

describe('the pre-commit hook (.pre-commit-hooks.yaml)', () => {
  it('reviews the staged changes of the files pre-commit passes, failing at a critical finding', async () => {
    const [hook] = parseYaml(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as {
      id: string;
      entry: string;
      language: string;
      pass_filenames: boolean;
    }[];
    expect(hook).toMatchObject({ id: 'rloop-review', language: 'system', pass_filenames: true });
    const repo = gitRepo('pre-commit', { 'src/old.js': VULNERABLE });
    writeFileSync(join(repo, 'src', 'new.js'), 'export const x = 1;\n');
    execFileSync('git', ['add', 'src/new.js'], { cwd: repo });
    // The existing problem in old.js is not what this commit changes, even when old.js is staged.
    writeFileSync(join(repo, 'src', 'old.js'), `${VULNERABLE}export const added = 2;\n`);
    execFileSync('git', ['add', 'src/old.js'], { cwd: repo });
    expect((await sh(`${hook?.entry ?? ''} src/new.js src/old.js`, repo)).code).toBe(0);
    writeFileSync(join(repo, 'src', 'new.js'), VULNERABLE);
    execFileSync('git', ['add', 'src/new.js'], { cwd: repo });
    const failing = await sh(`${hook?.entry ?? ''} src/new.js`, repo);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/^src\/new\.js\n {2}2:1 {2}critical/m);
    expect(failing.stdout).not.toContain('src/old.js');
  }, 120_000);
});

describe('the Docker image', () => {
  it('runs `rloop review /src` by default and any rloop command when given one', async () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/app\/scripts\/container-entrypoint\.sh"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["review", "\/src"\]$/m);
    expect(dockerfile).toMatch(/^COPY scripts scripts$/m);
    const entrypoint = join(ROOT, 'scripts', 'container-entrypoint.sh');
    expect(shellcheck(readFileSync(entrypoint, 'utf8')).replace(/^.*SC2148.*$/m, '')).toBe('');
    const repo = gitRepo('docker-src', { 'src/app.js': VULNERABLE });
    const env = { RLOOP_APP: ROOT, SERVICE: '' };
    const review = await sh(`"${entrypoint}" review "${repo}" --skip toolchain/dependency-audit`, work, env);
    expect(review.code).toBe(1);
    expect(review.stdout).toMatch(/sast\/code-injection/);
    expect((await sh(`"${entrypoint}" --version`, work, env)).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  }, 120_000);
});
