import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineCritic, draftFinding } from '@rloop/critics';
import { runReviewCli } from './review.test-helpers.js';

// `rloop review` on a directory someone else prepared (a pull request's checkout, a downloaded
// project): its .git/config names programs and its eslint.config.js is code. Each leaves a marker
// file when it runs; a review must leave none. Its file names carry a newline, a table delimiter
// and a terminal escape, which must not break the letter or reach the terminal raw.

let root: string;
let repo: string;
let markers: string;

const NASTY = 'src/evil\n# Injected heading | x\u001b[2J.ts';

const review = (
  args: readonly string[],
  options: Parameters<typeof runReviewCli>[1] = {},
): ReturnType<typeof runReviewCli> => runReviewCli(args, options);

function marker(name: string): string {
  const script = join(root, `${name}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch ${join(markers, name)}\ncat\n`);
  chmodSync(script, 0o755);
  return script;
}

const ran = (): string[] =>
  ['fsmonitor', 'clean', 'smudge', 'textconv', 'hook', 'eslint-config'].filter((name) =>
    existsSync(join(markers, name)),
  );

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rloop-review-hostile-'));
  markers = join(root, 'markers');
  mkdirSync(markers);
  repo = join(root, 'checkout');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src/ok.ts'), 'export const add = (a: number, b: number): number => a + b;\n');
  writeFileSync(join(repo, '.gitattributes'), '*.ts filter=evil diff=evil\n');
  writeFileSync(
    join(repo, 'eslint.config.js'),
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(markers, 'eslint-config'))}, 'ran');\nexport default [{}];\n`,
  );
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'core.hooksPath=/dev/null', ...args],
      { stdio: 'ignore' },
    );
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'base');
  git('config', 'core.fsmonitor', marker('fsmonitor'));
  git('config', 'filter.evil.clean', marker('clean'));
  git('config', 'filter.evil.smudge', marker('smudge'));
  git('config', 'diff.evil.textconv', marker('textconv'));
  for (const hook of ['post-index-change', 'post-checkout', 'reference-transaction']) {
    writeFileSync(join(repo, '.git', 'hooks', hook), `#!/bin/sh\ntouch ${join(markers, 'hook')}\n`);
    chmodSync(join(repo, '.git', 'hooks', hook), 0o755);
  }
  writeFileSync(
    join(repo, NASTY),
    'export function run(req: { query: { code: string } }) {\n  return eval(req.query.code);\n}\n',
  );
  writeFileSync(join(repo, 'src/ok.ts'), 'export const add = (a: number, b: number): number => a + b + 0;\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('rloop review of a hostile checkout', () => {
  it('given a .git/config whose fsmonitor, filters and textconv leave markers, hooks, and an eslint.config.js that does too, when reviewed (with --base), then none of them runs', async () => {
    // The setup is live: plain git runs the fsmonitor hook on this checkout.
    execFileSync('git', ['-C', repo, 'status', '--porcelain'], { stdio: 'ignore' });
    expect(ran()).toContain('fsmonitor');
    rmSync(markers, { recursive: true, force: true });
    mkdirSync(markers);

    const result = await review([
      repo,
      '--base',
      'HEAD',
      '--critics',
      'toolchain/compiler-linter',
      'security/sast-scanner',
    ]);
    expect(result.code).toBe(1);
    expect(ran()).toEqual([]);
    expect(result.out).toMatch(
      /eslint\.config\.js was not loaded \(it is code; an operator opts in to running it\)|sast\/code-injection/,
    );
  }, 120_000);

  it('given a file name with a newline, a table delimiter and a terminal escape, when the letter is printed, then the Markdown keeps its shape and no escape reaches the terminal', async () => {
    const result = await review([repo, '--critics', 'security/sast-scanner', '--format', 'md']);
    expect(result.code).toBe(1);
    expect(result.out).not.toContain('\u001b');
    expect(result.out.split('\n').filter((line) => line.startsWith('# '))).toEqual([
      expect.stringMatching(/^# Letter /),
    ]);
    const row = result.out.split('\n').find((line) => line.includes('sast/code-injection') && line.startsWith('|'));
    // Seven cell borders: the name's `|` is escaped, its newline and escape are shown as \n and \x1b.
    expect(row?.replace(/\\\|/g, '').split('|')).toHaveLength(8);
    expect(row).toContain('src/evil\\n# Injected heading \\| x\\x1b[2J.ts');
  }, 120_000);

  it('given the same file name, when the findings are printed for a terminal (stylish, --verbose), then the name is one escaped line', async () => {
    const result = await review([repo, '--critics', 'security/sast-scanner', '--verbose']);
    expect(result.code).toBe(1);
    expect(`${result.out}${result.err}`).not.toContain('\u001b');
    expect(result.out.split('\n')).toContain('src/evil\\n# Injected heading | x\\x1b[2J.ts');
  }, 120_000);

  it('given --repo-eslint-config (the operator trusts the checkout), when reviewed, then its ESLint config is loaded', async () => {
    await review([repo, '--files', 'src/ok.ts', '--critics', 'toolchain/compiler-linter', '--repo-eslint-config']);
    expect(ran()).toEqual(['eslint-config']);
  }, 120_000);

  it('given a check that quotes a line holding an AWS key and a PEM private key, when printed in every format, written as a baseline or with --verbose, then neither key appears', async () => {
    const dir = join(root, 'secrets');
    mkdirSync(dir, { recursive: true });
    const awsKey = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');
    const pemBody = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun';
    writeFileSync(
      join(dir, 'creds.ts'),
      `export const key = '${awsKey}';\nexport const pem = \`-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\`;\n`,
    );
    // What an LLM reviewer does: quote the code it is talking about.
    const quoter = defineCritic({
      id: 'test/quoter',
      evidence: 'pattern',
      description: 'quotes the file',
      triggers: [],
      timeoutMs: 5_000,
      run: (context) =>
        Promise.resolve(
          context.files.map((file) => {
            const text = readFileSync(join(context.repoDir, file), 'utf8');
            return draftFinding({
              severity: 'critical',
              category: 'security',
              finding_type: 'quote/secret',
              file,
              line_range: { start: 1, end: 3 },
              title: `Hard-coded ${text.split('\n')[0] ?? ''}`,
              current_behaviour: text,
              expected_behaviour: 'no key in code',
              observable_test_conditions: [text],
              forbidden_in_test: [],
            });
          }),
        ),
    });
    const outputs: string[] = [];
    for (const format of ['stylish', 'json', 'sarif', 'md', 'github', 'gitlab']) {
      const result = await review([dir, '--critics', 'test/quoter', '--format', format, '--verbose', '--no-cache'], {
        extraCritics: [quoter],
      });
      expect({ format, code: result.code }).toEqual({ format, code: 1 });
      outputs.push(result.out, result.err);
    }
    const baseline = join(dir, 'baseline.json');
    await review([dir, '--critics', 'test/quoter', '--write-baseline', baseline, '--no-cache'], {
      extraCritics: [quoter],
    });
    outputs.push(readFileSync(baseline, 'utf8'));
    for (const text of outputs) {
      expect(text).not.toContain(awsKey);
      expect(text).not.toContain(pemBody);
    }
    // The finding itself is printed (masked), so the check above is not vacuous.
    expect(outputs[0]).toContain("Hard-coded export const key = '[REDACTED]';");
    expect(outputs.filter((text) => text.includes('REDACTED')).length).toBeGreaterThanOrEqual(7);
  }, 120_000);
});
