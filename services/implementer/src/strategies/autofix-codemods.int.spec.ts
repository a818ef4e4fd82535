import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Finding } from '@rloop/contracts';
import { compilerLinterCritic, runCritic } from '@rloop/critics';
import { applyFix } from '../fix/fix-cycle.js';
import { builtInStrategies } from './resolve.js';
import { type TempDir, TEST_COMMANDS, commandEnv, gitOut, letterFor, tempDir } from '../testing/repos.test-helpers.js';

// The autofix strategy's codemods through the fix cycle, on a CommonJS repository whose own tests
// pin the behaviour of code that uses deprecated Node APIs: the critic's findings say which have a
// codemod, autofix applies them, the repository's tests still pass, and the critic no longer
// reports what was rewritten; what has no safe rewrite stays, and a letter of only such findings
// gets no attempt.

const SOURCE = `'use strict';
const util = require('util');
const fs = require('fs');

/** The first four bytes of a frame, as hex. */
function header(frame) {
  const bytes = new Buffer(frame, 'utf8');
  return bytes.slice(0, 4).toString('hex');
}

/** A zero-filled scratch buffer. */
function scratch(size) {
  return new Buffer(Number(size));
}

/** The code of an id like "INV-2026-0042". */
function code(id) {
  if (!util.isString(id)) throw new TypeError('id must be a string');
  return id.substr(4);
}

/** Whether a path exists, through the old callback API. */
function present(path, done) {
  fs.exists(path, done);
}

module.exports = { header, scratch, code, present };
`;

const TEST = `'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { header, scratch, code, present } = require('../src/frames.js');

test('header is the first four bytes', () => assert.equal(header('abcdefgh'), '61626364'));
test('scratch is zero-filled', () => assert.deepEqual([...scratch(3)], [0, 0, 0]));
test('code drops the prefix', () => assert.equal(code('INV-2026-0042'), '2026-0042'));
test('code refuses a number', () => assert.throws(() => code(42), TypeError));
test('present finds the directory', (t, done) => present('.', (found) => { assert.equal(found, true); done(); }));
`;

async function review(dir: string, commit: string): Promise<Finding[]> {
  const result = await runCritic(compilerLinterCritic(), {
    repoDir: dir,
    commit,
    files: ['src/frames.js', 'test/frames.test.js'],
    phase: 'critical',
  });
  if (result.status !== 'reported') throw new Error(`${result.reason}: ${result.message}`);
  return [...result.findings];
}

describe('autofix applies the codemods the critics name, and the repository’s tests still pass', () => {
  let tmp: TempDir;
  let repo: string;
  let commit: string;

  beforeAll(async () => {
    tmp = await tempDir('codemods');
    repo = join(tmp.path, 'legacy');
    await mkdir(join(repo, 'src'), { recursive: true });
    await mkdir(join(repo, 'test'), { recursive: true });
    await writeFile(
      join(repo, 'package.json'),
      '{ "name": "legacy", "private": true, "scripts": { "test": "node --test" } }\n',
    );
    await writeFile(join(repo, 'src', 'frames.js'), SOURCE);
    await writeFile(join(repo, 'test', 'frames.test.js'), TEST);
    gitOut(tmp.path, ['init', '-q', '-b', 'main', repo]);
    gitOut(repo, ['add', '-A']);
    gitOut(repo, ['commit', '-qm', 'legacy frames']);
    commit = gitOut(repo, ['rev-parse', 'HEAD']);
  }, 60_000);

  afterAll(() => tmp.cleanup());

  const deps = () => ({
    workRoot: join(tmp.path, 'home'),
    env: commandEnv(),
    commands: TEST_COMMANDS,
    testTimeoutMs: 60_000,
    strategyFor: builtInStrategies({ commandTimeoutMs: 60_000 }),
  });

  it('given the critic’s deprecations, when autofix fixes the letter, then every one with a codemod is rewritten, the tests pass, and the critic reports only what has none', async () => {
    const findings = await review(repo, commit);
    const deprecations = findings.filter((f) => f.finding_type.startsWith('deprecation/'));
    expect(deprecations.map((f) => [f.finding_type, f.line_range.start, f.autofix])).toEqual([
      ['deprecation/Buffer', 7, 'codemod'],
      ['deprecation/slice', 8, 'codemod'],
      ['deprecation/Buffer', 13, 'codemod'],
      ['deprecation/isString', 18, 'codemod'],
      ['deprecation/substr', 19, 'codemod'],
      ['deprecation/exists', 24, 'none'],
    ]);

    const result = await applyFix(
      {
        round: 1,
        attempt: 1,
        letter: letterFor('codemods', commit, findings),
        base_commit: commit,
        branch: 'rloop/codemods',
        repo_path: repo,
        test_cmd: 'node --test',
        implementer: { strategy: 'autofix' },
        baseline_failing: [],
      },
      deps(),
    );
    expect(result).toMatchObject({
      strategy: 'autofix',
      outcome: 'committed',
      tests_result: { passed: 5, failed: 0, regressions: 0 },
    });
    const fixed = gitOut(repo, ['show', `${result.commit ?? ''}:src/frames.js`]);
    expect(fixed).toContain("const bytes = Buffer.from(frame, 'utf8');");
    expect(fixed).toContain("return bytes.subarray(0, 4).toString('hex');");
    expect(fixed).toContain('return Buffer.alloc(Number(size));');
    expect(fixed).toContain("if (!(typeof id === 'string')) throw new TypeError('id must be a string');");
    expect(fixed).toContain('return id.slice(4);');
    expect(fixed).toContain('fs.exists(path, done);');

    // The repository's tests on the fixed commit, by themselves.
    gitOut(repo, ['checkout', '-q', result.commit ?? '']);
    try {
      const after = await review(repo, result.commit ?? '');
      expect(after.filter((f) => f.finding_type.startsWith('deprecation/')).map((f) => f.finding_type)).toEqual([
        'deprecation/exists',
      ]);
    } finally {
      gitOut(repo, ['checkout', '-q', 'main']);
    }
  }, 120_000);

  it('given a letter whose every finding has no deterministic fix, when autofix is asked, then it makes no attempt and says why (no test run is spent)', async () => {
    const none = (await review(repo, commit)).filter((f) => f.autofix === 'none');
    expect(none.length).toBeGreaterThan(0);
    const result = await applyFix(
      {
        round: 2,
        attempt: 1,
        letter: letterFor('nothing', commit, none, { letter_id: 'd_letter00000000002' }),
        base_commit: commit,
        branch: 'rloop/nothing',
        repo_path: repo,
        test_cmd: 'node --test',
        implementer: { strategy: 'autofix' },
        baseline_failing: [],
      },
      deps(),
    );
    expect(result).toMatchObject({ outcome: 'no_change', commit: null, tests_result: { total: 0 } });
    expect(result.reason).toMatch(
      /^the autofix strategy made no attempt: no finding of the letter has a deterministic fix \(each is marked autofix: none — .*deprecation\/exists/,
    );
  }, 120_000);

  it('given a codemod finding in a file behind a link out of the worktree, when autofix runs, then that file is neither read nor written', async () => {
    const outside = join(tmp.path, 'outside.js');
    await writeFile(outside, 'module.exports = new Buffer(4);\n');
    const linked = join(tmp.path, 'linked');
    gitOut(tmp.path, ['init', '-q', '-b', 'main', linked]);
    await mkdir(join(linked, 'src'));
    await symlink(outside, join(linked, 'src', 'alias.js'));
    await writeFile(join(linked, 'src', 'own.js'), 'module.exports = new Buffer(4);\n');
    gitOut(linked, ['add', '-A']);
    gitOut(linked, ['commit', '-qm', 'a link out']);
    const head = gitOut(linked, ['rev-parse', 'HEAD']);
    const finding = (file: string): Finding => ({
      id: `f-${file}`,
      fingerprint: 'abcdef012345',
      severity: 'critical',
      score: 8,
      category: 'correctness',
      finding_type: 'deprecation/Buffer',
      file,
      line_range: { start: 1, end: 1 },
      title: 'Deprecated API: Buffer',
      current_behaviour: 'new Buffer',
      expected_behaviour: 'Buffer.alloc',
      observable_test_conditions: [],
      forbidden_in_test: [],
      raised_by: 'toolchain/compiler-linter',
      related_findings: [],
      fixable: true,
      autofix: 'codemod',
      related_locations: [],
    });
    const result = await applyFix(
      {
        round: 1,
        attempt: 1,
        letter: letterFor('linked', head, [finding('src/alias.js'), finding('src/own.js')]),
        base_commit: head,
        branch: 'rloop/linked',
        repo_path: linked,
        test_cmd: 'echo no tests',
        implementer: { strategy: 'autofix' },
        baseline_failing: [],
      },
      deps(),
    );
    expect(result.outcome).toBe('committed');
    expect(gitOut(linked, ['show', '--name-only', '--format=', result.commit ?? ''])).toBe('src/own.js');
    expect(await readFile(outside, 'utf8')).toBe('module.exports = new Buffer(4);\n');
  }, 120_000);
});
