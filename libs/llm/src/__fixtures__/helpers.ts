import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Letter } from '@rloop/contracts';
import { createAnthropicClient, type LlmClient, type ModelCatalogue, parseModelCatalogue } from '../index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The project's real config/models.yaml. */
export async function loadTestCatalogue(): Promise<ModelCatalogue> {
  return parseModelCatalogue(await readFile(join(here, '../../../../config/models.yaml'), 'utf8'));
}

export const TEST_MODEL = 'claude-sonnet-5-5';
export const TEST_API_KEY = 'sk-ant-api03-TESTKEY-0123456789abcdefghijklmnop';

/** A real SDK client pointed at a fake server; waits are recorded, not slept. */
export function clientFor(
  url: string,
  waits: number[] = [],
  overrides: { maxRetries?: number; maxRetryAfterMs?: number; model?: string; apiKey?: string } = {},
): LlmClient {
  return createAnthropicClient({
    apiKey: overrides.apiKey ?? TEST_API_KEY,
    baseURL: url,
    model: overrides.model ?? TEST_MODEL,
    maxRetries: overrides.maxRetries ?? 2,
    timeoutMs: 10_000,
    ...(overrides.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: overrides.maxRetryAfterMs }),
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    random: () => 0,
  });
}

export async function run(cwd: string, file: string, args: readonly string[]): Promise<string> {
  return await new Promise((resolve, reject) => {
    execFile(file, [...args], { cwd, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${file} ${args.join(' ')} failed: ${stderr}`));
    });
  });
}

export interface TempRepo {
  readonly dir: string;
  readonly base: string;
  write(path: string, content: string): Promise<void>;
  commit(message: string): Promise<string>;
  remove(): Promise<void>;
}

/** A real git repository in a temp dir with the given files committed. */
export async function createTempRepo(files: Readonly<Record<string, string>>): Promise<TempRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'rloop-llm-'));
  const write = async (path: string, content: string): Promise<void> => {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  };
  for (const [path, content] of Object.entries(files)) await write(path, content);
  await run(dir, 'git', ['init', '-q', '-b', 'main']);
  await run(dir, 'git', ['config', 'user.email', 'test@example.com']);
  await run(dir, 'git', ['config', 'user.name', 'test']);
  const commit = async (message: string): Promise<string> => {
    await run(dir, 'git', ['add', '-A']);
    await run(dir, 'git', ['commit', '-q', '--allow-empty', '-m', message]);
    return (await run(dir, 'git', ['rev-parse', 'HEAD'])).trim();
  };
  const base = await commit('base');
  return { dir, base, write, commit, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A small ESM package tested with `node --test`: a clamp function with a bug (no lower bound). */
export const SAMPLE_FILES: Readonly<Record<string, string>> = {
  'package.json': '{ "name": "sample", "type": "module", "private": true }\n',
  'src/math.js': [
    '// Keeps a value inside [min, max].',
    'export function clamp(value, min, max) {',
    '  if (value > max) return max;',
    '  return value;',
    '}',
    '',
    'export function double(value) {',
    '  return value * 2;',
    '}',
    '',
  ].join('\n'),
  'test/double.test.js': [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { double } from '../src/math.js';",
    '',
    "test('double doubles', () => {",
    '  assert.equal(double(2), 4);',
    '  assert.equal(double(-3), -6);',
    '});',
    '',
  ].join('\n'),
};

export const TEST_COMMAND = 'node --test --test-reporter=tap';

/** Environment for test commands: PATH only (what RunCommandOptions.env asks callers to pass). */
export const TEST_ENV: Readonly<Record<string, string>> = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };

/** A letter with one finding about clamp's missing lower bound. */
export function sampleLetter(commit: string): Letter {
  // Parsed, so the fixture is checked against the real contract and gets its defaults.
  return Letter.parse({
    letter_id: '01JTESTLETTER0000000000000',
    plan: 'sample-plan',
    run_id: '01JTESTRUN00000000000000000',
    round: 1,
    phase: 'critical',
    k: 3,
    commit,
    created_at: '2026-11-30T10:00:00.000Z',
    critics: [
      { critic_id: 'quality/code-reviewer', core: true, outcome: 'reported', findings_total: 1, findings_kept: 1 },
    ],
    findings: [
      {
        id: 'f-clamp-min',
        fingerprint: 'abcdef012345',
        severity: 'critical',
        score: 8,
        category: 'correctness',
        finding_type: 'llm/missing-bound',
        file: 'src/math.js',
        line_range: { start: 2, end: 5 },
        title: 'clamp ignores the lower bound',
        current_behaviour: 'clamp(-5, 0, 10) returns -5',
        expected_behaviour: 'clamp returns min when value < min',
        observable_test_conditions: ['clamp(-5, 0, 10) === 0'],
        forbidden_in_test: ['mocking clamp with `mock.method`'],
        raised_by: 'quality/code-reviewer',
        related_findings: [],
        fixable: false,
        related_locations: [],
      },
    ],
    counts: { critical: 1, medium: 0, low: 0 },
    complete: true,
    disagreements: [],
    summary: 'clamp has no lower bound.',
  });
}

export const RED_TEST_PATH = 'test/clamp-lower-bound.test.js';
export const RED_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { clamp } from '../src/math.js';",
  '',
  "test('clamp returns min below the range', () => {",
  '  assert.equal(clamp(-5, 0, 10), 0);',
  '});',
  '',
].join('\n');

export const GREEN_TEST_PATH = 'test/clamp-upper-bound.test.js';
export const GREEN_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { clamp } from '../src/math.js';",
  '',
  "test('clamp returns max above the range', () => {",
  '  assert.equal(clamp(50, 0, 10), 10);',
  '});',
  '',
].join('\n');
