#!/usr/bin/env node
// Speed of the deterministic critics on a generated 50,000-line TypeScript tree, as ratios against
// the underlying tools run directly in the same script (so the machine's speed cancels out):
//
//   npx tsc -b libs/critics/tsconfig.lib.json && node bench/critics-speed/bench.js [--lines 50000] [--runs 3] [--full]
//
// 1. duplicate detection: our critic vs the jscpd CLI (same thresholds: 50 tokens, 5 lines);
// 2. SAST: our critic vs ESLint (typescript-eslint parser, no type information) with the core
//    rules that look at the same code (no-eval, no-implied-eval, no-new-func);
//    each measured as a fresh process (startup and module loading included, like a CLI run);
// 3. incremental review: duplicates + SAST + secrets with a cache, then one file changed, then
//    again: the second review must be at least 5x faster than the first;
// 4. with --full, the same for every built-in critic but the npm audit (which needs the network),
//    compiler/linter included.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generateTree } from './generate.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const arg = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
};
const LINES = arg('--lines', 50_000);
const RUNS = arg('--runs', 3);

const work = mkdtempSync(join(tmpdir(), 'rloop-speed-'));
const tree = join(work, 'tree');
const { files, lines } = generateTree(tree, { lines: LINES });
process.stdout.write(`generated ${files.length} files, ${lines} lines of TypeScript in ${tree}\n\n`);

function timed(command, args, options = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, ...options });
  const ms = performance.now() - started;
  if (result.error) throw result.error;
  return { ms, result };
}

/** Median wall time of `runs` runs (the first run warms the OS file cache and is dropped). */
function median(fn) {
  fn();
  const times = [];
  for (let i = 0; i < RUNS; i += 1) times.push(fn());
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const critic = (id) => () => {
  const { ms, result } = timed(process.execPath, [join(here, 'run-critic.js'), tree, '-', id]);
  if (result.status !== 0) throw new Error(`${id} failed: ${result.stderr}`);
  return ms;
};

const jscpdOut = join(work, 'jscpd');
const jscpd = () =>
  timed(join(root, 'node_modules', '.bin', 'jscpd'), [
    '--min-tokens',
    '50',
    '--min-lines',
    '5',
    '--format',
    'typescript',
    '--reporters',
    'json',
    '--output',
    jscpdOut,
    '--silent',
    tree,
  ]).ms;

const eslintConfig = join(work, 'eslint.config.mjs');
writeFileSync(
  eslintConfig,
  `import tseslint from ${JSON.stringify(join(root, 'node_modules', 'typescript-eslint', 'dist', 'index.js'))};\n` +
    `export default [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-eval': 'error', 'no-implied-eval': 'error', 'no-new-func': 'error' } }];\n`,
);
const eslint = () =>
  timed(join(root, 'node_modules', '.bin', 'eslint'), ['--config', eslintConfig, '--no-warn-ignored', tree], {
    cwd: tree,
  }).ms;

const rows = [];
const compare = (label, ours, theirs, theirName) => {
  const a = median(ours);
  const b = median(theirs);
  rows.push({ label, ours: a, theirs: b, theirName, ratio: a / b });
};
compare('duplicates', critic('quality/duplicate-code-detector'), jscpd, 'jscpd CLI');
compare('SAST', critic('security/sast-scanner'), eslint, 'ESLint (no-eval, no-implied-eval, no-new-func)');

for (const row of rows) {
  process.stdout.write(
    `${row.label.padEnd(11)} ours ${(row.ours / 1000).toFixed(2)} s   ${row.theirName} ${(row.theirs / 1000).toFixed(2)} s   ratio ${row.ratio.toFixed(2)}x  (target <= 1.30x) ${row.ratio <= 1.3 ? 'OK' : 'OVER'}\n`,
  );
}

// Incremental: a cold review, then the same review after one file changed.
const incremental = (label, ids, cacheDir) => {
  const review = () => {
    const { ms, result } = timed(process.execPath, [join(here, 'run-critic.js'), tree, cacheDir, ...ids]);
    if (result.status !== 0) throw new Error(result.stderr);
    return { wall: ms, ...JSON.parse(result.stdout) };
  };
  const first = review();
  const changed = files.find((f) => f.includes('routes')) ?? files[0];
  appendFileSync(
    join(tree, changed),
    `\nrouter.get('/extra-${label.length}', (req, res) => {\n  res.json({ echo: String(req.query.x).length });\n});\n`,
  );
  const second = review();
  const ratio = first.review_ms / second.review_ms;
  process.stdout.write(
    `\nincremental (${label}, one file changed):\n` +
      `  first review  ${(first.review_ms / 1000).toFixed(2)} s (process ${(first.wall / 1000).toFixed(2)} s), ${first.findings} findings\n` +
      `  second review ${(second.review_ms / 1000).toFixed(2)} s (process ${(second.wall / 1000).toFixed(2)} s), ${second.findings} findings\n` +
      `  speed-up ${ratio.toFixed(1)}x review time (target >= 5x) ${ratio >= 5 ? 'OK' : 'UNDER'}; ${(first.wall / second.wall).toFixed(1)}x including process start\n`,
  );
  for (const run of second.runs) process.stdout.write(`    ${run.id}: ${run.ms} ms (${run.notes.join('; ')})\n`);
};
incremental(
  'duplicates + SAST + secrets',
  ['quality/duplicate-code-detector', 'security/sast-scanner', 'security/secrets-detector'],
  join(work, 'cache'),
);
if (process.argv.includes('--full')) {
  incremental(
    'every critic but the npm audit',
    [
      'toolchain/compiler-linter',
      'quality/duplicate-code-detector',
      'security/sast-scanner',
      'security/secrets-detector',
      'toolchain/dependency-eol',
      'specialized/database-reviewer',
      'security/input-validation-checker',
    ],
    join(work, 'cache-full'),
  );
}
const report = JSON.parse(readFileSync(join(jscpdOut, 'jscpd-report.json'), 'utf8'));
process.stdout.write(
  `\n(jscpd found ${report.statistics?.total?.clones ?? '?'} clones on the tree; git: ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim()})\n`,
);
rmSync(work, { recursive: true, force: true });
